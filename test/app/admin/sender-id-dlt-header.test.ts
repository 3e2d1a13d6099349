// Ops finding 17 (decision 0151): the operator's approval of a sender ID white-lists it as the
// account's DLT header in the same transaction, so the first send from it passes the DLT header
// check at once; `{ "dlt_header": false }` leaves the headers as they are. Through the real
// server: the account asks, the operator approves, the account sends. An add with
// `"approve": true` (POST /admin/api/accounts/{username}/sender-ids) does the same.
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
  const send = (sender: string, from = shop) =>
    call(gateway(), "POST", "/api/v2/sms/send", {
      headers: keyOf(from),
      json: { sender_id: sender, recipient: "9876543210", message: "Hello Asha" },
    });
  /** An account with DLT scrubbing on, no sender ID or header, an entity and an approved template. */
  const scrubbing = async () => {
    const account = await buildAccount(gateway(), { credits: { sms: 100 }, dltScrubbing: true, sender: null });
    const entity = await op("POST", `/accounts/${account.username}/dlt/entities`, { entity_id: ENTITY });
    expect(entity.status, entity.text).toBe(201);
    const template = await op("POST", `/accounts/${account.username}/templates`, {
      name: "hello",
      content: "Hello {#var#}",
      entity_id: ENTITY,
      approve: true,
    });
    expect(template.status, template.text).toBe(201);
    return account;
  };
  const headersOf = async (account: TestAccount) =>
    (await op("GET", `/accounts/${account.username}/dlt/headers`)).body.data.map(
      (h: { header: string; status: string }) => `${h.header} ${h.status}`,
    );
  const headerEntries = async (account: TestAccount) =>
    (await op("GET", `/audit?account=${account.username}&action=dlt_header.add`)).body.data;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await scrubbing();
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

  it("white-lists the header of a sender ID added approved at once, audited, so a send from it passes", async () => {
    const added = await scrubbing();
    const path = `/accounts/${added.username}/sender-ids`;
    const answer = await op("POST", path, { sender: "addhdr", approve: true });
    expect(answer.status, answer.text).toBe(201);
    expect(answer.body.data).toEqual({
      id: expect.any(Number),
      account: added.username,
      sender_id: "ADDHDR",
      status: "approved",
      dlt_header: {
        id: expect.any(Number),
        header: "ADDHDR",
        status: "approved",
        rejection_reason: null,
        created_at: expect.any(String),
      },
    });
    const sent = await send("ADDHDR", added);
    expect(sent.status, sent.text).toBe(200);
    const entries = await headerEntries(added);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: operator.username,
      target: `DLT header ${answer.body.data.dlt_header.id}`,
      before: { status: null },
      after: { header: "ADDHDR", status: "approved", with: `sender ID ${answer.body.data.id}` },
    });
    // Added approved again: the same header, found white-listed; no second row, no second entry.
    const again = await op("POST", path, { sender: "ADDHDR", approve: true });
    expect(again.body.data).toMatchObject({
      id: answer.body.data.id,
      dlt_header: { id: answer.body.data.dlt_header.id },
    });
    expect(await headersOf(added)).toEqual(["ADDHDR approved"]);
    expect(await headerEntries(added)).toHaveLength(1);
  });

  it("does not duplicate a header white-listed before, and approves one asked for", async () => {
    const added = await scrubbing();
    const path = `/accounts/${added.username}/sender-ids`;
    const before = await op("POST", `/accounts/${added.username}/dlt/headers`, { header: "KNOWNH" });
    expect(before.status, before.text).toBe(201);
    const known = await op("POST", path, { sender: "KNOWNH", approve: true });
    expect(known.body.data.dlt_header).toMatchObject({ id: before.body.data.id, header: "KNOWNH", status: "approved" });
    // The account's own pending request for the header: approved by the add, not a second row.
    const asked = await call(gateway(), "POST", "/api/v2/dlt/headers", {
      headers: keyOf(added),
      json: { header: "ASKEDH" },
    });
    expect(asked.status, asked.text).toBe(201);
    const approved = await op("POST", path, { sender: "ASKEDH", approve: true });
    expect(approved.body.data.dlt_header).toMatchObject({ id: asked.body.data.id, status: "approved" });
    expect((await headersOf(added)).sort()).toEqual(["ASKEDH approved", "KNOWNH approved"]);
    // Only a change is audited: KNOWNH's own add (no `with`), then ASKEDH's approval by the sender
    // ID's add, newest first; KNOWNH found white-listed by the add wrote nothing.
    const entries = await headerEntries(added);
    expect(entries.map((e: { after: { header: string; with?: string } }) => [e.after.header, e.after.with])).toEqual([
      ["ASKEDH", `sender ID ${approved.body.data.id}`],
      ["KNOWNH", undefined],
    ]);
    expect(entries[0].before).toEqual({ status: "pending" });
    expect((await send("ASKEDH", added)).status).toBe(200);
  });

  it("leaves the headers alone for an add with dlt_header false, a pending add, and a long number", async () => {
    const added = await scrubbing();
    const path = `/accounts/${added.username}/sender-ids`;
    const kept = await op("POST", path, { sender: "KEPTHD", approve: true, dlt_header: false });
    expect(kept.status, kept.text).toBe(201);
    expect(kept.body.data).toMatchObject({ sender_id: "KEPTHD", status: "approved", dlt_header: null });
    const refused = await send("KEPTHD", added);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body.error.code).toBe("dlt_header_not_whitelisted");
    const pending = await op("POST", path, { sender: "LATERH" });
    expect(pending.body.data).toMatchObject({ status: "pending", dlt_header: null });
    const long = await op("POST", path, { sender: "919876543210", approve: true });
    expect(long.body.data).toMatchObject({ status: "approved", dlt_header: null });
    expect(await headersOf(added)).toEqual([]);
    expect(await headerEntries(added)).toEqual([]);
  });

  it("refuses a dlt_header that is not a boolean, or without approve, in the operator API's words", async () => {
    const added = await scrubbing();
    const path = `/accounts/${added.username}/sender-ids`;
    for (const body of [
      { sender: "BADHDR", approve: true, dlt_header: "yes" },
      { sender: "BADHDR", approve: true, dlt_header: null },
      { sender: "BADHDR", dlt_header: false },
      { sender: "BADHDR", approve: false, dlt_header: true },
    ]) {
      const refused = await op("POST", path, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body, JSON.stringify(body)).toMatchObject({
        status: "error",
        error: { code: "invalid_request", field: "dlt_header" },
      });
    }
    // Nothing was written.
    expect((await op("GET", path)).body.data).toEqual([]);
    expect(await headersOf(added)).toEqual([]);
  });
});
