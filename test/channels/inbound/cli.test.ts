import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

// Every step spawns a CLI process (a second of Node start-up each); on two busy cores a test
// of several steps can pass 30 s without anything being wrong.
vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: inbound numbers, keywords, suppressions", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await cliOk(["accounts", "create", "--username", "inbound-user", "--password", "cli-password"], env);
    await cliOk(["accounts", "create", "--username", "inbound-other", "--password", "cli-password"], env);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("assigns, lists and removes inbound numbers", async () => {
    expect(
      await cliOk(["inbound-numbers", "add", "--account", "inbound-user", "--number", "+91 92205 00300"], env),
    ).toBe("9220500300 assigned to inbound-user\n");
    expect(await cliOk(["inbound-numbers", "add", "--account", "inbound-user", "--number", "9220500300"], env)).toBe(
      "9220500300 already belongs to inbound-user\n",
    );
    const taken = await runCli(["inbound-numbers", "add", "--account", "inbound-other", "--number", "9220500300"], env);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toContain("another account");
    const json = JSON.parse(
      await cliOk(["inbound-numbers", "add", "--account", "inbound-user", "--number", "56767", "--json"], env),
    );
    expect(json).toMatchObject({ number: "56767", account: "inbound-user" });
    expect(await cliOk(["inbound-numbers", "list", "--account", "inbound-user"], env)).toBe(
      "NUMBER\n9220500300\n56767\n",
    );
    expect(await cliOk(["inbound-numbers", "remove", "--account", "inbound-user", "--number", "56767"], env)).toBe(
      "removed 56767 from inbound-user\n",
    );
  });

  it("lists, approves and rejects keywords", async () => {
    const account = await db.store.db
      .selectFrom("accounts")
      .select("id")
      .where("username", "=", "inbound-user")
      .executeTakeFirstOrThrow();
    const now = Date.now();
    const row = await db.store.db
      .insertInto("keywords")
      .values({
        account_id: account.id,
        key: "INFO",
        response_type: "static",
        static_message: "Hello",
        status: "pending",
        created_at: now,
        updated_at: now,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    expect(await cliOk(["keywords", "list", "--account", "inbound-user", "--status", "pending"], env)).toBe(
      `${"ID".padEnd(String(row.id).length)}  STATUS   KEYWORD  REPLY   TEXT\n${String(row.id).padEnd(2)}  pending  INFO     static  Hello\n`,
    );
    expect(await cliOk(["keywords", "approve", "--id", String(row.id)], env)).toBe(
      `approved keyword ${row.id} INFO of account inbound-user\n`,
    );
    const listed = JSON.parse(await cliOk(["keywords", "list", "--account", "inbound-user", "--json"], env));
    expect(listed).toEqual([expect.objectContaining({ id: row.id, key: "INFO", status: "approved" })]);
    expect(await cliOk(["keywords", "reject", "--id", String(row.id), "--account", "inbound-user"], env)).toBe(
      `rejected keyword ${row.id} INFO of account inbound-user\n`,
    );
    const unknown = await runCli(["keywords", "approve", "--id", "987654"], env);
    expect(unknown.code).not.toBe(0);
  });

  it("adds and removes suppressions", async () => {
    expect(
      await cliOk(
        ["suppressions", "add", "--account", "inbound-user", "9876543210", "+919876543211", "9876543210"],
        env,
      ),
    ).toBe("added 2, duplicates 1\n");
    expect(await cliOk(["suppressions", "remove", "--account", "inbound-user", "9876543210"], env)).toBe("removed 1\n");
    const left = await db.store.db.selectFrom("suppressions").select("number").execute();
    expect(left.map((r) => r.number)).toEqual(["9876543211"]);
  });
});
