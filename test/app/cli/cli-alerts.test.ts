// `switchboard alerts show|set|threshold` against a real database on both engines: settings
// changed and read back as text and JSON, the operator account whose secret signs named, an
// account's own threshold, and refusals naming the field without a stack trace.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";

vi.setConfig({ testTimeout: 120_000 });

describeEachEngine("switchboard CLI: alerts", (engine) => {
  let db: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
    env = { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" };
    const deps = { store: db.store, clock: systemClock, actor: cliActor() };
    await createAccountWithKey(deps, { username: "ops", password: "password-123", role: "operator" });
    await createAccountWithKey(deps, { username: "shop", password: "password-123", credits: { sms: 5 } });
  });
  afterAll(async () => {
    await db.drop();
  });

  it("shows and changes the settings, and an account's own threshold", async () => {
    const shown = JSON.parse(await cliOk(["alerts", "show", "--json"], env));
    expect(shown).toMatchObject({
      url: null,
      secret: null,
      connector_down: { enabled: true, seconds: 60 },
      delivery_rate: { enabled: true, messages: 100, percent: 50 },
      active: [],
    });
    // A URL needs an operator account to sign with.
    const unsigned = await runCli(["alerts", "set", "--url", "http://127.0.0.1:9/alerts"], env);
    expect(unsigned.code).not.toBe(0);
    expect(unsigned.stderr).toMatch(/--operator/);
    const set = JSON.parse(
      await cliOk(
        [
          "alerts",
          "set",
          "--url",
          "http://127.0.0.1:9/alerts",
          "--operator",
          "ops",
          "--email",
          "ops@example.org",
          "--connector-down-seconds",
          "120",
          "--delivery-rate",
          "off",
          "--delivery-rate-percent",
          "75",
          "--low-balance-threshold",
          "10",
          "--json",
        ],
        env,
      ),
    );
    expect(set).toMatchObject({
      url: "http://127.0.0.1:9/alerts",
      email: "ops@example.org",
      low_balance: { enabled: true, threshold: 10, wallet: "sms" },
      connector_down: { enabled: true, seconds: 120 },
      delivery_rate: { enabled: false, messages: 100, percent: 75 },
      email_configured: false,
    });
    expect(set.secret).toMatch(/^whsec_/);
    const text = await cliOk(["alerts", "show"], env);
    expect(text).toContain("connector_down   on  after 120 s");
    expect(text).toContain("delivery_rate    off below 75 % of the last 100 final messages");
    expect(text).toContain("no active alerts");
    // --url none removes it; the rest is kept.
    expect(JSON.parse(await cliOk(["alerts", "set", "--url", "none", "--json"], env))).toMatchObject({
      url: null,
      connector_down: { seconds: 120 },
    });

    expect(JSON.parse(await cliOk(["alerts", "threshold", "shop", "8", "--json"], env))).toEqual({
      account: "shop",
      wallet: "sms",
      threshold: 8,
    });
    expect(await cliOk(["alerts", "threshold", "shop"], env)).toBe("shop: sms below 8 credits raises low_balance\n");
    expect(await cliOk(["alerts", "threshold", "shop", "none"], env)).toBe(
      "shop: no threshold of its own (the default applies)\n",
    );
  });

  it("refuses bad values naming the field, exit 1, no stack trace", async () => {
    const refusals: Array<[string[], RegExp]> = [
      [["alerts", "set", "--delivery-rate-percent", "0"], /delivery_rate\.percent/],
      [["alerts", "set", "--delivery-rate-messages", "0"], /delivery_rate\.messages/],
      [["alerts", "set", "--connector-down-seconds", "-5"], /connector_down\.seconds/],
      [["alerts", "set", "--email", "not an address"], /email/],
      [["alerts", "set", "--url", "ftp://example.com/x", "--operator", "ops"], /url/],
      [["alerts", "set", "--low-balance-wallet", "gold"], /low_balance\.wallet/],
      [["alerts", "threshold", "shop", "-1"], /threshold/],
      [["alerts", "threshold", "nobody", "5"], /nobody/],
    ];
    for (const [args, problem] of refusals) {
      const result = await runCli(args, env);
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(result.stderr, args.join(" ")).toMatch(problem);
      expect(result.stderr).not.toMatch(STACK_TRACE);
    }
  });
});
