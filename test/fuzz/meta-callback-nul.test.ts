// A NUL (U+0000) in a value of Meta's WhatsApp callback, as the fuzz suite's generated callbacks
// carry: PostgreSQL's text cannot store one, so the whole callback answered 400 there (Meta
// delivers it again, the good items beside it with it, until it gives up) while SQLite stored the
// NUL. On both engines now: an item whose id or number holds one is unreadable and left out, a
// text holding one is left out, a description loses its NULs, and the callback is taken.
import { beforeAll, expect, it } from "vitest";
import { signMetaPayload } from "../../src/channels/whatsapp/meta-webhook.js";
import { updateWhatsAppSettings } from "../../src/channels/whatsapp/settings.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../helpers/gateway.js";

const APP_SECRET = "nul-app-secret-0123456789";
const PHONE_NUMBER_ID = "555000666777";
const WABA_ID = "400000000066";

describeEachEngine("Meta callbacks holding U+0000", (engine) => {
  const gateway = useTestGateway(engine, { env: { WHATSAPP_APP_SECRET: APP_SECRET }, roles: ["api"] });
  let account: TestAccount;
  beforeAll(async () => {
    const t = gateway();
    account = await buildAccount(t, { credits: { whatsapp: 10 }, sender: null });
    await updateWhatsAppSettings(t.db.store.db, t.clock, account.id, {
      enabled: true,
      phone_number_id: PHONE_NUMBER_ID,
      display_phone_number: "15550006677",
      waba_id: WABA_ID,
      access_token: "simulated",
    });
  });

  const meta = async (value: Record<string, unknown>) => {
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: WABA_ID,
          changes: [
            {
              field: "messages",
              value: {
                messaging_product: "whatsapp",
                metadata: { display_phone_number: "15550006677", phone_number_id: PHONE_NUMBER_ID },
                ...value,
              },
            },
          ],
        },
      ],
    });
    const answer = await fetch(`${gateway().url}/webhooks/whatsapp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": signMetaPayload(body, APP_SECRET) },
      body,
    });
    return { status: answer.status, text: await answer.text() };
  };
  const message = (id: string, from: string, body: string) => ({
    from,
    id,
    timestamp: "1764100000",
    type: "text",
    text: { body },
  });

  it("takes a callback whose messages hold a NUL, storing the others and no NUL", async () => {
    const answer = await meta({
      messages: [
        message("wamid.nul-text", "919812300066", "hel\u0000lo"),
        message("wamid.nul\u0000id", "919812300066", "hello"),
        message("wamid.nul-from", "9198\u000012300066", "hello"),
        message("wamid.clean", "919812300066", "hello"),
      ],
    });
    expect(answer, answer.text).toEqual({ status: 200, text: "EVENT_RECEIVED" });
    const stored = await gateway()
      .db.store.db.selectFrom("whatsapp_inbound")
      .select(["upstream_id", "text"])
      .where("account_id", "=", account.id)
      .orderBy("upstream_id")
      .execute();
    // A text holding a NUL is left out, as one longer than Meta's: the message still opens the window.
    expect(stored).toEqual([
      { upstream_id: "wamid.clean", text: "hello" },
      { upstream_id: "wamid.nul-text", text: null },
    ]);
  });

  it("fails a message on a failed status whose error holds NULs, telling the error without them", async () => {
    const t = gateway();
    const sent = await call(t, "POST", "/api/v2/whatsapp/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { to: "919876543210", template: "namaste", params: ["a", "b"] },
    });
    expect(sent.status, sent.text).toBe(200);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "upstream_id"])
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    const answer = await meta({
      statuses: [
        {
          id: row.upstream_id,
          status: "failed",
          timestamp: "1764100000",
          recipient_id: "919876543210",
          errors: [{ code: 131026, title: "Undeliver\u0000able", error_data: { details: "\u0000why\u0000" } }],
        },
      ],
    });
    expect(answer, answer.text).toEqual({ status: 200, text: "EVENT_RECEIVED" });
    const failed = await t.db.store.db
      .selectFrom("messages")
      .select(["status", "error_code", "error_message"])
      .where("id", "=", row.id)
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({ status: "failed", error_code: "131026", error_message: "Undeliverable (why)" });
  });
});
