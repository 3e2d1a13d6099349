// `switchboard templates reject` and `sender-ids reject` take --reason: kept as the item's
// rejection_reason (what the account reads on it), printed, and refused naming the limit when
// longer than 500 characters; an approval clears it.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

// Every step spawns a CLI process (a second of Node start-up each).
vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: a rejection's --reason", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    await cliOk(["accounts", "create", "--username", "reasons-user", "--password", "cli-password"], env);
  });

  afterAll(async () => {
    await db?.drop();
  });

  it("keeps a template's and a sender ID's reason, prints it and refuses one too long", async () => {
    const added = await cliOk(
      ["templates", "add", "--account", "reasons-user", "--name", "promo", "--content", "Sale: {#var#} off"],
      env,
    );
    const templateId = /^template (\d+)/.exec(added)?.[1] ?? "";
    expect(
      await cliOk(["templates", "reject", "--id", templateId, "--reason", "  Register the header first. "], env),
    ).toBe(`rejected template ${templateId} "promo" of account reasons-user (Register the header first.)\n`);
    const [template] = JSON.parse(await cliOk(["templates", "list", "--account", "reasons-user", "--json"], env));
    expect(template).toMatchObject({ status: "rejected", rejection_reason: "Register the header first." });

    await cliOk(["sender-ids", "add", "--account", "reasons-user", "--sender", "SHOPPY"], env);
    const [sender] = JSON.parse(await cliOk(["sender-ids", "list", "--account", "reasons-user", "--json"], env));
    const rejected = JSON.parse(
      await cliOk(["sender-ids", "reject", "--id", String(sender.id), "--reason", "Not your brand.", "--json"], env),
    );
    expect(rejected).toMatchObject({ status: "rejected", rejection_reason: "Not your brand." });

    const tooLong = await runCli(["sender-ids", "reject", "--id", String(sender.id), "--reason", "x".repeat(501)], env);
    expect(tooLong.code).toBe(1);
    expect(tooLong.stderr).toContain("The reason must be at most 500 characters (got 501).");
    // An approval takes no reason, and clears the one kept.
    const approve = await runCli(["templates", "approve", "--id", templateId, "--reason", "x"], env);
    expect(approve.code).not.toBe(0);
    expect(approve.stderr).toContain("unknown option '--reason'");
    const approved = JSON.parse(await cliOk(["sender-ids", "approve", "--id", String(sender.id), "--json"], env));
    expect(approved).toMatchObject({ status: "approved", rejection_reason: null });
  });
});
