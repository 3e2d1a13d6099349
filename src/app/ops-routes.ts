// Operations endpoints: liveness, readiness (the database answers, and Redis when it is
// required) and Prometheus metrics (behind METRICS_TOKEN when it is set).
import type { FastifyInstance, FastifyRequest } from "fastify";
import { GatewayError } from "../base/core/errors.js";
import { metricsText } from "../base/runtime/metrics.js";
import { sameSecret } from "../domain/auth/index.js";
import type { AppContext } from "./context.js";

/** How long /readyz waits for the database before it calls it down (a load balancer's probe is short). */
const DATABASE_PING_TIMEOUT_MS = 2_000;

async function databaseAnswers(ctx: AppContext): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), DATABASE_PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([ctx.store.ping(), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** The token of `Authorization: Bearer <token>`, if the request carries one. */
function bearerOf(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
}

export function registerOpsRoutes(app: FastifyInstance, ctx: AppContext, isReady: () => boolean): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));

  // Ready: not shutting down, the database answers, and Redis answers when REDIS_REQUIRED says
  // it must. An optional Redis that is down is reported but keeps the process in service: its
  // rate limits are counted in memory meanwhile.
  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const [database, redis] = await Promise.all([databaseAnswers(ctx), ctx.rateLimits.redisState()]);
    const ready = database && !(redis === "down" && ctx.config.redisRequired) && isReady();
    return reply.code(ready ? 200 : 503).send({
      status: ready ? "ready" : "not_ready",
      database: database ? "ok" : "down",
      ...(redis ? { redis } : {}),
      ...(isReady() ? {} : { stopping: true }),
    });
  });

  const token = ctx.config.metricsToken;
  app.get("/metrics", { schema: { hide: true } }, async (request, reply) => {
    if (token !== undefined) {
      const given = bearerOf(request);
      if (given === undefined || !sameSecret(given, token)) {
        reply.header("www-authenticate", 'Bearer realm="metrics"');
        throw new GatewayError("unauthorized", "/metrics needs Authorization: Bearer <METRICS_TOKEN>.");
      }
    }
    const body = await metricsText(ctx.metrics);
    return reply.type(ctx.metrics.registry.contentType).send(body);
  });
}
