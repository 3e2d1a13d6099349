// PostgreSQL: inside a transaction, BEGIN and insertMany's inserts go out without waiting for
// their answers (pg's pipeline mode), so the statements after them share their round trip; the
// answers are still checked: an insert that failed fails the transaction with its own error, and
// nothing of it is committed. Shown through a proxy that holds back the server's answers: what
// the client writes meanwhile is what it sent without waiting.
import net from "node:net";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { createTestDatabase, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";

const suite = postgresAvailable ? describe : describe.skip;
/** A table of the test's own, not in the schema's types. */
const PROBE = "pipeline_probe" as never;

/** A TCP proxy to the server whose answers can be held back (`hold`) and let through (`release`). */
async function answerGate(target: URL) {
  let holding = false;
  const held: Array<() => void> = [];
  let written = "";
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => {
      written += chunk.toString("latin1");
      upstream.write(chunk);
    });
    upstream.on("data", (chunk) => {
      if (holding) held.push(() => client.write(chunk));
      else client.write(chunk);
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", close).on("error", close);
    upstream.on("close", close).on("error", close);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = new URL(target.href);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.href,
    /** What the client wrote since the last call. */
    take(): string {
      const text = written;
      written = "";
      return text;
    },
    hold() {
      holding = true;
    },
    release() {
      holding = false;
      for (const write of held.splice(0)) write();
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function eventually(check: () => boolean, ms = 2_000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return check();
}

suite("pipelined transactions on PostgreSQL", () => {
  let db: TestDatabase;
  let gate: Awaited<ReturnType<typeof answerGate>>;
  const opened: Store[] = [];
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
    await sql`create table pipeline_probe (id text primary key, n integer not null)`.execute(db.store.db);
    gate = await answerGate(new URL(db.postgresUrl!));
  });
  afterEach(async () => {
    gate.release();
    await sql`delete from pipeline_probe`.execute(db.store.db);
  });
  afterAll(async () => {
    gate?.release();
    for (const store of opened) await store.close();
    await gate?.close();
    await db?.drop();
  });

  /** A store through the gate with one connection, its insertMany's column types read already. */
  async function throughGate(options: { pgPipeline?: boolean; pgPlanRefreshMs?: number } = {}) {
    const store = await openStore(
      { engine: "postgres", url: gate.url },
      { pgSchema: db.schema!, pgPoolSize: 1, ...options },
    );
    opened.push(store);
    await store.transaction((trx) =>
      store.insertMany(trx, PROBE, [
        { id: "warm-1", n: 0 },
        { id: "warm-2", n: 0 },
      ]),
    );
    await sql`delete from pipeline_probe`.execute(store.db);
    return store;
  }

  const rows = [
    { id: "a", n: 1 },
    { id: "b", n: 2 },
  ];
  const COUNT = "select count(*)::int as n from pipeline_probe where n > 0";

  it("sends BEGIN, a SET LOCAL, the insert and the next statement in one round trip, and commits what they did", async () => {
    const store = await throughGate();
    gate.take();
    gate.hold();
    const done = store.transaction(async (trx) => {
      await sql`set local statement_timeout = 0`.execute(trx);
      await store.insertMany(trx, PROBE, rows);
      const { rows: found } = await sql.raw<{ n: number }>(COUNT).execute(trx);
      return found[0]!.n;
    });
    // No answer has come back, and all of them are on their way.
    let seen = "";
    expect(
      await eventually(() => {
        seen += gate.take();
        return seen.includes(COUNT);
      }),
    ).toBe(true);
    gate.release();
    expect(await done).toBe(2);
    const { rows: stored } = await sql<{ id: string }>`select id from pipeline_probe order by id`.execute(db.store.db);
    expect(stored.map((row) => row.id)).toEqual(["a", "b"]);
  });

  it("waits for each answer with pipelining turned off", async () => {
    const store = await throughGate({ pgPipeline: false });
    gate.take();
    gate.hold();
    let seen = "";
    const done = store.transaction(async (trx) => {
      await store.insertMany(trx, PROBE, rows);
      return (await sql.raw<{ n: number }>(COUNT).execute(trx)).rows[0]!.n;
    });
    await eventually(() => {
      seen += gate.take();
      return seen.includes(COUNT);
    }, 500);
    expect(seen.toLowerCase()).toContain("begin");
    expect(seen).not.toContain("pipeline_probe");
    gate.release();
    expect(await done).toBe(2);
  });

  it("fails the transaction with the insert's own error when an insert sent without waiting failed, and commits nothing", async () => {
    const store = await throughGate();
    await sql`insert into pipeline_probe values ('b', 9)`.execute(store.db);
    // The statement after it fails as well ("current transaction is aborted"): the error told is the insert's.
    const withNext = store.transaction(async (trx) => {
      await store.insertMany(trx, PROBE, rows);
      await sql.raw(COUNT).execute(trx);
    });
    await expect(withNext).rejects.toMatchObject({ code: "23505", constraint: "pipeline_probe_pkey" });
    // Nothing waited for between the insert and the COMMIT: the COMMIT, which PostgreSQL turns into
    // a ROLLBACK, fails with it.
    const alone = store.transaction((trx) => store.insertMany(trx, PROBE, rows));
    await expect(alone).rejects.toMatchObject({ code: "23505" });
    const { rows: stored } = await sql<{ id: string }>`select id from pipeline_probe order by id`.execute(store.db);
    expect(stored.map((row) => row.id)).toEqual(["b"]);
    // The connection is clean for the next transaction.
    await store.transaction((trx) =>
      store.insertMany(trx, PROBE, [
        { id: "c", n: 3 },
        { id: "d", n: 4 },
      ]),
    );
    expect((await sql.raw<{ n: number }>(COUNT).execute(store.db)).rows[0]!.n).toBe(3);
  });

  it("keeps the order of what it sends when a connection drops its plans before a statement", async () => {
    // Every named statement is preceded by DISCARD PLANS: the insert must still go out before the
    // statement after it, or it would run after the ROLLBACK, outside the transaction.
    const store = await throughGate({ pgPlanRefreshMs: 0 });
    const failing = store.transaction(async (trx) => {
      await store.insertMany(trx, PROBE, rows);
      await sql`select 1 / 0`.execute(trx);
    });
    await expect(failing).rejects.toMatchObject({ code: "22012" });
    // Bounded wait for what must not happen: the insert arriving after the ROLLBACK and committing.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await sql.raw<{ n: number }>(COUNT).execute(db.store.db)).rows[0]!.n).toBe(0);
    await store.transaction((trx) => store.insertMany(trx, PROBE, rows));
    expect((await sql.raw<{ n: number }>(COUNT).execute(db.store.db)).rows[0]!.n).toBe(2);
  });

  it("fails the transaction with a SET LOCAL's own error", async () => {
    const store = await throughGate();
    const failing = store.transaction(async (trx) => {
      await sql`set local no_such_setting_here = 1`.execute(trx);
      await store.insertMany(trx, PROBE, rows);
    });
    await expect(failing).rejects.toMatchObject({ code: "42704" });
    expect((await sql.raw<{ n: number }>(COUNT).execute(db.store.db)).rows[0]!.n).toBe(0);
  });

  it("waits for an insert outside a transaction, which fails the call itself", async () => {
    const store = await throughGate();
    await sql`insert into pipeline_probe values ('a', 9)`.execute(store.db);
    await expect(store.insertMany(store.db, PROBE, rows)).rejects.toMatchObject({ code: "23505" });
    expect((await sql.raw<{ n: number }>(COUNT).execute(store.db)).rows[0]!.n).toBe(1);
  });
});
