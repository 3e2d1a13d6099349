// Operations endpoints: liveness, readiness (the database answers) and Prometheus metrics.
import type { FastifyInstance } from "fastify";
import type { AppContext } from "./context.js";

export function registerOpsRoutes(app: FastifyInstance, ctx: AppContext, isReady: () => boolean): void {
  app.get("/healthz", { schema: { hide: true } }, async () => ({ status: "ok" }));

  app.get("/readyz", { schema: { hide: true } }, async (_request, reply) => {
    const database = await ctx.store.ping();
    const ready = database && isReady();
    return reply
      .code(ready ? 200 : 503)
      .send({ status: ready ? "ready" : "not_ready", database: database ? "ok" : "down" });
  });

  app.get("/metrics", { schema: { hide: true } }, async (_request, reply) => {
    const body = await ctx.metrics.registry.metrics();
    return reply.type(ctx.metrics.registry.contentType).send(body);
  });
}
