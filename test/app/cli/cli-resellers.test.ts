// `accounts create --parent P [--markup %]` on both engines: the sub-account is made under its
// parent with its markup (shown by `accounts show --json`); a markup without a parent, an unknown parent and the account itself as its parent are refused
// with the reason, no stack trace, and no account made.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: resellers", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
  });
  afterAll(async () => {
    await db.drop();
  });

  it("creates a sub-account under its parent, and refuses an unknown parent or itself", async () => {
    await cliOk(["accounts", "create", "--username", "reseller", "--password", "cli-password"], env);
    await cliOk(
      [
        "accounts",
        "create",
        "--username",
        "shop",
        "--password",
        "cli-password",
        "--parent",
        "RESELLER",
        "--markup",
        "12.5",
      ],
      env,
    );
    const shown = JSON.parse(await cliOk(["accounts", "show", "shop", "--json"], env));
    expect(shown).toMatchObject({ parent: "reseller", markup_percent: 12.5 });
    const noParent = await runCli(
      ["accounts", "create", "--username", "loner", "--password", "cli-password", "--markup", "5"],
      env,
    );
    expect(noParent.code).not.toBe(0);
    expect(noParent.stderr).toContain("give parent too");
    const badMarkup = await runCli(
      [
        "accounts",
        "create",
        "--username",
        "loner",
        "--password",
        "cli-password",
        "--parent",
        "reseller",
        "--markup",
        "lots",
      ],
      env,
    );
    expect(badMarkup.code).not.toBe(0);
    expect(badMarkup.stderr).toContain("use a number of 0 or more");

    for (const [username, parent, reason] of [
      ["orphan", "nosuch", 'No account named "nosuch" to be the parent'],
      ["selfish", "SELFISH", "cannot be its own parent"],
    ] as const) {
      const refused = await runCli(
        ["accounts", "create", "--username", username, "--password", "cli-password", "--parent", parent],
        env,
      );
      expect(refused.code, refused.stdout).not.toBe(0);
      expect(refused.stderr).toContain(reason);
      expect(refused.stderr).not.toMatch(STACK_TRACE);
      const missing = await runCli(["accounts", "show", username, "--json"], env);
      expect(missing.code).not.toBe(0);
    }
  });
});
