// Priority lanes: a transactional message sent after a promotional backlog is dispatched first.
import { expect, it } from "vitest";
import type { MessageRow } from "../../../src/base/store/schema.js";
import type { Connector, SubmitResult } from "../../../src/delivery/dispatch/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, testDispatcher, useTestGateway } from "../../helpers/gateway.js";

class RecordingConnector implements Connector {
  readonly name = "recorder";
  readonly channel = "sms";
  readonly batches: MessageRow[][] = [];
  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    this.batches.push(messages);
    return messages.map((m) => ({ ok: true, upstreamId: `R-${m.id}` }));
  }
  onReports(): void {}
}

describeEachEngine("priority lanes", (engine) => {
  // API only: nothing dispatches until the test starts its own dispatcher.
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("dispatches a transactional message ahead of an earlier promotional backlog", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 1000 } });
    // Promotional from its own sender ID SWBRD needs promo sender (decision 0183).
    await t.db.store.db.updateTable("accounts").set({ promo_sender_enabled: 1 }).where("id", "=", account.id).execute();
    const headers = { authorization: `Bearer ${account.apiKey}` };
    const send = (route: string, i: number) =>
      call(t, "POST", "/api/v2/sms/send", {
        headers,
        json: { sender_id: "SWBRD", recipient: `96${10_005_000 + i}`, message: `${route} ${i}`, route },
      });
    for (let i = 0; i < 300; i++) expect((await send("promotional", i)).status).toBe(200);
    const otp = await send("transactional", 999);
    expect(otp.status).toBe(200);

    const connector = new RecordingConnector();
    const dispatcher = testDispatcher(t, connector);
    dispatcher.start();
    const deadline = Date.now() + 20_000;
    while (connector.batches.flat().length < 301 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await dispatcher.stop();

    const order = connector.batches.flat();
    expect(order).toHaveLength(301);
    expect(order[0]?.id).toBe(otp.body.data.message_id);
    expect(order[0]?.route).toBe("transactional");
    expect(new Set(order.map((m) => m.id)).size).toBe(301);
  });
});
