// Two final receipts for one SMSC message id that both come before the submit_sm_resp giving
// that id (both "early"): the first the gateway took is the one applied, whichever process took
// each. Through the real server on both engines: on PostgreSQL an `api` gateway and two
// `worker`s, each with its own store and one bind to the SMSC account (the scale-out shape:
// the SMSC hands a receipt to either bind); on SQLite one gateway (api and worker) with two
// binds. A local SMSC writes, for each submit_sm, DELIVRD on one bind, then UNDELIV (err 633,
// whose reason the gateway refunds) on the other, then the submit_sm_resp with that id: every
// receipt is early, deterministically. Which bind hears DELIVRD alternates, so that the sender's
// bind and the other one each get the first receipt in turn. Every message must end delivered,
// with one `delivered` delivery_report webhook, no `failed` one, and no refund.
import type { AddressInfo } from "node:net";
import type { Pdu, Session } from "smpp";
import smpp from "smpp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";

const MESSAGES = 30;
const ENV = { REFUND_CARRIER_REASONS: "dlt_template_mismatch", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" };

/**
 * Where a part's receipts go: `same`, DELIVRD then UNDELIV on the sender's bind; `split`,
 * DELIVRD on the other bind, then UNDELIV on the sender's; `other`, both on the other bind.
 */
const PATTERNS = ["same", "split", "other"] as const;
type Pattern = (typeof PATTERNS)[number];

/**
 * An SMSC that sends a part's DELIVRD and UNDELIV receipts before its submit_sm_resp, the
 * UNDELIV only once the gateway took the DELIVRD: on another bind, once the DELIVRD's
 * deliver_sm_resp came (`awaitOtherBind`: that bind is another process's, which has no send
 * waiting for this SMSC) or else once an enquire_link sent after it on its bind was answered
 * (the gateway reads a bind's PDUs in order). One submit at a time: the test sends the next
 * message once this one is answered.
 */
class ReceiptsFirstSmsc {
  private readonly server = smpp.createServer({}, (session) => this.accept(session));
  private readonly binds: Session[] = [];
  private readonly sessions = new Set<Session>();
  private nextId = 0x7b000;
  /** The ids given, in order, each with where its receipts went. */
  readonly given: { id: string; pattern: Pattern }[] = [];
  /** The ESME's deliver_sm_resp command_status, by id: DELIVRD's then UNDELIV's (in the order they came). */
  readonly answers = new Map<string, number[]>();

  constructor(private readonly awaitOtherBind: boolean) {}

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return (this.server.address() as AddressInfo).port;
  }

  get bound(): number {
    return this.binds.length;
  }

  async stop(): Promise<void> {
    for (const session of this.sessions) session.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(session: Session): void {
    this.sessions.add(session);
    session.on("error", () => {});
    session.socket.setNoDelay(true);
    session.on("close", () => {
      this.sessions.delete(session);
      const index = this.binds.indexOf(session);
      if (index >= 0) this.binds.splice(index, 1);
    });
    session.on("pdu", (pdu: Pdu) => {
      switch (pdu.command) {
        case "bind_transceiver":
          this.binds.push(session);
          session.send(pdu.response({ system_id: "ORDER" }));
          return;
        case "enquire_link":
          session.send(pdu.response());
          return;
        case "unbind":
          session.send(pdu.response(), () => session.close());
          return;
        case "submit_sm":
          void this.submit(session, pdu);
          return;
      }
    });
  }

  private async submit(sender: Session, pdu: Pdu): Promise<void> {
    const pattern = PATTERNS[this.given.length % PATTERNS.length]!;
    const id = (this.nextId++).toString(16);
    const other = this.binds.find((bind) => bind !== sender)!;
    this.answers.set(id, []);
    const first = pattern === "same" ? sender : other;
    const delivered = this.receipt(first, id, "DELIVRD", "000");
    if (first !== sender && this.awaitOtherBind) await delivered;
    else await new Promise((resolve) => first.send(new smpp.PDU("enquire_link"), resolve));
    void this.receipt(pattern === "other" ? other : sender, id, "UNDELIV", "633");
    this.given.push({ id, pattern });
    sender.send(pdu.response({ message_id: id }));
  }

  /** Sends a receipt; settles once the ESME answered it. */
  private receipt(session: Session, id: string, stat: string, err: string): Promise<void> {
    const text = `id:${id} sub:001 dlvrd:${stat === "DELIVRD" ? "001" : "000"} submit date:2611221430 done date:2611221431 stat:${stat} err:${err} text:`;
    const fields = {
      source_addr: "919800000001",
      destination_addr: "SWBRD",
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(text, "latin1"),
    };
    return new Promise((resolve) =>
      session.send(new smpp.PDU("deliver_sm", fields), (response: Pdu) => {
        this.answers.get(id)!.push(response.command_status);
        resolve();
      }),
    );
  }
}

describeEachEngine("two final SMPP receipts that both came before the submit_sm_resp", (engine) => {
  let first: TestGateway;
  const workers: Gateway[] = [];
  const smsc = new ReceiptsFirstSmsc(engine === "postgres");
  let account: TestAccount;

  beforeAll(async () => {
    const port = await smsc.start();
    // The api first (with the test's store): on PostgreSQL the workers start once the connector
    // is stored, so that each loads it at its start.
    first = await startTestGateway(engine, { env: ENV, roles: engine === "postgres" ? ["api"] : ["api", "worker"] });
    const operator = await buildAccount(first, { role: "operator" });
    const admin = (method: string, path: string, json: unknown) =>
      call(first, method, `/admin/api${path}`, { headers: { authorization: `Bearer ${operator.apiKey}` }, json });
    const added = await admin("PUT", "/carriers/order-smsc", {
      type: "smpp",
      host: "127.0.0.1",
      port,
      system_id: "switchboard",
      password: "secret",
      reconnect_initial_ms: 50,
      reconnect_max_ms: 300,
      // One bind per worker on PostgreSQL (two workers), two in the one process on SQLite.
      connections: engine === "postgres" ? 1 : 2,
    });
    expect(added.status, added.text).toBe(201);
    const route = await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "order-smsc" }] });
    expect(route.status, route.text).toBeLessThan(300);
    account = await buildAccount(first, { credits: { sms: 1000 } });
    const hooks = await call(first, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { delivery_report: "http://127.0.0.1:9/hook" },
    });
    expect(hooks.status, hooks.text).toBe(200);
    if (engine === "postgres") {
      for (let i = 0; i < 2; i++) {
        workers.push(
          await startGateway({
            config: first.config,
            roles: ["worker"],
            clock: systemClock,
            logger: createLogger({ logLevel: "silent" }),
            checkAnswers: true,
            openApiAtStart: false,
          }),
        );
      }
    } else {
      await first.gateway.workers!.carriers.reload();
    }
    await until(() => smsc.bound === 2, 20_000);
  }, 60_000);

  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await first?.gateway.stop();
    await first?.db.drop();
    await smsc.stop();
  });

  it(`applies the first receipt (DELIVRD), never the later UNDELIV, for each of ${MESSAGES} messages`, async () => {
    const ids: string[] = [];
    // One at a time: the next once the SMSC answered this one's submit_sm.
    for (let i = 0; i < MESSAGES; i++) {
      const sent = await call(first, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: `98765${30000 + i}`, message: `Order ${i}` },
      });
      expect(sent.status, sent.text).toBe(200);
      ids.push(sent.body.data.message_id as string);
      await until(() => smsc.given.length > i, 20_000);
    }
    const { store } = first.db;
    // Every message final (one left `submitted` shows in the assertion below).
    await until(async () => {
      const open = await store.db
        .selectFrom("messages")
        .select("id")
        .where("id", "in", ids)
        .where("status", "in", ["queued", "dispatching", "submitted"])
        .execute();
      return open.length === 0;
    }, 100_000).catch(() => undefined);
    // Every receipt was early and taken (answered 0), on both binds.
    expect(smsc.given).toHaveLength(MESSAGES);
    await until(() => [...smsc.answers.values()].every((answers) => answers.length === 2), 30_000);
    for (const [id, answers] of smsc.answers) expect(answers, id).toEqual([0, 0]);

    const rows = await store.db
      .selectFrom("messages")
      .select(["id", "status", "upstream_id", "error_code"])
      .where("id", "in", ids)
      .execute();
    const failed = rows.filter((row) => row.status !== "delivered");
    const hooks = await store.db
      .selectFrom("webhook_deliveries")
      .select(["payload"])
      .where("account_id", "=", account.id)
      .execute();
    const reported = new Map<string, string[]>();
    for (const hook of hooks) {
      const payload = JSON.parse(hook.payload) as { message_id?: string; status?: string };
      if (!payload.message_id || !payload.status || payload.status === "submitted") continue;
      reported.set(payload.message_id, [...(reported.get(payload.message_id) ?? []), payload.status]);
    }
    const refunds = await store.db
      .selectFrom("ledger_entries")
      .select("ref")
      .where("account_id", "=", account.id)
      .where("kind", "=", "refund")
      .execute();
    const wrongHooks = ids.filter((id) => (reported.get(id) ?? []).join() !== "delivered");
    const given = new Map(smsc.given.map((g) => [g.id, g]));
    expect(
      { failed: failed.length, wrongHooks: wrongHooks.length, refunds: refunds.length },
      JSON.stringify({
        byPattern: PATTERNS.map(
          (p) => `${p} ${failed.filter((row) => given.get(row.upstream_id ?? "")?.pattern === p).length}`,
        ),
        failed: failed.slice(0, 5).map((row) => ({ ...row, given: given.get(row.upstream_id ?? "") })),
        hooks: wrongHooks.slice(0, 3).map((id) => reported.get(id)),
      }),
    ).toEqual({ failed: 0, wrongHooks: 0, refunds: 0 });
    // Nothing is left kept once every message is final.
    await expect
      .poll(async () => (await store.db.selectFrom("early_receipts").selectAll().execute()).length, {
        timeout: 15_000,
      })
      .toBe(0);
  }, 150_000);
});
