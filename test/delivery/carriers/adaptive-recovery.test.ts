// An adaptive route through the real server, on both engines, as the business audit ran it (F3 and
// the cold start): two fake SMSCs over SMPP, the cheaper one delivering 40 %, the dearer one 95 %,
// default scoring and explore share. At the start, with no receipts, the cheap one does not get the
// traffic on cost alone (decision 0147: at most an even split until it has MIN_RECEIPTS); the good one turns bad and
// traffic leaves it; it recovers, and within ROUNDS_TO_RECOVER rounds of 50 it has the majority
// again, though the route had starved it of traffic. Measured: 5 rounds (250 SMS) on each engine;
// before 0147, 12 and 13 rounds (and 193 of the first 200 to the cheap one).
import { afterEach, expect, it } from "vitest";
import { listCarriers, listRoutes, removeCarrier, removeRoute } from "../../../src/delivery/carriers/catalog.js";
import { replaceCostCard } from "../../../src/delivery/carriers/cost-cards.js";
import { MIN_RECEIPTS } from "../../../src/delivery/carriers/route-scores.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { sendSms } from "../../helpers/sms.js";
import type { FakeSmsc } from "./fake-smsc.js";
import { fakeSmsc } from "./smpp-helpers.js";

/** Rounds of 50 after the recovery within which the recovered SMSC carries most of a round. */
const ROUNDS_TO_RECOVER = 7;

async function smsc(failedReceiptShare: number): Promise<FakeSmsc> {
  const server = await fakeSmsc();
  server.receiptAfterMs = 5;
  server.failedReceiptShare = failedReceiptShare;
  return server;
}

const definition = (name: string, server: FakeSmsc) => ({
  name,
  type: "smpp",
  host: "127.0.0.1",
  port: server.port,
  system_id: server.systemId,
  password: server.password,
  window: 50,
  reconnect_initial_ms: 50,
  reconnect_max_ms: 300,
});

describeEachEngine("adaptive routing: cold start and a recovered carrier", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount | undefined;
  const admin = async (method: string, path: string, json?: unknown) => {
    const t = gateway();
    operator ??= await buildAccount(t, { role: "operator" });
    return call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  };
  const registry = () => gateway().gateway.workers!.carriers;
  const healthOf = async (name: string) => (await admin("GET", `/carriers/${name}`)).body.data.health.state;

  afterEach(async () => {
    const t = gateway();
    const deps = { store: t.db.store, clock: t.clock };
    for (const route of await listRoutes(t.db.store.db)) await removeRoute(deps, route.route, route.prefix);
    for (const carrier of await listCarriers(t.db.store.db)) {
      await replaceCostCard(deps, carrier.name, []);
      await removeCarrier(deps, carrier.name);
    }
    await registry().reload();
  });

  it("splits evenly before any receipt, and gives a recovered carrier the majority again within 7 rounds of 50", async () => {
    const t = gateway();
    const [good, poor] = [await smsc(0.05), await smsc(0.6)];
    expect((await admin("POST", "/carriers", definition("ar-good", good))).status).toBe(201);
    expect((await admin("POST", "/carriers", definition("ar-poor", poor))).status).toBe(201);
    const card = (price: number) => ({ rows: [{ channel: "sms", route: "*", prefix: "91", price }] });
    expect((await admin("PUT", "/carriers/ar-good/cost-card", card(0.05))).status).toBe(200);
    expect((await admin("PUT", "/carriers/ar-poor/cost-card", card(0.02))).status).toBe(200);
    const route = await admin("PUT", "/routes", {
      route: "T",
      prefix: "91",
      strategy: "adaptive",
      connectors: [{ name: "ar-good" }, { name: "ar-poor" }],
    });
    expect(route.status, route.text).toBe(201);
    await registry().reload();
    await until(async () => (await healthOf("ar-good")) === "up" && (await healthOf("ar-poor")) === "up", 10_000);

    const account = await buildAccount(t, { credits: { sms: 100_000 } });
    const scores = registry().scores;
    let next = 0;
    /** Sends `count` SMS at once, waits for their receipts, measures again; how many went to ar-good. */
    const round = async (count = 50) => {
      const answers = await Promise.all(
        Array.from({ length: count }, (_, i) =>
          sendSms(t, account, {
            sender_id: "SWBRD",
            recipient: `98${String(next + i).padStart(8, "0")}`,
            message: "Your OTP is 4321",
            dlt_entity_id: "1101234567890123456",
            dlt_template_id: "1107161234567890123",
          }),
        ),
      );
      next += count;
      for (const answer of answers) expect(answer.status).toBe(200);
      const ids = answers.map((a) => a.body.data.message_id as string);
      const rows = async () =>
        t.db.store.db.selectFrom("messages").select(["status", "connector"]).where("id", "in", ids).execute();
      await until(async () => (await rows()).every((row) => row.status === "delivered" || row.status === "failed"));
      await scores.refresh();
      return (await rows()).filter((row) => row.connector === "ar-good").length;
    };

    // Cold start: 200 at once, before any receipt. Scored on cost alone, the cheap one took 193; now
    // half each, until one has MIN_RECEIPTS (if the good one, measured while the batch is sent, more).
    const cold = await round(200);
    expect(cold).toBeGreaterThanOrEqual(90);
    const trial = (await admin("GET", "/routes/scores")).body.data;
    expect(trial.every((view: { receipts: number }) => view.receipts >= MIN_RECEIPTS)).toBe(true);

    // Measured: the good one takes the traffic.
    let good50 = 0;
    for (let i = 0; i < 6 && good50 < 45; i++) good50 = await round();
    expect(good50).toBeGreaterThanOrEqual(45);

    // It turns bad (10 % delivered): the traffic leaves it.
    good.failedReceiptShare = 0.9;
    let degraded = 0;
    for (; degraded < 10; degraded++) if ((await round()) < 25) break;
    expect(degraded).toBeLessThan(10);
    for (let i = 0; i < 10; i++) await round();

    // It recovers. Starved of traffic, it had only its explore share to show it.
    good.failedReceiptShare = 0.05;
    let rounds = 1;
    while (rounds <= 40 && (await round()) <= 25) rounds++;
    expect(rounds, `rounds of 50 until ar-good had the majority: ${rounds}`).toBeLessThanOrEqual(ROUNDS_TO_RECOVER);
  }, 120_000);
});
