// The legacy HTTP family: plain-text answers and negative codes, served under /httpapi and
// /api/secure_api/httpapi with identical parameters, GET and POST (form).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { walletBalance } from "../accounts/index.js";
import type { AppContext } from "../app/context.js";
import { sendLegacyError } from "../app/http-errors.js";
import { authenticateLegacy, legacyParams } from "../auth/http.js";
import type { Principal } from "../auth/index.js";
import { fromMilli } from "../core/credits.js";

export const LEGACY_PREFIXES = ["/httpapi", "/api/secure_api/httpapi"] as const;

type LegacyHandler = (params: Record<string, string>, principal: Principal, request: FastifyRequest) => Promise<string>;

/** Registers a legacy call at `paths` for GET and POST; the handler returns the plain-text answer. */
export function legacyRoute(
  app: FastifyInstance,
  ctx: AppContext,
  paths: readonly string[],
  summary: string,
  handler: LegacyHandler,
) {
  const handle = async (request: FastifyRequest, reply: FastifyReply) => {
    try {
      const params = legacyParams(request);
      const principal = await authenticateLegacy(params, ctx.authenticator);
      const answer = await handler(params, principal, request);
      return reply.type("text/plain; charset=utf-8").send(answer);
    } catch (error) {
      return sendLegacyError(request, reply, error);
    }
  };
  for (const url of paths) {
    app.route({ method: ["GET", "POST"], url, schema: { summary, hide: true }, handler: handle });
  }
}

export async function registerLegacyRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  legacyRoute(app, ctx, ["/api/getcredits"], "SMS credit balance as a plain number", async (_params, principal) => {
    const balance = await walletBalance(ctx.store.db, principal.accountId, "sms");
    return String(fromMilli(balance));
  });
}
