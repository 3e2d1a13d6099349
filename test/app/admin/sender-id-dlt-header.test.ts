// Ops finding 17 (decision 0151): the operator's approval of a sender ID white-lists it as the
// account's DLT header in the same transaction, so the first send from it passes the DLT header
// check at once; `{ "dlt_header": false }` leaves the headers as they are. Through the real
// server: the account asks, the operator approves, the account sends.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000150";

describeEachEngine("a sender ID's approval white-lists its DLT header", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let shop: TestAccount;

  const op = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
  const ask = async (sender: string) => {
    const asked = await call(gateway(), "POST", "/api/v2/sender-id-requests", {
      headers: keyOf(shop),
      json: { sender_id: sender },
    });
    expect(asked.status, asked.text).toBe(201);
    return asked.body.data.id as number;
  };
  const send = (sender: string) =>
    call(gateway(), "POST", "/api/v2/sms/send", {
      headers: keyOf(shop),
      json: { sender_id: sender, recipient: "9876543210", message: "Hello Asha" },
    });

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await buildAccount(gateway(), { credits: { sms: 100 }, dltScrubbing: true, sender: null });
    const entity = await op("POST", `/accounts/${shop.username}/dlt/entities`, { entity_id: ENTITY });
    expect(entity.status, entity.text).toBe(201);
    const template = await op("POST", `/accounts/${shop.username}/templates`, {
      name: "hello",
      content: "Hello {#var#}",
      entity_id: ENTITY,
      approve: true,
    });
    expect(template.status, template.text).toBe(201);
  });

  it("lets the first send from a newly approved sender ID through the DLT header check, audited", async () => {
    const id = await ask("NEWHDR");
    const approved = await op("POST", `/sender-ids/${id}/approve`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.data).toMatchObject({
      sender_id: "NEWHDR",
      status: "approved",
      account: shop.username,
      dlt_header: { header: "NEWHDR", status: "approved", rejection_reason: null },
    });
    const sent = await send("NEWHDR");
    expect(sent.status, sent.text).toBe(200);

    const audit = await op("GET", `/audit?account=${shop.username}&action=dlt_header.add`);
    expect(audit.body.data).toHaveLength(1);
    expect(audit.body.data[0]).toMatchObject({
      actor: operator.username,
      channel: "operator_api",
      target: `DLT header ${approved.body.data.dlt_header.id}`,
      before: { status: null },
      after: { header: "NEWHDR", status: "approved", with: `sender ID ${id}` },
    });
    // Approved again: the header was white-listed already, so no second entry.
    expect((await op("POST", `/sender-ids/${id}/approve`, {})).body.data.dlt_header.header).toBe("NEWHDR");
    expect((await op("GET", `/audit?account=${shop.username}&action=dlt_header.add`)).body.data).toHaveLength(1);
  });

  it("approves a header the operator had rejected, clearing its reason", async () => {
    const asked = await call(gateway(), "POST", "/api/v2/dlt/headers", {
      headers: keyOf(shop),
      json: { header: "THIRDH" },
    });
    expect(asked.status, asked.text).toBe(201);
    const rejected = await op("POST", `/dlt/headers/${asked.body.data.id}/reject`, { reason: "Not on DLT yet." });
    expect(rejected.body.data).toMatchObject({ status: "rejected", rejection_reason: "Not on DLT yet." });
    const approved = await op("POST", `/sender-ids/${await ask("THIRDH")}/approve`);
    expect(approved.body.data.dlt_header).toMatchObject({ id: asked.body.data.id, status: "approved" });
    expect(approved.body.data.dlt_header.rejection_reason).toBeNull();
    expect((await send("THIRDH")).status).toBe(200);
  });

  it("leaves the headers alone with dlt_header false, on a rejection, and for a sender that cannot be a header", async () => {
    const kept = await op("POST", `/sender-ids/${await ask("OTHERS")}/approve`, { dlt_header: false });
    expect(kept.status, kept.text).toBe(200);
    expect(kept.body.data).toMatchObject({ status: "approved", dlt_header: null });
    const refused = await send("OTHERS");
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.code).toBe("dlt_header_not_whitelisted");

    const rejected = await op("POST", `/sender-ids/${await ask("NOPEHD")}/reject`, { reason: "No." });
    expect(rejected.body.data).toMatchObject({ status: "rejected", dlt_header: null });
    const long = await op("POST", `/sender-ids/${await ask("919876543210")}/approve`);
    expect(long.body.data).toMatchObject({ status: "approved", dlt_header: null });
    const headers = await op("GET", `/accounts/${shop.username}/dlt/headers`);
    expect(headers.body.data.map((h: { header: string }) => h.header).sort()).toEqual(["NEWHDR", "THIRDH"]);

    // A reject takes no dlt_header, an approve no reason and no other field.
    expect((await op("POST", `/sender-ids/1/reject`, { dlt_header: false })).status).toBe(400);
    expect((await op("POST", `/sender-ids/1/approve`, { reason: "x" })).status).toBe(400);
    expect((await op("POST", `/sender-ids/1/approve`, { dlt_header: "no" })).status).toBe(400);
  });
});
