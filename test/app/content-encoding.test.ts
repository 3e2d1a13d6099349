// A body with a Content-Encoding other than identity (security audit 2): the gateway decodes
// none, and a gzip CSV was imported as one invalid row. Each is refused 415 before its body is
// read, in the family's dialect (v2's `status` and `success` envelopes, legacy -8 and the XML
// API's -9 with an X-Error-Message), and nothing is stored; identity, and a Content-Encoding on no body, pass.
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { sendParams } from "../helpers/legacy.js";
import { FAST_SIMULATOR } from "../helpers/sms.js";

async function post(t: TestGateway, path: string, headers: Record<string, string>, body: Buffer | string) {
  const response = await fetch(`${t.url}${path}`, { method: "POST", headers, body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

describeEachEngine("a compressed request body", (engine) => {
  const gateway = useTestGateway(engine, { env: { ...FAST_SIMULATOR, LEGACY_THROTTLE_PER_SECOND: "0" } });

  it("is refused 415 in each family's dialect, and nothing is read from it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const bearer = { authorization: `Bearer ${account.apiKey}` };
    const group = await post(
      t,
      "/api/v2/groups",
      { ...bearer, "content-type": "application/json" },
      '{"name":"Leads"}',
    );
    expect(group.status, group.text).toBe(201);
    const groupId = JSON.parse(group.text).data.id as number;

    // The audit's case: a gzip CSV of contacts.
    const csv = await post(
      t,
      `/api/v2/groups/${groupId}/contacts`,
      { ...bearer, "content-type": "text/csv", "content-encoding": "gzip" },
      gzipSync("phone\n9876500001\n9876500002\n"),
    );
    expect(csv.status, csv.text).toBe(415);
    expect(JSON.parse(csv.text)).toMatchObject({
      status: "error",
      message: expect.stringContaining("Content-Encoding gzip is not accepted"),
      error: { code: "invalid_request" },
    });
    const members = await t.db.store.db.selectFrom("contacts").select("id").execute();
    expect(members).toEqual([]);

    // v2's SMS calls answer in their `success` envelope; any encoding but identity, any case.
    for (const encoding of ["gzip", "deflate", "br", "GZIP", "identity, gzip"]) {
      const sms = await post(
        t,
        "/api/v2/sms/send",
        { ...bearer, "content-type": "application/json", "content-encoding": encoding },
        gzipSync(JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: "hi" })),
      );
      expect(sms.status, `${encoding}: ${sms.text}`).toBe(415);
      expect(JSON.parse(sms.text)).toMatchObject({ success: false, error: { code: "invalid_request" } });
    }

    // The legacy family: -8, why in X-Error-Message.
    const legacy = await post(
      t,
      "/httpapi/send",
      { "content-type": "application/x-www-form-urlencoded", "content-encoding": "gzip" },
      gzipSync(new URLSearchParams(sendParams(account) as Record<string, string>).toString()),
    );
    expect({ status: legacy.status, text: legacy.text }).toEqual({ status: 200, text: "-8" });
    expect(legacy.headers.get("x-error-message")).toContain("Content-Encoding gzip is not accepted");
    const xml = await post(
      t,
      "/xmlapi/send",
      { "content-type": "application/x-www-form-urlencoded", "content-encoding": "gzip" },
      gzipSync("data=x"),
    );
    expect({ status: xml.status, text: xml.text }).toEqual({ status: 200, text: "-9" });
    const sent = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
    expect(sent).toEqual([]);
  });

  it("passes a body said to be identity, and a Content-Encoding on no body", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const sms = await post(
      t,
      "/api/v2/sms/send",
      { authorization: `Bearer ${account.apiKey}`, "content-type": "application/json", "content-encoding": "identity" },
      JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: "hi" }),
    );
    expect(sms.status, sms.text).toBe(200);
    const balance = await fetch(`${t.url}/api/v2/balance`, {
      headers: { authorization: `Bearer ${account.apiKey}`, "content-encoding": "gzip" },
    });
    expect(balance.status).toBe(200);
  });
});
