// SMPP receipts and reports kept before their part (or their submit's record) was stored,
// through the real server on both engines, with a local SMSC whose answers the test holds:
// - the sweep of kept receipts (every 5 s) takes a digits-only receipt kept a moment ago, while
//   the submit it belongs to is still unanswered (its part not stored): it must not apply it to
//   an older message whose part the same digits name in hex ("1000" is 0x3e8);
// - a failed receipt with an err: code (UNDELIV, err 633, whose reason the gateway refunds)
//   kept early, and the report of one kept in early_reports by a process gone before it applied
//   it, must leave the message as the same receipt on time does: failed, the same error code,
//   reason, carrier code and message, and one refund noting that reason;
// - processes keeping receipts past a connector's most at once each count only the receipts they
//   dropped, and none waits for another's;
// - a receipt kept 72 hours for a part never stored is dropped by the sweep and counted
//   (switchboard_early_reports_dropped_total{reason="smpp_expired"}).
import type { AddressInfo } from "node:net";
import type { Pdu, Session } from "smpp";
import smpp from "smpp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { reportReasonOptions } from "../../../src/delivery/carriers/error-code-book.js";
import { type KeptReceipt, keepReceipts } from "../../../src/delivery/carriers/smpp/early-receipts.js";
import { reportOf } from "../../../src/delivery/carriers/smpp/finished-parts.js";
import { ReportIngester } from "../../../src/delivery/dispatch/reports.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { keepsAtOnce } from "../../helpers/keeps-at-once.js";
import { captureLogs } from "../../helpers/log-capture.js";

const ENV = { REFUND_CARRIER_REASONS: "dlt_template_mismatch" };
const CONNECTOR = "held-smsc";

/** A submit_sm the SMSC holds: answered with `id` when the test says so. */
interface HeldSubmit {
  session: Session;
  answer(id: string): void;
}

/** An SMSC whose every submit_sm waits for the test's answer, and which sends receipts when told. */
class HeldSmsc {
  private readonly server = smpp.createServer({}, (session) => this.accept(session));
  private readonly sessions = new Set<Session>();
  readonly held: HeldSubmit[] = [];
  bound = 0;

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(session: Session): void {
    this.sessions.add(session);
    session.on("error", () => {});
    session.on("close", () => this.sessions.delete(session));
    session.on("pdu", (pdu: Pdu) => {
      switch (pdu.command) {
        case "bind_transceiver":
          this.bound++;
          session.send(pdu.response({ system_id: "HELD" }));
          return;
        case "enquire_link":
          session.send(pdu.response());
          return;
        case "unbind":
          session.send(pdu.response(), () => session.close());
          return;
        case "submit_sm":
          this.held.push({ session, answer: (id) => session.send(pdu.response({ message_id: id })) });
          return;
      }
    });
  }

  /** Sends a receipt on `session`; settles with the ESME's deliver_sm_resp command_status. */
  receipt(session: Session, id: string, stat: string, err: string): Promise<number> {
    const text = `id:${id} sub:001 dlvrd:${stat === "DELIVRD" ? "001" : "000"} submit date:2611221430 done date:2611221431 stat:${stat} err:${err} text:`;
    const fields = {
      source_addr: "919800000001",
      destination_addr: "SWBRD",
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(text, "latin1"),
    };
    return new Promise((resolve) =>
      session.send(new smpp.PDU("deliver_sm", fields), (response: Pdu) => resolve(response.command_status)),
    );
  }
}

