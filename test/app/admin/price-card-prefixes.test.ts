// A price card's prefix in the form numbers are priced in (operator audit O3, decision 0165), on
// both engines: numbers are matched in international form (91…), so a row whose prefix starts with
// 0 (a trunk 0, the dialling 00, also behind a `+`) could never price one; the upload is refused
// naming the line (CSV) or the row (JSON) and the international form, and nothing is written,
// neither to a new card nor over an existing one.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";

describeEachEngine("a price card's prefixes in international form", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;
  const put = (card: string, body: string | object) => {
    const auth = { authorization: `Bearer ${operator.apiKey}` };
    return call(gateway(), "PUT", `/admin/api/price-cards/${card}`, {
      ...(typeof body === "string"
        ? { headers: { ...auth, "content-type": "text/csv" }, body }
        : { headers: auth, json: body }),
    });
  };

  it("refuses a prefix that starts with 0, naming the line or row and the international form", async () => {
    operator = await buildAccount(gateway(), { role: "operator" });
    expect((await put("india", "channel,route,prefix,price\nsms,*,91,0.2\n")).status).toBe(200);
    for (const [prefix, suggestion] of [
      ["0091", ": write 91"],
      ["+0091", ": write 91"],
      ["091", ": write 91"],
      ["0", ""],
      ["00", ""],
    ] as const) {
      const csv = await put("india", `channel,route,prefix,price\nsms,*,91,0.3\nsms,T,${prefix},0.1\n`);
      expect([csv.status, csv.body.error?.code], prefix).toEqual([400, "invalid_request"]);
      expect(csv.body.message).toBe(
        `Line 3: prefix must start with the country code, never with 0 (got "${prefix}"${suggestion}); nothing imported.`,
      );
      expect(csv.body.error).toMatchObject({ line: 3, field: "prefix" });
      const json = await put("fresh", { rows: [{ channel: "voice", route: "V", prefix, price: 0.1 }] });
      expect([json.status, json.body.error?.field], prefix).toEqual([400, "rows[0].prefix"]);
      expect(json.body.message).toContain(`never with 0 (got "${prefix}"${suggestion})`);
    }
    const kept = await operatorCall(gateway(), operator, "GET", "/price-cards/india");
    expect(kept.body.data.rows).toEqual([
      { channel: "sms", route: "*", prefix: "91", price: 0.2, effective_from: null },
    ]);
    expect(
      (
        await call(gateway(), "GET", "/admin/api/price-cards/fresh", {
          headers: { authorization: `Bearer ${operator.apiKey}` },
        })
      ).status,
    ).toBe(404);
    // Digits with the country code, and `+` before them, are as before.
    const good = await put("india", "channel,route,prefix,price\nsms,T,+91,0.3\nsms,*,9100,0.25\n");
    expect(good.status, good.text).toBe(200);
  });
});
