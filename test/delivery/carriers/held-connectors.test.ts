// A message held because no connector of its route is up names each of them and why (audit F13),
// through the real server on both engines: a connector the operator disabled is `disabled`, one
// that cannot bind `down` with its reason; the status answer's `held`, the operator's message
// timeline, and the timeline of the message failed once the hold ran out all say so.
import { expect, it } from "vitest";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { sendSms, waitForStatus } from "../../helpers/sms.js";
import { smppDefinition, useCarrierApi } from "./carrier-api.js";
import { FakeSmsc } from "./fake-smsc.js";

describeEachEngine("a held message names its route's connectors", (engine) => {
  const gateway = useTestGateway(engine, { env: { MESSAGE_VALIDITY_HOURS: "1" } });
  const { admin, applied, operatorAccount } = useCarrierApi(gateway);

  const heldEvent = async (t: TestGateway, id: string) => {
    const key = (await operatorAccount()).apiKey;
    const view = await call(t, "GET", `/admin/api/messages/${id}`, { headers: { authorization: `Bearer ${key}` } });
    expect(view.status, view.text).toBe(200);
    return (view.body.data.timeline as { event: string; detail: string | null }[]).find((e) => e.event === "held");
  };

  it("says which connector is disabled and which is down, while held and once failed", async () => {
    const t = gateway();
    // A carrier that refuses connections: its connector runs but never binds.
    const closed = new FakeSmsc();
    await closed.start();
    closed.refuseConnections = true;
    try {
      expect((await admin("POST", "/carriers", smppDefinition("smsc-a", closed))).status).toBe(201);
      expect((await admin("POST", "/carriers", smppDefinition("smsc-b", closed))).status).toBe(201);
      expect((await admin("PATCH", "/carriers/smsc-a", { enabled: false })).status).toBe(200);
      const route = { route: "T", prefix: "91987659", connectors: [{ name: "smsc-a" }, { name: "smsc-b" }] };
      expect((await admin("PUT", "/routes", route)).status).toBe(201);
      await applied();

      const account = await buildAccount(t, { credits: { sms: 10 } });
      const sent = await sendSms(t, account, {
        sender_id: "SWBRD",
        recipient: "9876590000",
        message: "Your OTP is 8. Do not share it with anyone.",
      });
      expect(sent.status, sent.text).toBe(200);
      const id = sent.body.data.message_id as string;
      const status = async () =>
        (await call(t, "GET", `/api/v2/messages/${id}`, { headers: { authorization: `Bearer ${account.apiKey}` } }))
          .body.data as { message: { held?: { code: string; message: string } } };
      await until(async () => (await status()).message.held?.code === "connectors_down", 10_000);

      const words = /^No connector of the route T\/91987659 is up: smsc-a disabled; smsc-b down \(.+\)\.$/;
      expect((await status()).message.held?.message).toMatch(words);
      const held = await heldEvent(t, id);
      expect(held?.detail).toMatch(/^No connector of the route T\/91987659 is up: smsc-a disabled; smsc-b down \(/);
      expect(held?.detail).toMatch(/Looked at again \d{4}-.*, or when a connector comes back\.$/);

      // Held past MESSAGE_VALIDITY_HOURS: failed, refunded, and its timeline still names them.
      await t.db.store.db
        .updateTable("messages")
        .set({ held_since: Date.now() - 61 * 60_000, due_at: Date.now() })
        .where("id", "=", id)
        .execute();
      expect((await waitForStatus(t, account, id)).status).toBe("failed");
      const after = await heldEvent(t, id);
      expect(after?.detail).toMatch(
        /^No connector of its route was up \(connectors_down\); it waited for one\. No connector of the route T\/91987659 is up: smsc-a disabled; smsc-b down \(/,
      );
    } finally {
      await closed.stop();
    }
  });
});