describeEachEngine("SMPP receipts and reports kept before their part was stored", (engine) => {
  let gateway: TestGateway;
  const smsc = new HeldSmsc();
  const logs = captureLogs("debug");
  let account: TestAccount;
  let sent = 0;

  beforeAll(async () => {
    const port = await smsc.start();
    gateway = await startTestGateway(engine, { env: ENV, logger: logs.logger });
    const operator = await buildAccount(gateway, { role: "operator" });
    const admin = (method: string, path: string, json: unknown) =>
      call(gateway, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
    const added = await admin("PUT", `/carriers/${CONNECTOR}`, {
      type: "smpp",
      host: "127.0.0.1",
      port,
      system_id: "switchboard",
      password: "secret",
      reconnect_initial_ms: 50,
      reconnect_max_ms: 300,
      // A submit waits for the sweep of kept receipts (every 5 s) before it is answered.
      response_timeout_ms: 10_000,
    });
    expect(added.status, added.text).toBe(201);
    const route = await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: CONNECTOR }] });
    expect(route.status, route.text).toBeLessThan(300);
    account = await buildAccount(gateway, { credits: { sms: 100 } });
    await gateway.gateway.workers!.carriers.reload();
    await until(() => smsc.bound === 1, 20_000);
  }, 60_000);

  afterAll(async () => {
    await gateway?.gateway.stop();
    await gateway?.db.drop();
    await smsc.stop();
  });

  /** Sends a message; answers its id and its submit_sm, held. */
  async function send(): Promise<{ messageId: string; held: HeldSubmit }> {
    const n = sent++;
    const answer = await call(gateway, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { sender_id: "SWBRD", recipient: `98765${50000 + n}`, message: `Order ${n}` },
    });
    expect(answer.status, answer.text).toBe(200);
    await until(() => smsc.held.length > n, 20_000);
    return { messageId: answer.body.data.message_id as string, held: smsc.held[n]! };
  }

  async function statusOf(messageId: string): Promise<string | undefined> {
    const row = await gateway.db.store.db
      .selectFrom("messages")
      .select("status")
      .where("id", "=", messageId)
      .executeTakeFirst();
    return row?.status;
  }

  async function outcome(messageId: string) {
    const { db } = gateway.db.store;
    await until(async () => ["failed", "delivered"].includes((await statusOf(messageId)) ?? ""), 30_000);
    const row = await db
      .selectFrom("messages")
      .select(["status", "error_code", "error_reason", "carrier_code", "error_message"])
      .where("id", "=", messageId)
      .executeTakeFirstOrThrow();
    const refunds = await db
      .selectFrom("ledger_entries")
      .select(["amount", "note"])
      .where("ref", "=", messageId)
      .where("kind", "=", "refund")
      .execute();
    return { ...row, refunds: refunds.map((entry) => ({ ...entry, amount: Number(entry.amount) })) };
  }

  const looked = () => logs.matching(/^kept SMPP receipts looked at/).length;

  it("drops a receipt kept longer than 72 hours for a part never stored, and counts it", async () => {
    const name = 'switchboard_early_reports_dropped_total{reason="smpp_expired"}';
    const counted = async () => {
      const text = (await call(gateway, "GET", "/metrics")).text;
      return Number(
        text
          .split("\n")
          .find((line) => line.startsWith(`${name} `))
          ?.split(" ")[1] ?? 0,
      );
    };
    const before = await counted();
    // As a process gone 73 hours ago left it: no part carries the id.
    await gateway.db.store.db
      .insertInto("early_receipts")
      .values({
        connector: CONNECTOR,
        upstream_id: "never-stored",
        status: "delivered",
        stat: "DELIVRD",
        err: "000",
        done_at: null,
        received_at: Date.now() - 73 * 3600_000,
      })
      .execute();
    const gone = async () =>
      (await gateway.db.store.db
        .selectFrom("early_receipts")
        .select("upstream_id")
        .where("upstream_id", "=", "never-stored")
        .executeTakeFirst()) === undefined;
    await until(gone, 20_000);
    expect(await counted()).toBe(before + 1);
    expect(logs.matching(/^SMPP receipts kept 72 hours for a part never stored: dropped/).length).toBeGreaterThan(0);
  }, 60_000);

  it("the sweep does not apply a receipt kept a moment ago to an older part its digits name in hex", async () => {
    // An older message, given the hex id 3e8, still waiting for its receipt.
    const older = await send();
    older.held.answer("3e8");
    await until(async () => (await statusOf(older.messageId)) === "submitted", 20_000);
    // A new one: its receipt, for the id 1000 it is about to be given, comes before the answer.
    const newer = await send();
    const answered = smsc.receipt(newer.held.session, "1000", "DELIVRD", "000");
    await until(async () => {
      const kept = await gateway.db.store.db.selectFrom("early_receipts").select("upstream_id").execute();
      return kept.some((row) => row.upstream_id === "1000");
    }, 20_000);
    // The sweep looks at it (its part not stored: the submit is not answered yet).
    const before = looked();
    await until(() => looked() > before, 20_000);
    newer.held.answer("1000");
    expect(await answered).toBe(0);
    expect(await outcome(newer.messageId)).toMatchObject({ status: "delivered" });
    expect(await statusOf(older.messageId)).toBe("submitted");
    const parts = await gateway.db.store.db
      .selectFrom("message_parts")
      .select(["status"])
      .where("message_id", "=", older.messageId)
      .execute();
    expect(parts).toEqual([{ status: "pending" }]);
    // Its own receipt still applies.
    expect(await smsc.receipt(older.held.session, "3e8", "DELIVRD", "000")).toBe(0);
    expect(await outcome(older.messageId)).toMatchObject({ status: "delivered" });
  }, 60_000);

  it("a failed receipt with err: kept early, or its report kept by a process gone, ends as one on time", async () => {
    // On time.
    const onTime = await send();
    onTime.held.answer("7c0001");
    await until(async () => (await statusOf(onTime.messageId)) === "submitted", 20_000);
    expect(await smsc.receipt(onTime.held.session, "7c0001", "UNDELIV", "633")).toBe(0);
    const expected = await outcome(onTime.messageId);
    expect(expected).toMatchObject({
      status: "failed",
      error_code: "UNDELIV",
      error_reason: "dlt_template_mismatch",
      carrier_code: "633",
      refunds: [{ amount: expect.any(Number), note: expect.stringContaining("dlt_template_mismatch") }],
    });

    // The receipt before the submit's answer: kept in early_receipts.
    const early = await send();
    const answered = smsc.receipt(early.held.session, "7c0002", "UNDELIV", "633");
    await until(async () => {
      const kept = await gateway.db.store.db.selectFrom("early_receipts").select("upstream_id").execute();
      return kept.some((row) => row.upstream_id === "7c0002");
    }, 20_000);
    early.held.answer("7c0002");
    expect(await answered).toBe(0);
    expect(await outcome(early.messageId)).toEqual(expected);

    // The message's report, made by another process from the same receipt before the submit was
    // recorded, kept in early_reports; that process is gone (its memory of it too): the
    // gateway's sweep applies the kept row once the submit is recorded.
    const fromTable = await send();
    const { store } = gateway.db;
    const gone = new ReportIngester({
      store,
      clock: systemClock,
      logger: logs.logger,
      metrics: createMetrics(),
      ...reportReasonOptions({ store, config: gateway.config }),
    });
    const part = {
      upstream_id: "7c0003",
      status: "failed",
      error_code: "UNDELIV/633",
      done_at: Date.now(),
      part_index: 0,
    };
    const report = reportOf(CONNECTOR, [part as never], Date.now())!;
    await gone.pushAndWait([report]);
    // Kept as the carrier said it (decision 0188): the code, the err apart, the message unclassified.
    expect(
      await store.db
        .selectFrom("early_reports")
        .select(["upstream_id", "error_code", "carrier_code", "error_message"])
        .execute(),
    ).toEqual([{ upstream_id: "7c0003", error_code: "UNDELIV", carrier_code: "633", error_message: report.message }]);
    fromTable.held.answer("7c0003");
    expect(await outcome(fromTable.messageId)).toEqual(expected);
    expect(await store.db.selectFrom("early_reports").selectAll().execute()).toEqual([]);
  }, 60_000);

  it("counts each kept receipt dropped past a connector's most once when processes keep receipts at once", async () => {
    const { store } = gateway.db;
    // No connector of this name runs: no sweep reads its kept receipts meanwhile.
    const connector = "bounded-smsc";
    const most = 4;
    const bound = { engine, max: most };
    const at = Date.now();
    const receipt = (id: string, receivedAt: number): KeptReceipt => ({
      upstreamId: id,
      status: "delivered",
      stat: "DELIVRD",
      err: "000",
      doneAt: receivedAt,
      receivedAt,
    });
    const kept = async () =>
      (
        await store.db
          .selectFrom("early_receipts")
          .select("upstream_id")
          .where("connector", "=", connector)
          .orderBy("upstream_id")
          .execute()
      ).map((row) => row.upstream_id);
    await store.transaction((trx) =>
      keepReceipts(
        trx,
        connector,
        [0, 1, 2, 3].map((i) => receipt(`full-${i}`, at + i)),
        bound,
      ),
    );
    // Four processes keep two receipts each: each finds the connector two past its most.
    const { answers, waited } = await keepsAtOnce(store, 4, (trx, i) =>
      keepReceipts(trx, connector, [receipt(`p${i}-a`, at + 10 + i), receipt(`p${i}-b`, at + 10 + i)], bound),
    );
    const left = await kept();
    // Each receipt kept is still there or was dropped, and counted, by exactly one of them.
    expect({ dropped: answers.reduce((sum, n) => sum + n, 0), left: left.length, waited }).toEqual({
      dropped: 12 - left.length,
      left: most,
      waited: 0,
    });
    expect(left.filter((id) => id.startsWith("full-"))).toEqual([]);
  });
});
