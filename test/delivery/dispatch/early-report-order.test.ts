// Two final reports for one carrier id that both come before the submit is recorded (both
// "early"): the first the gateway took is the one applied, whichever process took each. Through
// the real server on both engines: on PostgreSQL two `api` gateways and a `worker`, each with its
// own store and its own memory of early reports (as separate processes have); on SQLite one
// gateway (api and worker). A local aggregator answers each send only after it has called back
// DELIVERED and then FAILED (error 633, whose reason the gateway refunds) for the id it is about
// to give, each report to both apis, one after the other, each once the gateway answered 200:
// every report is early, deterministically. Every message must end delivered, with one
// `delivered` delivery_report webhook, no `failed` one, and no refund.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger, type Gateway, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { aggregatorDefinition } from "../carriers/http-sms-helpers.js";

const MESSAGES = 30;
const ENV = { REFUND_CARRIER_REASONS: "dlt_template_mismatch", SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" };

/** An aggregator that calls back DELIVERED then FAILED for an id before it answers the send with it. */
class ReportingFirstAggregator {
  private server: http.Server | undefined;
  /** The gateways' base URLs the reports go to, in turn. */
  apis: string[] = [];
  sends = 0;
  readonly answers: { id: string; delivered: number[]; failed: number[] }[] = [];

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => void this.send(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private async send(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    req.resume();
    const n = this.sends++;
    const id = `agg-order-${n}`;
    // Which api hears first alternates, so that each process holds the first report in turn.
    const apis = n % 2 === 0 ? this.apis : [...this.apis].reverse();
    const post = async (api: string, query: Record<string, string>) => {
      const url = new URL(`${api}/carriers/http-sms/agg/dlr`);
      for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
      const answer = await fetch(url);
      await answer.text();
      return answer.status;
    };
    const delivered: number[] = [];
    const failed: number[] = [];
    for (const api of apis) delivered.push(await post(api, { id, status: "DELIVRD" }));
    for (const api of [...apis].reverse()) failed.push(await post(api, { id, status: "UNDELIV", err: "633" }));
    this.answers.push({ id, delivered, failed });
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ data: { message_id: id } }));
  }
}

describeEachEngine("two final reports that both came before the submit was recorded", (engine) => {
  let first: TestGateway;
  const others: Gateway[] = [];
  const aggregator = new ReportingFirstAggregator();
  let aggregatorUrl: string;
  let account: TestAccount;

  beforeAll(async () => {
    aggregatorUrl = await aggregator.start();
    // api A first (with the test's store): the others start once the connector is stored, so
    // that each loads it at its start.
    first = await startTestGateway(engine, { env: ENV, roles: engine === "postgres" ? ["api"] : ["api", "worker"] });
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
    account = await buildAccount(first, { credits: { sms: 1000 } });
    const hooks = await call(first, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { delivery_report: "http://127.0.0.1:9/hook" },
    });
    expect(hooks.status, hooks.text).toBe(200);
    if (engine === "postgres") {
      // api B and the worker, each with a store of its own.
      for (const roles of [["api"], ["worker"]] as const) {
        others.push(
          await startGateway({
            config: first.config,
            roles,
            clock: systemClock,
            logger: createLogger({ logLevel: "silent" }),
            checkAnswers: true,
            openApiAtStart: false,
          }),
        );
      }
      aggregator.apis = [first.url, others[0]!.url!];
    } else {
      aggregator.apis = [first.url];
    }
  }, 60_000);

  afterAll(async () => {
    for (const gateway of others) await gateway.stop();
    await first?.gateway.stop();
    await first?.db.drop();
    await aggregator.stop();
  });

  it(`applies the first (DELIVERED), never the later FAILED, for each of ${MESSAGES} messages`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < MESSAGES; i++) {
      const sent = await call(first, "POST", "/api/v2/sms/send", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { sender_id: "SWBRD", recipient: `98765${20000 + i}`, message: `Order ${i}` },
      });
      expect(sent.status, sent.text).toBe(200);
      ids.push(sent.body.data.message_id as string);
    }
    const { store } = first.db;
    // Every message final (a message left `submitted` shows in the assertion below).
    await until(async () => {
      const open = await store.db
        .selectFrom("messages")
        .select("id")
        .where("id", "in", ids)
        .where("status", "in", ["queued", "dispatching", "submitted"])
        .execute();
      return open.length === 0;
    }, 100_000).catch(() => undefined);
    // Every report was early and taken: the gateway answered each 200 before the send's answer.
    expect(aggregator.answers).toHaveLength(MESSAGES);
    for (const answer of aggregator.answers) {
      expect(
        [...answer.delivered, ...answer.failed].every((status) => status === 200),
        JSON.stringify(answer),
      ).toBe(true);
    }

    const rows = await store.db
      .selectFrom("messages")
      .select(["id", "status", "upstream_id", "error_code", "submitted_at", "done_at"])
      .where("id", "in", ids)
      .execute();
    const failed = rows.filter((row) => row.status !== "delivered");
    const kept = await store.db.selectFrom("early_reports").selectAll().execute();
    const hooks = await store.db
      .selectFrom("webhook_deliveries")
      .select(["payload", "event"])
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
    expect(
      { failed: failed.length, wrongHooks: wrongHooks.length, refunds: refunds.length },
      JSON.stringify({
        refunds: refunds.length,
        failed: failed.slice(0, 3),
        kept: kept.slice(0, 3),
        hooks: wrongHooks.slice(0, 3).map((id) => reported.get(id)),
      }),
    ).toEqual({ failed: 0, wrongHooks: 0, refunds: 0 });
    // Nothing is left kept once every message is final.
    await expect
      .poll(async () => (await store.db.selectFrom("early_reports").selectAll().execute()).length, {
        timeout: 15_000,
      })
      .toBe(0);
  }, 150_000);
});
