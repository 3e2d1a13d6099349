// The delivery-report callbacks of http-sms aggregators, served by the API role:
// GET or POST /carriers/http-sms/{connector}/dlr. A report is answered 200 only once it is
// stored, so an aggregator whose callback failed calls again.

import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { ReportIngester } from "../dispatch/index.js";
import { CARRIERS_CHANGED, listCarriers } from "./catalog.js";
import type { HttpSmsDefinition } from "./definitions.js";
import { reportReasonOptions } from "./error-code-book.js";
import type { HttpSmsConfig } from "./http-sms/index.js";
import { callbackAuthentication, registerHttpSmsDlrRoute } from "./http-sms/index.js";
import { HTTP_SMS_DLR_PATH } from "./registry.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger" | "metrics"> & { webhooks: WebhookOutbox };

/** How long the configured connectors are used before they are read again (a change signals at once). */
const FRESH_MS = 5_000;

/**
 * The http-sms connectors, all read at once: a callback to a name of none answers 404 from it,
 * so that names tried by anyone cost neither a query nor memory.
 */
class ConfiguredConnectors {
  private configs: ReadonlyMap<string, HttpSmsConfig> = new Map();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<ReadonlyMap<string, HttpSmsConfig>> | undefined;
  /** Changes signalled so far: a read that began before one reads again. */
  private changes = 0;

  constructor(private readonly ctx: Deps) {}

  /** The connectors changed: read them again now (the gauge follows), and never use a read that began before. */
  changed(): void {
    this.changes += 1;
    this.readAt = Number.NEGATIVE_INFINITY;
    this.read().catch((error: unknown) =>
      this.ctx.logger.warn({ err: error }, "reading the http-sms connectors failed"),
    );
  }

  /** A disabled connector still takes the reports of what it sent. */
  async get(name: string): Promise<HttpSmsConfig | undefined> {
    if (Date.now() - this.readAt >= FRESH_MS) await this.read();
    return this.configs.get(name);
  }

  read(): Promise<ReadonlyMap<string, HttpSmsConfig>> {
    this.reading ??= this.readNow().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readNow(): Promise<ReadonlyMap<string, HttpSmsConfig>> {
    let startedAt: number;
    let changes: number;
    const configs = new Map<string, HttpSmsConfig>();
    do {
      startedAt = Date.now();
      changes = this.changes;
      configs.clear();
      for (const carrier of await listCarriers(this.ctx.store.db)) {
        if (carrier.type !== "http-sms") continue;
        const { type: _type, ...config } = carrier.definition as HttpSmsDefinition;
        configs.set(carrier.name, config);
      }
    } while (changes !== this.changes);
    this.configs = configs;
    this.readAt = startedAt;
    const gauge = this.ctx.metrics.carrierCallbacksUnauthenticated;
    for (const reason of ["legacy", "opted_out"] as const) {
      gauge.set({ reason }, [...configs.values()].filter((c) => callbackAuthentication(c) === reason).length);
    }
    return configs;
  }
}

export function registerCarrierCallbackRoutes(app: FastifyInstance, ctx: Deps): void {
  const reports = new ReportIngester({
    ...ctx,
    maxEarlyPerConnector: ctx.config.earlyReportsMaxPerConnector,
    ...reportReasonOptions(ctx),
  });
  reports.start();
  const connectors = new ConfiguredConnectors(ctx);
  const unlisten = ctx.store.signals.listen(CARRIERS_CHANGED, () => connectors.changed());
  // At every start: connectors stored before callbacks needed a secret or allowed addresses.
  app.addHook("onReady", async () => {
    const configs = await connectors.read().catch((error: unknown) => {
      ctx.logger.warn({ err: error }, "reading the http-sms connectors failed");
      return new Map<string, HttpSmsConfig>();
    });
    for (const config of configs.values()) {
      if (callbackAuthentication(config) !== "legacy") continue;
      ctx.logger.warn(
        { connector: config.name },
        "http-sms delivery-report callbacks are taken from anyone who reaches the URL, who can fail or deliver this connector's messages: set dlr.secret or dlr.allowed_ips (or dlr.unauthenticated: true to keep it so knowingly)",
      );
    }
  });
  app.addHook("onClose", async () => {
    unlisten();
    await reports.stop();
  });
  registerHttpSmsDlrRoute(
    app,
    HTTP_SMS_DLR_PATH,
    (name) => connectors.get(name),
    (batch) => reports.pushAndWait(batch),
  );
}
