// A failed report (error 633, whose reason the gateway refunds) that comes before its submit is
// recorded ("early", kept in early_reports) must leave its message exactly as the same report
// arriving on time does: failed, the same error code, reason, carrier code and message, and one
// refund noting that reason. Through the real server on both engines, with a local aggregator:
// - on time: it answers the send, and the report is posted once the message is submitted;
// - early, applied from memory: it posts the report to the gateway and, once answered 200,
//   answers the send (the process that took the report applies it once the submit is recorded);
// - early, applied from the table: it posts the report to a second gateway (api only), which is
//   stopped once it answered 200 (its memory of the report goes with it), and only then answers
//   the send; the first gateway's sweep applies the kept row.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { aggregatorDefinition } from "../carriers/http-sms-helpers.js";

const ENV = { REFUND_CARRIER_REASONS: "dlt_template_mismatch" };

/** An aggregator whose answer to each send waits for the test (`answer`), with the id it is to give. */
class HeldAggregator {
  private server: http.Server | undefined;
  private sends = 0;
  /** The sends waiting for their answer, by the order they came. */
  readonly held = new Map<number, { id: string; answer: () => void }>();

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      req.resume();
      const id = `agg-reason-${this.sends}`;
      this.held.set(this.sends++, {
        id,
        answer: () =>
          res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { message_id: id } })),
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Posts a failed report for `id` with error 633 to the gateway at `api`: answers its status. */
async function postFailed(api: string, id: string): Promise<number> {
  const url = new URL(`${api}/carriers/http-sms/agg/dlr`);
  url.searchParams.set("id", id);
  url.searchParams.set("status", "UNDELIV");
  url.searchParams.set("err", "633");
  const answer = await fetch(url);
  await answer.text();
  return answer.status;
}

describeEachEngine("a failed report kept in early_reports", (engine) => {
  let first: TestGateway;
  const aggregator = new HeldAggregator();
  let account: TestAccount;

  beforeAll(async () => {
    const aggregatorUrl = await aggregator.start();
    first = await startTestGateway(engine, { env: ENV });
    const operator = await buildAccount(first, { role: "operator" });
    const admin = (method: string, path: string, json: unknown) =>
      call(first, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
    const definition = aggregatorDefinition(aggregatorUrl, "agg", { timeout_ms: 10_000, max_connections: 4 });
    const added = await admin("PUT", "/carriers/agg", {
      ...definition,
      dlr: { ...definition.dlr, error_code_field: "err" },
    });
    expect(added.status, added.text).toBe(201);
    const route = await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "agg" }] });
    expect(route.status, route.text).toBeLessThan(300);
    account = await buildAccount(first, { credits: { sms: 100 } });
  }, 60_000);

  afterAll(async () => {
    await first?.gateway.stop();
    await first?.db.drop();
    await aggregator.stop();
  });

  /** Sends one message; answers its id and the aggregator's hold of its send. */
  async function send(n: number) {
    const sent = await call(first, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: `98765${40000 + n}`, message: `Order ${n}` },
    });
    expect(sent.status, sent.text).toBe(200);
    await until(() => aggregator.held.has(n), 20_000);
    return { messageId: sent.body.data.message_id as string, held: aggregator.held.get(n)! };
  }

  async function outcome(messageId: string) {
    const { store } = first.db;
    await until(async () => {
      const row = await store.db.selectFrom("messages").select("status").where("id", "=", messageId).executeTakeFirst();
      return row?.status === "failed" || row?.status === "delivered";
    }, 30_000);
    const row = await store.db
      .selectFrom("messages")
      .select(["status", "error_code", "error_reason", "carrier_code", "error_message"])
      .where("id", "=", messageId)
      .executeTakeFirstOrThrow();
    const refunds = await store.db
      .selectFrom("ledger_entries")
      .select(["amount", "note"])
      .where("ref", "=", messageId)
      .where("kind", "=", "refund")
      .execute();
    return { ...row, refunds: refunds.map((entry) => ({ ...entry, amount: Number(entry.amount) })) };
  }

  it("ends the message as the same report on time does, from memory and from the table", async () => {
    // On time.
    const onTime = await send(0);
    onTime.held.answer();
    await until(async () => {
      const row = await first.db.store.db
        .selectFrom("messages")
        .select("status")
        .where("id", "=", onTime.messageId)
        .executeTakeFirst();
      return row?.status === "submitted";
    }, 20_000);
    expect(await postFailed(first.url, onTime.held.id)).toBe(200);
    const expected = await outcome(onTime.messageId);
    expect(expected).toMatchObject({
      status: "failed",
      error_code: "633",
      error_reason: "dlt_template_mismatch",
      carrier_code: "633",
      refunds: [{ amount: expect.any(Number), note: expect.stringContaining("dlt_template_mismatch") }],
    });

    // Early, applied from memory by the process that took it.
    const fromMemory = await send(1);
    expect(await postFailed(first.url, fromMemory.held.id)).toBe(200);
    expect(
      await first.db.store.db.selectFrom("early_reports").select("upstream_id").execute(),
      "kept before the send was answered",
    ).toEqual([{ upstream_id: fromMemory.held.id }]);
    fromMemory.held.answer();
    expect(await outcome(fromMemory.messageId)).toEqual(expected);

    // Early, applied from the table: the process that took it is gone.
    const second: Gateway = await startGateway({
      config: first.config,
      roles: ["api"],
      clock: systemClock,
      logger: createLogger({ logLevel: "silent" }),
      checkAnswers: true,
      openApiAtStart: false,
    });
    const fromTable = await send(2);
    try {
      expect(await postFailed(second.url!, fromTable.held.id)).toBe(200);
    } finally {
      await second.stop();
    }
    // Kept as the carrier said it (decision 0188): its reason's description is said when it applies.
    const keptRows = await first.db.store.db
      .selectFrom("early_reports")
      .select(["upstream_id", "error_code", "carrier_code", "error_message"])
      .execute();
    expect(keptRows).toMatchObject([{ upstream_id: fromTable.held.id, error_code: "633", carrier_code: "633" }]);
    expect(keptRows[0]!.error_message ?? "").not.toContain("carrier code");
    fromTable.held.answer();
    expect(await outcome(fromTable.messageId)).toEqual(expected);
    expect(await first.db.store.db.selectFrom("early_reports").selectAll().execute()).toEqual([]);
  }, 90_000);
});
