// The CLI's changes that an earlier audit found missing from the audit log (audit-support F1, F3,
// F6, F9), through the built program on both engines: `accounts set --unlock`, `dnd add|remove|
// import [--replace]` and `voice-caller-ids approve|remove` each write one entry as `cli`; a
// command that changes nothing writes none.
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

type Entry = Record<string, unknown>;

describeEachEngine("switchboard CLI: changes in the audit log", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await cliOk(["accounts", "create", "--username", "shop", "--password", "password-123", "--json"], env);
  });
  afterAll(async () => {
    await db.drop();
  });

  /** The entries after `seq`, oldest first. */
  async function entriesAfter(seq: number): Promise<Entry[]> {
    const listed = JSON.parse(await cliOk(["audit", "list", "--limit", "100", "--json"], env));
    return (listed.data as Entry[]).filter((entry) => Number(entry.seq) > seq).reverse();
  }
  const head = async () => Number((await entriesAfter(0)).at(-1)?.seq ?? 0);

  it("records `accounts set --unlock` as login_locks.clear naming the locks, and nothing when none is in force", async () => {
    const account = await db.store.db
      .selectFrom("accounts")
      .select("id")
      .where("username", "=", "shop")
      .executeTakeFirstOrThrow();
    const until = Date.now() + 600_000;
    await db.store.db
      .insertInto("login_failures")
      .values({ account_id: account.id, address: "198.51.100.4", failures: 0, locked_until: until, updated_at: 1 })
      .execute();
    const seq = await head();
    await cliOk(["accounts", "set", "--username", "shop", "--unlock"], env);
    await cliOk(["accounts", "set", "--username", "shop", "--unlock"], env);
    expect(await entriesAfter(seq)).toMatchObject([
      {
        actor: "cli",
        channel: "cli",
        account: "shop",
        action: "login_locks.clear",
        target: "login locks of shop",
        before: {
          locks: [
            { login: "shop", scope: "address", address: "198.51.100.4", locked_until: new Date(until).toISOString() },
          ],
        },
        after: { cleared: 1 },
      },
    ]);
  });

  it("records `dnd add`, `dnd remove` and `dnd import --replace`", async () => {
    const seq = await head();
    await cliOk(["dnd", "add", "9811100066", "+91 98111 00065"], env);
    await cliOk(["dnd", "add", "9811100066"], env);
    await cliOk(["dnd", "remove", "9811100066", "9811100064"], env);
    const file = join(tmpdir(), `dnd-audit-${process.pid}-${engine}.csv`);
    writeFileSync(file, "number\n9811100063\n");
    await cliOk(["dnd", "import", file, "--replace"], env);
    const bad = await runCli(["dnd", "add", "12"], env);
    expect(bad.code).not.toBe(0);

    const log = await entriesAfter(seq);
    for (const entry of log) expect(entry).toMatchObject({ actor: "cli", channel: "cli", target: "DND registry" });
    expect(log.map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      ["dnd.add", null, { added: 2, numbers: ["9811100066", "9811100065"] }],
      ["dnd.remove", { removed: 1, numbers: ["9811100066"] }, null],
      [
        "dnd.import",
        { count: 1, numbers: ["9811100065"] },
        { replace: true, added: 1, duplicates: 0, invalid: 0, numbers: ["9811100063"] },
      ],
    ]);
  });

  it("records `voice-caller-ids approve` and `remove`; approving an approved number writes nothing", async () => {
    const seq = await head();
    await cliOk(["voice-caller-ids", "approve", "--account", "shop", "--number", "+918047110004"], env);
    expect(await cliOk(["voice-caller-ids", "approve", "--account", "shop", "--number", "080 4711 0004"], env)).toMatch(
      /was already approved/,
    );
    await cliOk(["voice-caller-ids", "remove", "--account", "shop", "--number", "+918047110004"], env);
    const missing = await runCli(["voice-caller-ids", "remove", "--account", "shop", "--number", "+918047110004"], env);
    expect(missing.code).not.toBe(0);

    const log = await entriesAfter(seq);
    const approved = { number: "+918047110004", status: "approved", rejection_reason: null };
    expect(log.map((entry) => [entry.actor, entry.account, entry.action, entry.before, entry.after])).toEqual([
      ["cli", "shop", "voice_caller_id.add", null, approved],
      ["cli", "shop", "voice_caller_id.remove", approved, null],
    ]);
  });
});
