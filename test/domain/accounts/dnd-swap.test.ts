// A large DND import on SQLite is written beside the registry and swapped in (decision 0185's
// addendum): other writes go on while it is written, the operator's adds and removes made
// meanwhile survive the swap, a second large import is refused while one is written, and what a
// stopped import left is dropped by the next. Through the operator API of a real gateway; the
// adds-survive checks run on PostgreSQL too (its import is one transaction there).
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createLogger, startGateway } from "../../../src/app/gateway.js";
import { DND_SWAP_FROM } from "../../../src/domain/accounts/dnd-swap.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";

vi.setConfig({ testTimeout: 120_000 });

/** Valid numbers, one a line: `count` of them from `from`. */
function numbers(count: number, from: number): string {
  return `${Array.from({ length: count }, (_, i) => String(from + i)).join("\n")}\n`;
}

describeEnginesTogether("a large DND import, written beside the registry", (engine) => {
  const gateway = useTestGateway(engine);
  let key = "";
  beforeAll(async () => {
    key = (await buildAccount(gateway(), { role: "operator", sender: null })).apiKey;
  });

  const auth = () => ({ authorization: `Bearer ${key}` });
  async function count(t: TestGateway): Promise<number> {
    const answer = await call(t, "GET", "/admin/api/dnd", { headers: auth() });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.count;
  }
  async function listed(t: TestGateway, number: string): Promise<boolean> {
    const answer = await call(t, "GET", `/admin/api/dnd/${number}`, { headers: auth() });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.dnd;
  }
  const importCsv = (t: TestGateway, csv: string, query = "") =>
    call(t, "POST", `/admin/api/dnd/import${query}`, {
      headers: { ...auth(), "content-type": "text/csv" },
      body: csv,
    });
  /** The side tables in the database now (SQLite; none on PostgreSQL). */
  async function sideTables(t: TestGateway): Promise<string[]> {
    if (engine !== "sqlite") return [];
    const rows = await sql<{
      name: string;
    }>`select name from sqlite_master where type = 'table' and name like 'dnd_import_%'`.execute(t.db.store.db);
    return rows.rows.map((row) => row.name);
  }
  const registrySql = async (t: TestGateway) =>
    engine === "sqlite"
      ? (await sql<{ sql: string }>`select sql from sqlite_master where name = 'dnd_numbers'`.execute(t.db.store.db))
          .rows[0]?.sql
      : undefined;

  /**
   * Runs the import while the operator adds one new number and removes one of `removable` at a
   * time, one after the other, until the import answers; answers the import, the numbers added
   * and removed meanwhile, and how many of those calls answered while a side table was there.
   */
  async function importWhileEditing(t: TestGateway, csv: string, query: string, removable: string[], from: number) {
    let done = false;
    const importing = importCsv(t, csv, query).finally(() => {
      done = true;
    });
    const added: string[] = [];
    const removed: string[] = [];
    let duringSide = 0;
    for (let i = 0; !done; i += 1) {
      const number = String(from + i);
      const add = await call(t, "POST", "/admin/api/dnd", { headers: auth(), json: { numbers: [number] } });
      expect(add.status, add.text).toBe(200);
      added.push(number);
      const gone = removable[i];
      if (gone !== undefined) {
        const remove = await call(t, "DELETE", "/admin/api/dnd", { headers: auth(), json: { numbers: [gone] } });
        expect(remove.status, remove.text).toBe(200);
        removed.push(gone);
      }
      if ((await sideTables(t)).length > 0) duringSide += 1;
    }
    return { answer: await importing, added, removed, duringSide };
  }

  it("merges a large file while the operator's adds and removes go on, and keeps them all", async () => {
    const t = gateway();
    const shape = await registrySql(t);
    const base = Array.from({ length: 200 }, (_, i) => String(6_000_000_000 + i));
    expect((await importCsv(t, base.join("\n"))).status).toBe(200);
    const before = await count(t);
    const lines = DND_SWAP_FROM + 1_000;
    const run = await importWhileEditing(t, numbers(lines, 7_400_000_000), "", base, 6_100_000_000);
    console.info(
      `[${engine}] merge of ${lines}: ${run.added.length} adds and ${run.removed.length} removes meanwhile, ${run.duringSide} while the side table was written`,
    );
    expect(run.answer.status, run.answer.text).toBe(200);
    expect(run.answer.body.data).toMatchObject({ added: lines, duplicates: 0 });
    expect(await count(t)).toBe(before + lines + run.added.length - run.removed.length);
    for (const number of [run.added[0]!, run.added.at(-1)!, "7400000000", String(7_400_000_000 + lines - 1)]) {
      expect(await listed(t, number), number).toBe(true);
    }
    for (const number of run.removed) expect(await listed(t, number), number).toBe(false);
    expect(await listed(t, base.at(-1)!)).toBe(run.removed.length < base.length);
    if (engine === "sqlite") {
      // Other writes went on while it was written, and the registry is the table it was.
      expect(run.duringSide).toBeGreaterThan(0);
      expect(await registrySql(t)).toBe(shape);
    }
    expect(await sideTables(t)).toEqual([]);
    const audit = await call(t, "GET", "/admin/api/audit?action=dnd.import&per_page=1", { headers: auth() });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.body.data[0]).toMatchObject({ action: "dnd.import", after: { replace: false, added: lines } });
  });

  it("replaces the registry with a large file, keeping the adds made while it was written", async () => {
    const t = gateway();
    const old = await count(t);
    expect(old).toBeGreaterThan(0);
    const lines = DND_SWAP_FROM + 500;
    const run = await importWhileEditing(t, numbers(lines, 7_700_000_000), "?replace=true", [], 6_200_000_000);
    expect(run.answer.status, run.answer.text).toBe(200);
    expect(run.answer.body.data).toMatchObject({ added: lines, duplicates: 0 });
    // The adds made before the import's own write began are replaced; those made while it was written stay.
    const kept = await Promise.all(run.added.map((number) => listed(t, number)));
    expect(await count(t)).toBe(lines + kept.filter(Boolean).length);
    expect(await listed(t, "7400000000")).toBe(false);
    expect(await listed(t, String(7_700_000_000 + lines - 1))).toBe(true);
    if (engine === "sqlite") {
      expect(run.duringSide).toBeGreaterThan(0);
      // Every add answered while the side table was there is in the registry that replaced it.
      expect(kept.filter(Boolean).length).toBeGreaterThanOrEqual(run.duringSide);
    }
    expect(await sideTables(t)).toEqual([]);
  });
});

