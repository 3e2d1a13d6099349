// `switchboard audit list|verify` against a real database on both engines: the CLI's own changes
// recorded as `cli` with the operating-system user and host; the list's filters as text and
// JSON; verify exits 0 on an intact log and 1 naming the first bad entry when a row was edited,
// deleted or swapped (the append-only triggers dropped first, as the database's owner can).
import { hostname, userInfo } from "node:os";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: audit", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
  });
  afterAll(async () => {
    await db.drop();
  });

  it("records the CLI's changes and lists them", async () => {
    await cliOk(["accounts", "create", "--username", "shop", "--password", "password-123", "--json"], env);
    for (const amount of ["10", "20", "30"]) {
      await cliOk(["credits", "add", "--account", "shop", "--wallet", "sms", "--amount", amount], env);
    }
    const listed = JSON.parse(await cliOk(["audit", "list", "--action", "credits", "--json"], env));
    expect(listed.data).toHaveLength(3);
    expect(listed.data[0]).toMatchObject({
      actor: "cli",
      channel: "cli",
      credential: `${userInfo().username}@${hostname()}`,
      address: null,
      account: "shop",
      action: "credits.topup",
      before: { balance: 30 },
      after: { balance: 60, amount: 30 },
    });
    // The CLI's own entries name no login: a login filter leaves them out.
    const byLogin = JSON.parse(
      await cliOk(["audit", "list", "--action", "credits", "--actor-user", "olga", "--json"], env),
    );
    expect(byLogin.data).toEqual([]);
    // By the credential that acted: this user's command line did all four; another did none.
    const mine = `${userInfo().username}@${hostname()}`;
    const byCredential = JSON.parse(await cliOk(["audit", "list", "--credential", mine, "--json"], env));
    expect(byCredential.data).toHaveLength(4);
    const byKey = JSON.parse(await cliOk(["audit", "list", "--credential", "12", "--json"], env));
    expect(byKey.data).toEqual([]);
    const text = await cliOk(["audit", "list", "--account", "shop", "--limit", "2"], env);
    expect(text).toMatch(/^SEQ\s+AT\s+ACTOR/);
    expect(text).toContain("credits.topup");
    // Each row names the account it concerns, as the API's `account` and the console's card do
    // (a target such as "webhook URLs" or "key 3" does not).
    expect(text).toMatch(/^SEQ\s+AT\s+ACTOR\s+CHANNEL\s+ADDRESS\s+ACCOUNT\s+ACTION/);
    expect(text.split("\n")[1]).toMatch(/\sshop\s+credits\.topup\s/);
    expect(text).toMatch(/more: --cursor \S+/);
    const bad = await runCli(["audit", "list", "--from", "yesterday"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/from/);
    expect(bad.stderr).not.toMatch(STACK_TRACE);
  });

  it("verifies the chain, and names the first entry edited, deleted or swapped", async () => {
    const intact = await runCli(["audit", "verify"], env);
    expect(intact.code, intact.stderr).toBe(0);
    expect(intact.stdout).toMatch(/^audit log intact: 4 entries, head 4 [0-9a-f]{64}/);

    const trx = db.store.db;
    if (engine === "sqlite") {
      await sql`drop trigger audit_log_no_update`.execute(trx);
      await sql`drop trigger audit_log_no_delete`.execute(trx);
    } else {
      await sql`drop trigger audit_log_no_change on audit_log`.execute(trx);
    }
    const original = await trx.selectFrom("audit_log").selectAll().orderBy("seq").execute();
    const restore = async () => {
      await trx.deleteFrom("audit_log").execute();
      for (const row of original) await trx.insertInto("audit_log").values(row).execute();
    };
    const verify = async () => {
      const result = await runCli(["audit", "verify", "--json"], env);
      expect(result.code).toBe(1);
      return JSON.parse(result.stdout).broken as { seq: number; reason: string };
    };

    await trx
      .updateTable("audit_log")
      .set({ after: '{"amount":30000,"balance":60000}' })
      .where("seq", "=", 4)
      .execute();
    expect(await verify()).toMatchObject({ seq: 4, reason: expect.stringMatching(/^edited/) });
    const text = await runCli(["audit", "verify"], env);
    expect(text.stdout).toMatch(/^audit log BROKEN at entry 4: edited/);
    await restore();

    await trx.deleteFrom("audit_log").where("seq", "=", 2).execute();
    expect(await verify()).toEqual({ seq: 2, reason: "entry 2 is missing (deleted)" });
    await restore();

    await trx.updateTable("audit_log").set({ seq: -3 }).where("seq", "=", 3).execute();
    await trx.updateTable("audit_log").set({ seq: 3 }).where("seq", "=", 2).execute();
    await trx.updateTable("audit_log").set({ seq: 2 }).where("seq", "=", -3).execute();
    expect(await verify()).toMatchObject({ seq: 2, reason: expect.stringMatching(/^does not follow entry 1/) });
    await restore();
    expect((await runCli(["audit", "verify"], env)).code).toBe(0);
  });
});
