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
      /readiness judged with DLT_CHAIN_REQUIRED on, as the server started at \d{4}-\d\d-\d\dT[\d:.]+Z runs:\nnot ready to send SMS; missing:/,
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
      /readiness judged with DLT_CHAIN_REQUIRED on, as the server started at .* runs:\nnot ready to send SMS/,
    );
    expect(await cliOk(["accounts", "set", "--username", "served-one", "--flood-limit", "5"], env)).toMatch(
      /readiness judged with DLT_CHAIN_REQUIRED on, as the server started at .* runs:\nnot ready to send SMS/,
    );
  });

  it("says it judged by its own environment when no server has recorded its settings", async () => {
    const db = await createTestDatabase(engine);
    try {
      const text = await cliOk(create("shell-one"), { DATABASE_URL: db.url, SQLITE_SYNCHRONOUS: "NORMAL" });
      expect(text).toContain(
        "readiness judged with DLT_CHAIN_REQUIRED off from this shell's environment: no server has recorded its own:\nready to send SMS",
      );
    } finally {
      await db.drop();
    }
  });
});
