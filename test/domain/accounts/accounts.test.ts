import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { isGatewayError } from "../../../src/base/core/errors.js";
import { createAccount, findAccountByUsername, ledgerSum, walletBalances } from "../../../src/domain/accounts/index.js";
import { createTestDatabase, describeEachEngine, postgresAvailable, type TestDatabase } from "../../helpers/engines.js";

const code = (error: unknown) => (isGatewayError(error) ? error.code : error);

describeEachEngine("accounts", (engine) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });
  afterAll(() => db.drop());

  it("funds every opening balance through the ledger, and refuses unknown wallets before writing anything", async () => {
    const account = await createAccount(db.store, systemClock, {
      username: "opening",
      password: "password-1",
      credits: { sms: 5, international: 0, voice: 0.25 },
    });
    expect(await walletBalances(db.store.db, account.id)).toEqual({
      sms: 5000,
      international: 0,
      whatsapp: 0,
      email: 0,
      voice: 250,
    });
    expect(await ledgerSum(db.store.db, account.id, "voice")).toBe(250);

    const credits = { sms: 5, gold: 1 } as Record<string, number>;
    await expect(
      createAccount(db.store, systemClock, { username: "golden", password: "password-1", credits }),
    ).rejects.toSatisfy((e: unknown) => code(e) === "invalid_request");
    await expect(
      createAccount(db.store, systemClock, { username: "huge", password: "password-1", credits: { sms: 1e300 } }),
    ).rejects.toSatisfy((e: unknown) => code(e) === "invalid_request");
    expect(await findAccountByUsername(db.store.db, "golden")).toBeUndefined();
    expect(await findAccountByUsername(db.store.db, "huge")).toBeUndefined();
  });
});

// Only PostgreSQL can interleave two transactions here: SQLite takes its write lock up front.
(postgresAvailable ? describe : describe.skip)("accounts under concurrent writers [postgres]", () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase("postgres");
  });
  afterAll(() => db.drop());

  it("answers conflict when another transaction takes the username between the check and the insert", async () => {
    // A second session inserts the name and holds its transaction open, so createAccount's
    // existence check sees nothing and its insert waits on the unique index.
    const other = new pg.Client({ connectionString: db.postgresUrl, options: `-c search_path=${db.schema}` });
    await other.connect();
    try {
      await other.query("begin");
      await other.query(
        "insert into accounts (username, password_hash, created_at, updated_at) values ('contested', 'x', 0, 0)",
      );
      const creating = createAccount(db.store, systemClock, { username: "contested", password: "password-1" });
      const settled = creating.then(
        () => "created",
        (error: unknown) => code(error),
      );
      await waitForLockWait(other);
      await other.query("commit");
      expect(await settled).toBe("conflict");
    } finally {
      await other.end();
    }
  });
});

/** Resolves once some session waits on a lock, i.e. createAccount reached its insert. */
async function waitForLockWait(client: pg.Client): Promise<void> {
  for (let i = 0; i < 200; i++) {
    // Inside a transaction the statistics views are a snapshot unless cleared.
    await client.query("select pg_stat_clear_snapshot()");
    const { rows } = await client.query(
      "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query ilike 'insert into \"accounts\"%'",
    );
    if (rows[0].n > 0) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error("createAccount never reached its insert");
}
