// One log line per answered request (method, route, status, latency, account, request id), and
// a warning when one address keeps failing to authenticate. Probes and scrapes of the
// operations endpoints are debug lines: a load balancer's health checks would drown the rest.
import type { FastifyReply, FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { EpisodeLog } from "../base/core/episodes.js";
import { REDACTED, scrubUrl } from "../base/runtime/logging.js";

const OPERATIONS = new Set(["/healthz", "/readyz", "/metrics"]);
/** Failed authentications from one address, within a quiet gap, that make a warning. */
const AUTH_FAILURES_WARNED = 10;
const AUTH_FAILURES_QUIET_MS = 5 * 60_000;

/**
 * The email's unsubscribe, open and click links (/e/u/, /e/o/, /e/c/ + message id + mac): whoever
 * holds one may act on it, so the mac and what follows (the click's target) are not logged.
 */
const EMAIL_CAPABILITY = /^(\/e\/[uoc]\/[^/?#]*\/)[\s\S]*$/i;

/** The URL as logged: credentials out (scrubUrl), and the capability part of a capability URL replaced. */
export function loggedUrl(url: string, shortLinkPath: string | undefined): string {
  const email = EMAIL_CAPABILITY.exec(url);
  if (email) return `${email[1]}${REDACTED}`;
  // A short link's code is the link: whoever has it reaches (and counts a click on) the target.
  if (shortLinkPath && url.toLowerCase().startsWith(`${shortLinkPath.toLowerCase()}/`)) {
    return `${url.slice(0, shortLinkPath.length)}/${REDACTED}`;
  }
  return scrubUrl(url);
}

declare module "fastify" {
  interface FastifyRequest {
    /**
     * What the request was refused with (catalogue code, the HTTP status that code stands for, and
     * why; `upline`: the wallet that was short, own or an ancestor's, never answered, GatewayError.upline;
     * `item`: the message of an XML document refused, GatewayError.item).
     */
    refusal?: {
      code: string;
      status: number;
      message?: string;
      upline?: { reason: string; level: number };
      item?: { position: number; recipient: string };
    };
  }
  interface FastifyContextConfig {
    /**
     * A 401 of this route asks "who is signed in?" and presents no credentials (the console's
     * signed-out check): it is not a failed authentication and makes no warning.
     */
    asksWhoIsSignedIn?: boolean;
  }
}

/** `shortLinkPath`: the path of SHORT_LINK_BASE (/l), whose codes are not logged. */
export function createRequestLog(logger: Pick<Logger, "warn" | "info" | "isLevelEnabled">, shortLinkPath?: string) {
  const authFailures = new EpisodeLog(logger, { quietMs: AUTH_FAILURES_QUIET_MS, threshold: AUTH_FAILURES_WARNED });
  return (request: FastifyRequest, reply: FastifyReply): void => {
    const route = request.routeOptions.url ?? "unmatched";
    const status = reply.statusCode;
    const refusal = request.refusal;
    // Unknown only for a connection gone before its address was read.
    const ip = request.ip ?? "unknown";
    // A probe is a debug line even when it answers 503: a load balancer probing every 2 s would
    // fill the error log for a whole outage, which the outage's own warning already reports.
    const level = OPERATIONS.has(route) ? "debug" : status >= 500 ? "error" : "info";
    // 401 in the catalogue: the legacy families answer it as HTTP 200 with -1, -2 or -7.
    if ((refusal?.status ?? status) === 401 && !request.routeOptions.config.asksWhoIsSignedIn) {
      authFailures.occurred(
        ip,
        `repeated authentication failures from ${ip}: a misconfigured client, or someone guessing credentials`,
        { ip, route, ...(refusal ? { code: refusal.code } : {}) },
      );
    }
    // At LOG_LEVEL=warn a busy gateway writes no request lines: build none either.
    if (!logger.isLevelEnabled(level)) return;
    // Under one key, so they name nothing else a log line carries (and Fastify's req and res
    // serializers leave them alone).
    const line = {
      http: {
        method: request.method,
        route,
        url: loggedUrl(request.url, shortLinkPath),
        status,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        ip,
        ...(request.principal ? { account: request.principal.username } : {}),
        ...(refusal ? { code: refusal.code } : {}),
      },
    };
    request.log[level](line, `${request.method} ${route} ${status}`);
  };
}
