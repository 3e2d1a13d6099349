// A connector's cost card sent as CSV (PUT /admin/api/carriers/{name}/cost-card with Content-Type:
// text/csv), on both engines (price audit 6): the price cards' columns, read by the same parser,
// give the rows the JSON form gives, audited as cost_card.save; a bad line is refused with its
// number and field and nothing written; a body of another type answers 415 naming the two types; an
// unknown connector stays 404; the JSON form answers as before.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";

describeEachEngine("cost cards sent as CSV", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  const op = (method: string, path: string, json?: unknown) => operatorCall(gateway(), operator, method, path, json);
  const send = (connector: string, body: string, type = "text/csv") =>
    call(gateway(), "PUT", `/admin/api/carriers/${connector}/cost-card`, {
      headers: { authorization: `Bearer ${operator.apiKey}`, "content-type": type },
      body,
    });

  it("takes the price cards' CSV, refuses a bad line or another type, and answers JSON as before", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    const file = "channel,route,prefix,price,effective_from\r\nsms,*,91,0.02,\r\nsms,T,9198,0.011,2026-12-01\r\n";
    const written = await send("simulator", file);
    expect([written.status, written.body.data]).toEqual([200, { connector: "simulator", rows: 2 }]);
    expect((await op("GET", "/carriers/simulator/cost-card")).body.data.rows).toEqual([
      { channel: "sms", route: "*", prefix: "91", price: 0.02, effective_from: null },
      { channel: "sms", route: "T", prefix: "9198", price: 0.011, effective_from: "2026-12-01T00:00:00Z" },
    ]);
    const audit = await op("GET", "/audit?action=cost_card.save&limit=1");
    expect(audit.body.data[0]).toMatchObject({ target: "cost card of simulator", after: { rows: 2 } });

    const bad = await send("simulator", "channel,route,prefix,price\nsms,*,91,0.02\nsms,T,91,0.12345\n");
    expect([bad.status, bad.body.error.line, bad.body.error.field]).toEqual([400, 3, "price"]);
    expect(bad.body.message).toBe(
      'Line 3: price must be a number of credits with at most 3 decimals (0.001 is the smallest step the ledger keeps) (got "0.12345"); nothing imported.',
    );
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded"]) {
      const refused = await send("simulator", "channel,route,prefix,price\nsms,*,91,0.02\n", type);
      expect([refused.status, refused.body.error.code], type).toEqual([415, "invalid_request"]);
      expect(refused.body.message).toContain("application/json");
      expect(refused.body.message).toContain("text/csv");
    }
    expect((await send("no-such-carrier", "channel,route,prefix,price\nsms,*,91,0.02\n")).status).toBe(404);
    expect((await op("GET", "/carriers/simulator/cost-card")).body.data.rows).toHaveLength(2);

    const json = await op("PUT", "/carriers/simulator/cost-card", {
      rows: [{ channel: "sms", route: "*", prefix: "*", price: 0.5 }],
    });
    expect([json.status, json.body.data]).toEqual([200, { connector: "simulator", rows: 1 }]);
    const typed = await call(gateway(), "PUT", "/admin/api/carriers/simulator/cost-card", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { rows: [{ channel: "sms", route: "*", prefix: "91", price: "0.02" }] },
    });
    expect([typed.status, typed.body.error.field]).toEqual([400, "rows[0].price"]);
  });
});
