// Assembles the HTTP server: shared plumbing (ids, logs, errors, docs, metrics) and each
// API family mounted under its prefixes.
import { randomUUID } from "node:crypto";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest, LogController } from "fastify";
import { GatewayError } from "../base/core/errors.js";
import { readAbsentBodyAsEmpty } from "../base/http/absent-body.js";
import { acceptUrlencoded } from "../base/http/body-text.js";
import { acceptFormData, FORM_BODY_LIMIT } from "../base/http/form-data.js";
import { flushRequestErrors, sendJsonError } from "../base/http/http-errors.js";
import { boundJsonNesting } from "../base/http/json-depth.js";
import { registerOpenApi } from "../base/http/openapi.js";
import { dropCacheBuster } from "../base/http/query-params.js";
import { registerEmailAdminRoutes, registerEmailRoutes } from "../channels/email/index.js";
import { firstInboundNumber, registerInboundAdminRoutes } from "../channels/inbound/index.js";
import { registerSmppAdminRoutes } from "../channels/smpp-server/index.js";
import { registerLegacyRoutes } from "../channels/sms/index.js";
import { registerVerifyAdminRoutes } from "../channels/verify/index.js";
import { registerVoiceAdminRoutes, registerVoiceRoutes, voiceCaller } from "../channels/voice/index.js";
import { registerMetaWebhookRoutes, registerWhatsAppAdminRoutes } from "../channels/whatsapp/index.js";
import { registerAlertAdminRoutes } from "../delivery/alerts/index.js";
import { registerCarrierAdminRoutes } from "../delivery/carriers/admin-routes.js";
import { registerCarrierCallbackRoutes } from "../delivery/carriers/callback-routes.js";
import { partsOfMessage } from "../delivery/carriers/smpp/index.js";
import { registerAdminRefusalRoutes } from "../domain/refusals/index.js";
import { registerWebhookAdminRoutes } from "../domain/webhooks/admin-routes.js";
import { labelAccess, type RouteAccess, requireAccess } from "./access.js";
import { registerAdminMessageRoutes, registerAdminRoutes } from "./admin/index.js";
import { registerAdminAnalyticsRoutes } from "./analytics-routes.js";
import { failChangedAnswers } from "./answer-check.js";
import { registerApiDocs } from "./api-docs.js";
import { registerAdminAuditRoutes } from "./audit-routes.js";
import { limitConnections } from "./connection-limits.js";
import {
  consolePages,
  registerInvitationRoutes,
  registerSessionRoutes,
  registerTwoFactorRoutes,
} from "./console/index.js";
import type { AppContext } from "./context.js";
import { collectDiscovery } from "./discovery.js";
import { registerOpsRoutes } from "./ops-routes.js";
import { captureRefusals } from "./refusal-capture.js";
import { createRequestLog } from "./request-log.js";
import { assignRouteScopes } from "./route-scopes.js";
import { compileSerializer, compileSerializerNow } from "./serializers.js";
import { registerShortLinkRoute } from "./short-link-route.js";
import { registerSystemRoutes } from "./system-routes.js";
import { drainUnreadBodies } from "./unread-body.js";
import { answerClientError, notFound, renderUnrouted } from "./unrouted.js";
import { registerStaffRoutes } from "./user-routes.js";
import { registerV2Family } from "./v2.js";
import { compileValidator, compileValidatorNow } from "./validators.js";

