// The v2 family: API-key auth for every route, errors in the v2 envelope.
import type { FastifyInstance } from "fastify";
import { registerV2AccountRoutes } from "../accounts/v2-routes.js";
import { authenticateV2 } from "../auth/http.js";
import { registerV2SmsRoutes } from "../sms/index.js";
import type { AppContext } from "./context.js";
import { sendJsonError } from "./http-errors.js";

export async function registerV2Family(v2: FastifyInstance, ctx: AppContext): Promise<void> {
  v2.setErrorHandler((error, request, reply) =>
    sendJsonError(request, reply, error, request.routeOptions.config.envelope ?? "status"),
  );
  v2.addHook("preValidation", async (request) => {
    if (request.routeOptions.config.public) return;
    await authenticateV2(request, ctx.authenticator);
  });
  registerV2SmsRoutes(v2, ctx);
  registerV2AccountRoutes(v2, ctx);
}
