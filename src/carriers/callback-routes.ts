// The delivery-report callbacks of http-sms aggregators, served by the API role:
// GET or POST /carriers/http-sms/{connector}/dlr. A report is answered 200 only once it is
// stored, so an aggregator whose callback failed calls again.

import type { FastifyInstance } from "fastify";
import { ReportIngester } from "../dispatch/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { WebhookOutbox } from "../webhooks/outbox.js";
import { CARRIERS_CHANGED, findCarrier } from "./catalog.js";
import type { HttpSmsDefinition } from "./definitions.js";
import type { HttpSmsConfig } from "./http-sms/index.js";
import { registerHttpSmsDlrRoute } from "./http-sms/index.js";
import { HTTP_SMS_DLR_PATH } from "./registry.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { webhooks: WebhookOutbox };

const CACHE_MS = 5_000;

export function registerCarrierCallbackRoutes(app: FastifyInstance, ctx: Deps): void {
  const reports = new ReportIngester(ctx);
  reports.start();
  const cache = new Map<string, { config: HttpSmsConfig | undefined; at: number }>();
  const unlisten = ctx.store.signals.listen(CARRIERS_CHANGED, () => cache.clear());
  app.addHook("onClose", async () => {
    unlisten();
    await reports.stop();
  });

  // A connector that is disabled still takes the reports of what it sent.
  const configOf = async (name: string): Promise<HttpSmsConfig | undefined> => {
    const cached = cache.get(name);
    if (cached && Date.now() - cached.at < CACHE_MS) return cached.config;
    const carrier = await findCarrier(ctx.store.db, name);
    let config: HttpSmsConfig | undefined;
    if (carrier?.type === "http-sms") {
      const { type: _type, ...rest } = carrier.definition as HttpSmsDefinition;
      config = rest;
    }
    cache.set(name, { config, at: Date.now() });
    return config;
  };
  registerHttpSmsDlrRoute(app, HTTP_SMS_DLR_PATH, configOf, (batch) => reports.pushAndWait(batch));
}