declare module "fastify" {
  interface FastifyContextConfig {
    /** Error envelope of a JSON route: `success` (SMS calls) or `status` (resource calls). */
    envelope?: "success" | "status";
    /** The route needs no credentials. */
    public?: boolean;
  }
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** Content-Encoding values that leave a body as it is. */
const IDENTITY = /^\s*(identity)?\s*$/i;

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

function unsupportedEncoding(encoding: string): GatewayError {
  return new GatewayError(
    "invalid_request",
    `Content-Encoding ${encoding.slice(0, 50)} is not accepted: send the body uncompressed (no Content-Encoding, or identity).`,
    { http: 415 },
  );
}

export type App = FastifyInstance;

declare module "fastify" {
  interface FastifyInstance {
    /** Every v2 and operator route with what it needs of a user's role (access.ts). */
    routeAccess: RouteAccess[];
  }
}

export interface ServerOptions {
  isReady?: () => boolean;
  /** false: only the operations endpoints (a worker process serving /healthz, /readyz, /metrics). */
  apis?: boolean;
  /** Tests: an answer its response schema would change fails with 500 (answer-check.ts). */
  checkAnswers?: boolean;
  /** The built console's directory (tests); dist/web otherwise. */
  consoleDir?: string;
  /**
   * Tests: false leaves the OpenAPI document to the first request for it, instead of building it
   * at start (a quarter of a test gateway's start, and few tests ask for it).
   */
  openApiAtStart?: boolean;
  /**
   * Tests: every route's validators and serializers compiled at start, so a schema that cannot
   * compile fails the start; otherwise each compiles at its first use (validators.ts).
   */
  schemasAtStart?: boolean;
}

export async function buildServer(ctx: AppContext, options: ServerOptions = {}): Promise<App> {
  // A whole request (headers and body) and its headers have this long to arrive: a client
  // trickling bytes holds a connection no longer (answered 408 by answerClientError).
  const requestTimeout = ctx.config.http.requestTimeoutSeconds * 1000;
  const headersTimeout = Math.min(ctx.config.http.headersTimeoutSeconds * 1000, requestTimeout);
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    // Fastify's two lines per request are replaced by one of ours (request-log.ts).
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024 * 1024,
    // genReqId reads and checks the header itself; Fastify would otherwise echo any value.
    requestIdHeader: false,
    genReqId: (request) => {
      const given = request.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Long ids reach the route schema (and its error in the family's dialect) instead of a bare 414.
    // A base URL ending in "/" (`http://host:8080/` + `/httpapi/send`) reaches its route, as behind nginx.
    routerOptions: {
      ignoreTrailingSlash: true,
      ignoreDuplicateSlashes: true,
      caseSensitive: false,
      maxParamLength: 1000,
    },
    keepAliveTimeout: 65_000,
    requestTimeout,
    // Node looks for late requests every connectionsCheckingInterval (30 s unless told): often
    // enough that a timeout is kept to within a quarter of itself (at most 5 s late).
    http: { headersTimeout, connectionsCheckingInterval: Math.min(5_000, Math.max(250, headersTimeout / 4)) },
    // Errors before routing (a badly encoded URL, a path too long) answer in the family's dialect too.
    frameworkErrors: (error, request, reply) => renderUnrouted(request, reply, error),
    // A request Node's parser refuses (a control character in a header) is answered in the
    // family's dialect too, not with Fastify's own JSON.
    clientErrorHandler: answerClientError,
    // Only the listed proxies' X-Forwarded-For and X-Forwarded-Proto are believed: request.ip
    // (login locks, logs) and request.protocol (the cookie's Secure) follow them.
    trustProxy: ctx.config.trustProxy ?? false,
  });
  limitConnections(
    app.server,
    { perAddress: ctx.config.http.connectionsPerAddress, max: ctx.config.http.connectionsMax },
    ctx.logger,
  );
  // First, so that they see every API route: the console's pages never take an API path, and
  // each keyed route gets the scope a key needs for it (route-scopes.ts).
  const pages = consolePages(app, ctx.logger);
  assignRouteScopes(app);
  app.setValidatorCompiler(options.schemasAtStart ? compileValidatorNow : compileValidator);
  app.setSerializerCompiler(options.schemasAtStart ? compileSerializerNow : compileSerializer);

  const isReady = options.isReady ?? (() => true);
  // The hooks every request runs are plain callbacks: an async hook costs a promise per request.
  app.addHook("onRequest", (request, reply, done) => {
    reply.header("x-request-id", request.id);
    // `?_=<timestamp>` (jQuery's cache-buster) is ignored on every GET, before any route checks its query.
    dropCacheBuster(request);
    // No browser may read an answer as another type than it says (a JSON error shown as HTML).
    reply.header("x-content-type-options", "nosniff");
    // A request no route serves is answered before its body is read (the console's pages are GETs).
    if (request.is404 && request.method !== "GET" && request.method !== "HEAD") {
      renderUnrouted(request, reply, notFound(request));
      return;
    }
    // A compressed body is not decoded: refused in the route's family's dialect, never read as
    // if it were plain (a gzip CSV read as one invalid row).
    const encoding = request.headers["content-encoding"];
    if (encoding !== undefined && !IDENTITY.test(encoding) && hasBody(request)) {
      done(unsupportedEncoding(encoding));
      return;
    }
    done();
  });
  // Shutting down: the answer to a request in flight on a kept-alive connection is its last,
  // so the connection ends and the shutdown does not wait for the client to close it.
  app.addHook("onSend", (_request, reply, payload, done) => {
    if (!isReady()) reply.header("connection", "close");
    done(null, payload);
  });
  drainUnreadBodies(app);
  if (options.checkAnswers) failChangedAnswers(app);
  const logRequest = createRequestLog(ctx.logger, ctx.config.shortLinkBase?.path);
  const durations = new Map<string, { observe(seconds: number): void }>();
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    const status = reply.statusCode;
    const key = `${request.method} ${status} ${route}`;
    let duration = durations.get(key);
    if (!duration) {
      duration = ctx.metrics.httpDuration.labels(request.method, route, String(status));
      // Routes are a fixed set; unmatched paths share "unmatched", so this stays small.
      durations.set(key, duration);
    }
    duration.observe(reply.elapsedTime / 1000);
    logRequest(request, reply);
    done();
  });
  // Refused sends of every HTTP family, to the log of refusals (refusal-capture.ts).
  app.addHook("onSend", captureRefusals(ctx.refusals));

  boundJsonNesting(app);
  readAbsentBodyAsEmpty(app);
  // Urlencoded forms read from their bytes in their declared charset, never as U+FFFD (body-text.ts).
  acceptUrlencoded(app, FORM_BODY_LIMIT);
  await registerOpenApi(app);
  await registerApiDocs(app);

  // An unknown path stays a 404 whatever body it carries.
  app.setErrorHandler((error, request, reply) =>
    request.is404 ? renderUnrouted(request, reply, notFound(request)) : sendJsonError(request, reply, error, "status"),
  );
  // What the count of identical failed requests still holds is written as the server closes.
  app.addHook("onClose", async () => flushRequestErrors(app.log));
  app.setNotFoundHandler((request, reply) => {
    if (!pages.answer(request, reply)) return renderUnrouted(request, reply, notFound(request));
  });

  registerOpsRoutes(app, ctx, isReady);
  if (options.apis === false) return app;
  collectDiscovery(app);
  app.get("/api/v2/openapi.json", { schema: { hide: true }, config: { public: true } }, async () => app.swagger());
  // The document is built once and kept; built at start, not by the first request that asks
  // (about 100 ms of one request's event loop, found by bench/fuzz's stall watchdog).
  if (options.openApiAtStart !== false) {
    app.addHook("onReady", async () => {
      app.swagger();
    });
  }

  app.decorate("routeAccess", []);
  await app.register(async (v2) => registerV2Family(v2, ctx, app.routeAccess), { prefix: "/api/v2" });
  await app.register(async (forms) => {
    // Form parameters urlencoded or multipart/form-data (base/http/form-data.ts).
    // A text field that is not UTF-8 is refused -8 by the call, after its caller is known (formNotUtf8).
    await acceptFormData(forms, FORM_BODY_LIMIT, { notUtf8: () => undefined });
    // The legacy send's route V places a call as the voice family does.
    await registerLegacyRoutes(forms, { ...ctx, voiceCall: voiceCaller(ctx) });
  });
  await registerVoiceRoutes(app, ctx);
  await registerMetaWebhookRoutes(app, ctx);
  await registerEmailRoutes(app, ctx);
  registerCarrierCallbackRoutes(app, ctx);
  await app.register(
    async (admin) => {
      // The operator API: admin/ owns its hooks (operator key, error dialect) and its routes;
      // each family adds its own operator routes under the same prefix.
      admin.addHook("onRoute", labelAccess("admin", "/admin/api", app.routeAccess));
      await registerAdminRoutes(admin, ctx);
      // After registerAdminRoutes' hook, which finds the caller.
      admin.addHook("preValidation", async (request) => requireAccess(request));
      registerStaffRoutes(admin, ctx);
      registerInboundAdminRoutes(admin, ctx);
      registerWebhookAdminRoutes(admin, { ...ctx, firstInboundNumber });
      registerWhatsAppAdminRoutes(admin, ctx);
      registerEmailAdminRoutes(admin, ctx);
      registerVoiceAdminRoutes(admin, ctx);
      registerVerifyAdminRoutes(admin, ctx);
      registerCarrierAdminRoutes(admin, ctx);
      registerAlertAdminRoutes(admin, ctx);
      registerSmppAdminRoutes(admin, ctx);
      registerSystemRoutes(admin, ctx);
      registerAdminRefusalRoutes(admin, ctx);
      registerAdminAuditRoutes(admin, ctx);
      // A message's timeline shows its SMPP parts (admin/ reads them through carriers/).
      registerAdminMessageRoutes(admin, { ...ctx, messageParts: partsOfMessage });
      registerAdminAnalyticsRoutes(admin, ctx);
    },
    { prefix: "/admin/api" },
  );
  await app.register(
    async (scope) => {
      await registerSessionRoutes(scope, ctx);
      registerInvitationRoutes(scope, ctx);
      await registerTwoFactorRoutes(scope, ctx);
    },
    { prefix: "/console" },
  );
  registerShortLinkRoute(app, ctx);
  await pages.register(options.consoleDir);

  return app;
}
