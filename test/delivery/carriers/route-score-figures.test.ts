// An adaptive route's delivery figures through the real server (audit O7): the score's rate is
// weighted to recent receipts, and the answer and its note say so, with the plain count of the
// same receipts beside it, the count delivery analytics shows for the connector. A connector on
// an I route and a T route is scored on each by that route's own messages.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";
import { FAST_SIMULATOR, sendSms } from "../../helpers/sms.js";

describeEachEngine("adaptive route figures", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("labels the weighted rate as weighted and shows the plain count analytics shows beside it", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = (path: string, method = "GET", json?: unknown) =>
      call(t, method, `/admin/api${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json === undefined ? {} : { json }),
      });
    const route = await admin("/routes", "PUT", {
      route: "T",
      prefix: "91",
      strategy: "adaptive",
      connectors: [{ name: "simulator" }],
    });
    expect(route.status, route.text).toBe(201);
    const shop: TestAccount = await buildAccount(t, { credits: { sms: 100 } });
    const send = async (recipient: string) => {
      const answer = await sendSms(t, shop, { sender_id: "SWBRD", recipient, message: "Your code is 1234" });
      expect(answer.status, answer.text).toBe(200);
    };
    // 12 delivered, then 8 the simulator fails (numbers ending 0001): the newest receipts are the
    // failures, so the weighted rate is below the plain 60 %.
    for (let i = 0; i < 12; i++) await send(`98765432${String(i).padStart(2, "0")}`);
    await waitUntilAllFinal(t.db.store, 20_000);
    for (let i = 0; i < 8; i++) await send(`98765${i}0001`);
    await waitUntilAllFinal(t.db.store, 20_000);

    const [score] = (await admin("/routes/scores")).body.data;
    expect(score).toMatchObject({ route: "T/91", connector: "simulator", receipts: 20, receipts_delivered: 12 });
    expect(score.delivery_rate).toBeLessThan(0.6);
    const weighted = `${Math.round(score.delivery_rate * 1000) / 10} %`;
    expect(score.note).toMatch(
      new RegExp(`^${weighted.replace(".", "\\.")} delivered weighted to recent receipts \\(12 of the last 20\\)`),
    );
    const analytics = (await admin("/analytics/delivery?group_by=connector")).body.data.rows;
    expect(analytics).toEqual([expect.objectContaining({ key: "simulator", delivered: 12, failed: 8 })]);
  });
});

describeEachEngine("adaptive routes sharing a connector", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("scores an I route's connector by its international messages, not by the T route's", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = (path: string, method = "GET", json?: unknown) =>
      call(t, method, `/admin/api${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json === undefined ? {} : { json }),
      });
    for (const [code, prefix] of [
      ["T", "91"],
      ["I", undefined],
    ] as const) {
      const route = await admin("/routes", "PUT", {
        route: code,
        ...(prefix ? { prefix } : {}),
        strategy: "adaptive",
        connectors: [{ name: "simulator" }],
      });
      expect(route.status, route.text).toBe(201);
    }
    const shop: TestAccount = await buildAccount(t, { credits: { sms: 100, international: 100 } });
    const opened = await admin(`/accounts/${shop.username}`, "PATCH", {
      international_enabled: true,
      routes: ["T", "I"],
    });
    expect(opened.status, opened.text).toBe(200);
    const send = async (body: Record<string, unknown>) => {
      const answer = await sendSms(t, shop, { sender_id: "SWBRD", message: "Your code is 1234", ...body });
      expect(answer.status, answer.text).toBe(200);
    };
    // 6 Indian numbers the simulator fails (ending 0001), 4 international ones it delivers.
    for (let i = 0; i < 6; i++) await send({ recipient: `98765${i}0001` });
    for (let i = 0; i < 4; i++) await send({ recipient: `+4479111234${i}0`, route: "I" });
    await waitUntilAllFinal(t.db.store, 20_000);

    const scores = (await admin("/routes/scores")).body.data;
    expect(scores).toEqual([
      expect.objectContaining({ route: "I/*", receipts: 4, receipts_delivered: 4, delivery_rate: 1 }),
      expect.objectContaining({ route: "T/91", receipts: 6, receipts_delivered: 0, delivery_rate: 0 }),
    ]);
  });
});
