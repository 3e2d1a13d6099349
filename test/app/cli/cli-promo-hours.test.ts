// An account's promotional hours only narrow the operator's PROMO_HOURS (decision 0124; TRAI
// audit, item 2), through the real executable on both engines: `accounts set --promo-hours` with a
// window not inside the operator's is refused, saying the operator's window, and changes nothing.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: an account's promotional hours", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL", PROMO_HOURS: "09:00-21:00" };
    await cliOk(["accounts", "create", "--username", "promo-user", "--password", "a-long-password"], env);
  });
  afterAll(async () => {
    await db.drop();
  });

  it("refuses a window wider than the operator's, and takes one inside it", async () => {
    const wider = await runCli(["accounts", "set", "--username", "promo-user", "--promo-hours", "06:00-23:30"], env);
    expect(wider.code, wider.stdout + wider.stderr).not.toBe(0);
    expect(wider.stderr).toContain(
      `promo_hours "06:00-23:30" is not inside the operator's promotional window 09:00-21:00 (PROMO_HOURS)`,
    );
    expect(wider.stderr).not.toMatch(STACK_TRACE);
    const shown = JSON.parse(await cliOk(["accounts", "show", "promo-user", "--json"], env));
    expect(shown.promo_hours ?? shown.account?.promo_hours ?? null).toBeNull();
    await cliOk(["accounts", "set", "--username", "promo-user", "--promo-hours", "10:00-20:00"], env);
    const narrowed = JSON.parse(await cliOk(["accounts", "show", "promo-user", "--json"], env));
    expect(JSON.stringify(narrowed)).toContain('"promo_hours":"10:00-20:00"');
  });
});