// SQLite's alone: PostgreSQL writes an import in one transaction, beside which others go on.
describe("a large DND import, beside another [sqlite]", () => {
  const gateway = useTestGateway("sqlite");
  let key = "";
  let holder: ChildProcess | undefined;
  beforeAll(async () => {
    key = (await buildAccount(gateway(), { role: "operator", sender: null })).apiKey;
  });
  afterAll(() => {
    holder?.kill("SIGKILL");
  });

  it("refuses a large import while another process writes one, and drops what a stopped one left", async () => {
    const t = gateway();
    const headers = { authorization: `Bearer ${key}`, "content-type": "text/csv" };
    const csv = numbers(DND_SWAP_FROM, 8_000_000_000);
    // Another process writing its import: a side table named by a live process.
    holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
    await once(holder, "spawn");
    const side = `dnd_import_${holder.pid}_0123456789ab`;
    await sql.raw(`create table "${side}" ("number" integer primary key)`).execute(t.db.store.db);

    const refused = await call(t, "POST", "/admin/api/dnd/import", { headers, body: csv });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body).toMatchObject({ status: "error", error: { code: "conflict", added: 0 } });
    expect(refused.body.message).toContain("No number was added");
    const empty = await call(t, "GET", "/admin/api/dnd", { headers });
    expect(empty.body.data.count).toBe(0);

    // That process stopped (kill -9): a start drops its table, and the next import is written.
    holder.kill("SIGKILL");
    await once(holder, "exit");
    const sides = async () =>
      (
        await sql<{ name: string }>`select name from sqlite_master where name like 'dnd_import_%'`.execute(
          t.db.store.db,
        )
      ).rows;
    expect(await sides()).toEqual([{ name: side }]);
    const restarted = await startGateway({
      config: t.config,
      roles: ["api"],
      store: t.db.store,
      logger: createLogger({ logLevel: "silent" }),
      openApiAtStart: false,
    });
    await restarted.stop();
    expect(await sides()).toEqual([]);
    await sql.raw(`create table "${side}" ("number" integer primary key)`).execute(t.db.store.db);
    const written = await call(t, "POST", "/admin/api/dnd/import", { headers, body: csv });
    expect(written.status, written.text).toBe(200);
    expect(written.body.data).toMatchObject({ added: DND_SWAP_FROM });
    expect(await sides()).toEqual([]);
  });
});
