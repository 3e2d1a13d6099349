// The CLI's word on an account's readiness does not contradict the server's (decision 0169, price
// audit 4), on both engines: a server started with DLT_CHAIN_REQUIRED=1 records it, and `accounts
// create` (text and JSON), `show` and `set` in a shell without the setting judge by the server's,
// saying so, as GET /admin/api/accounts/{username} answers: not ready while an entity has no
// chain. With no server recorded, the CLI says it judged by its own environment.
import { afterAll, expect, it, vi } from "vitest";
import { cliOk } from "../../helpers/cli.js";
import { createTestDatabase, describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway } from "../../helpers/gateway.js";

vi.setConfig({ testTimeout: 120_000 });

const ENTITY = "1101160000000000077";
const create = (username: string) => [
  "accounts",
  "create",
  "--username",
  username,
  "--password",
  "a-long-password",
  "--sender",
  "SRVSET",
  "--dlt-entity",
  ENTITY,
  "--template",
  "Your OTP is {#var#}",
  "--credits",
  "sms=10",
];

describeEachEngine("switchboard CLI: readiness judged by the server's settings", (engine) => {
  let t: TestGateway | undefined;
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  it("judges by the DLT_CHAIN_REQUIRED the server recorded, and says so", async () => {
    t = await startTestGateway(engine, { roles: ["api"], env: { DLT_CHAIN_REQUIRED: "1" } });
    // The shell has no DLT_CHAIN_REQUIRED: off, were it judged by its own environment.
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const text = await cliOk(create("served-one"), env);
    expect(text).toMatch(
      /readiness judged with DLT_CHAIN_REQUIRED on and DLT_TEMPLATES_ALL_ROUTES off, as the server started at \d{4}-\d\d-\d\dT[\d:.]+Z runs:\nnot ready to send SMS; missing:/,
    );
    expect(text).toContain(`DLT entity ${ENTITY} has no declared telemarketer chain`);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const served = await call(t, "GET", "/admin/api/accounts/served-one", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect([served.body.data.ready, served.body.data.missing.map((m: { what: string }) => m.what)]).toEqual([
      false,
      ["dlt_chain"],
    ]);
    const json = JSON.parse(await cliOk([...create("served-two"), "--json"], env));
    expect([json.ready, json.readiness_judged_by.dlt_chain_required, json.readiness_judged_by.from]).toEqual([
      false,
      true,
      "server",
    ]);
    expect(await cliOk(["accounts", "show", "served-one"], env)).toMatch(
      /readiness judged with DLT_CHAIN_REQUIRED on and DLT_TEMPLATES_ALL_ROUTES off, as the server started at .* runs:\nnot ready to send SMS/,
    );
    expect(await cliOk(["accounts", "set", "--username", "served-one", "--flood-limit", "5"], env)).toMatch(
      /readiness judged with DLT_CHAIN_REQUIRED on and DLT_TEMPLATES_ALL_ROUTES off, as the server started at .* runs:\nnot ready to send SMS/,
    );
  });

  it("asks a promotional account for a template when the server holds every route to one", async () => {
    const all = await startTestGateway(engine, { roles: ["api"], env: { DLT_TEMPLATES_ALL_ROUTES: "1" } });
    try {
      const env = { DATABASE_URL: all.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
      const promotional = create("promo-only").filter(
        (arg, i, args) => arg !== "--template" && args[i - 1] !== "--template",
      );
      const text = await cliOk([...promotional, "--routes", "P"], env);
      expect(text).toMatch(
        /DLT_CHAIN_REQUIRED off and DLT_TEMPLATES_ALL_ROUTES on, as the server started at .* runs:\nnot ready/,
      );
      expect(text).toContain(
        "No template: promotional (routes P, PS; DLT_TEMPLATES_ALL_ROUTES on) text matches no approved template and is refused (-8).",
      );
      const operator = await buildAccount(all, { role: "operator", sender: null });
      const view = await call(all, "GET", "/admin/api/accounts/promo-only", {
        headers: { authorization: `Bearer ${operator.apiKey}` },
      });
      expect([view.body.data.ready, view.body.data.missing.map((m: { what: string }) => m.what)]).toEqual([
        false,
        ["template"],
      ]);
      // The same account is ready where the setting is off (templates for route T only).
      const shell = await createTestDatabase(engine);
      try {
        const args = [...promotional, "--routes", "P", "--json"];
        const off = JSON.parse(await cliOk(args, { DATABASE_URL: shell.url, SQLITE_SYNCHRONOUS: "NORMAL" }));
        expect([off.ready, off.readiness_judged_by.dlt_templates_all_routes]).toEqual([true, false]);
      } finally {
        await shell.drop();
      }
    } finally {
      await all.gateway.stop();
      await all.db.drop();
    }
  });

  it("says it judged by its own environment when no server has recorded its settings", async () => {
    const db = await createTestDatabase(engine);
    try {
      const text = await cliOk(create("shell-one"), { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" });
      expect(text).toContain(
        "readiness judged with DLT_CHAIN_REQUIRED off and DLT_TEMPLATES_ALL_ROUTES off from this shell's environment: no server has recorded its own:\nready to send SMS",
      );
    } finally {
      await db.drop();
    }
  });
});
