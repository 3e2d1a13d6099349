// Delivery reports that an aggregator calls back with: `parseDlr` reads one callback as the
// connector's configuration describes it (where the id and status are, which statuses are
// final, the shared secret), and `registerHttpSmsDlrRoute` serves the callback URL.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { Type } from "typebox";
import { addressInRanges } from "../../../base/core/address-ranges.js";
import type { TypedRoutes } from "../../../base/http/typed-routes.js";
import { type DeliveryReport, REPORT_CODE_MAX_LENGTH, UPSTREAM_ID_MAX_LENGTH } from "../../../domain/messages/index.js";
import { scalarText, valueAtPath } from "./answer.js";
import type { HttpSmsConfig } from "./config.js";

export interface DlrRequest {
  method: string;
  /** The client's address (after TRUST_PROXY), checked against dlr.allowed_ips. */
  address: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  rawBody: Buffer;
}

export type DlrOutcome =
  /** `report` is null for an intermediate status (acknowledged, nothing to apply). */
  { ok: true; report: DeliveryReport | null } | { ok: false; status: 400 | 401 | 403; message: string };

/** Compares two secrets in constant time whatever their lengths (digests have equal ones). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (value: string) => createHash("sha256").update(value, "utf8").digest();
  return timingSafeEqual(digest(given), digest(expected));
}

function header(request: DlrRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

function verified(config: NonNullable<HttpSmsConfig["dlr"]>, request: DlrRequest): boolean {
  const secret = config.secret;
  if (!secret) return true;
  const given = header(request, secret.header);
  if (given === undefined) return false;
  if (secret.type === "header") return sameSecret(given, secret.value);
  const expected = createHmac("sha256", secret.secret).update(request.rawBody).digest("hex");
  return sameSecret(
    given
      .trim()
      .toLowerCase()
      .replace(/^sha256=/, ""),
    expected,
  );
}

function fields(config: NonNullable<HttpSmsConfig["dlr"]>, request: DlrRequest): ((path: string) => unknown) | string {
  if (config.source === "query") return (name) => request.query[name];
  const text = request.rawBody.toString("utf8");
  if (config.source === "form") {
    const form = new URLSearchParams(text);
    return (name) => form.get(name) ?? undefined;
  }
  try {
    const body: unknown = JSON.parse(text);
    return (path) => valueAtPath(body, path);
  } catch {
    return "The body is not JSON.";
  }
}

/** Reads one delivery-report callback of the aggregator `config` describes. */
export function parseDlr(config: HttpSmsConfig, request: DlrRequest, now: number = Date.now()): DlrOutcome {
  const dlr = config.dlr;
  if (!dlr) return { ok: false, status: 400, message: `${config.name} has no delivery-report callback configured.` };
  if (request.method.toUpperCase() !== dlr.method) {
    return { ok: false, status: 400, message: `Delivery reports of ${config.name} are ${dlr.method} requests.` };
  }
  if (dlr.allowed_ips && !addressInRanges(dlr.allowed_ips, request.address)) {
    return {
      ok: false,
      status: 403,
      message: `Delivery reports of ${config.name} are taken from its dlr.allowed_ips only, and ${request.address} is not one of them.`,
    };
  }
  if (!verified(dlr, request)) {
    return { ok: false, status: 401, message: `Missing or wrong ${dlr.secret?.header} header.` };
  }
  const read = fields(dlr, request);
  if (typeof read === "string") return { ok: false, status: 400, message: read };
  const first = (value: unknown) => scalarText(Array.isArray(value) ? value[0] : value);
  const upstreamId = first(read(dlr.id_field));
  const status = first(read(dlr.status_field));
  if (!upstreamId || status === undefined) {
    return { ok: false, status: 400, message: `${dlr.id_field} and ${dlr.status_field} are required.` };
  }
  // Bounded before anything is kept: an id is stored (and indexed) until its message comes.
  const code = dlr.error_code_field ? first(read(dlr.error_code_field)) : undefined;
  const tooLong = (
    [
      [dlr.id_field, upstreamId, UPSTREAM_ID_MAX_LENGTH],
      [dlr.status_field, status, REPORT_CODE_MAX_LENGTH],
      [dlr.error_code_field, code, REPORT_CODE_MAX_LENGTH],
    ] as const
  ).find(([, value, max]) => value !== undefined && value.length > max);
  if (tooLong) {
    const [field, , max] = tooLong;
    return { ok: false, status: 400, message: `${field} is longer than ${max} characters.` };
  }
  // A NUL cannot be stored (PostgreSQL refuses it): the carrier's report is malformed, said in its dialect.
  const withNul = (
    [
      [dlr.id_field, upstreamId],
      [dlr.status_field, status],
      [dlr.error_code_field, code],
    ] as const
  ).find(([, value]) => value?.includes("\u0000"));
  if (withNul) return { ok: false, status: 400, message: `${withNul[0]} contains a NUL character (U+0000).` };
  const delivered = dlr.delivered_values.includes(status);
  if (!delivered && !dlr.failed_values.includes(status)) return { ok: true, report: null };
  return {
    ok: true,
    report: {
      connector: config.name,
      upstreamId,
      status: delivered ? "delivered" : "failed",
      at: now,
      ...(delivered
        ? {}
        : {
            code: code ?? status,
            message: `${config.name} reported ${status}${code && code !== status ? ` with error ${code}` : ""}: the carrier did not deliver the message.`,
          }),
    },
  };
}

/** The callback's path names the connector; its query is the carrier's, whatever parameters it sends. */
const DlrParams = Type.Object({ name: Type.String() });
const DlrQuery = Type.Record(Type.String(), Type.Unknown());

/**
 * Serves GET and POST at `path`, which names the connector with `:name`
 * (e.g. /carriers/http-sms/:name/dlr). Bodies are kept raw for the HMAC check. A final report
 * goes to `sink`, and the answer waits for it: a sink that throws answers 500, so the
 * aggregator calls again. Unknown connector: 404; bad callback: 400; bad secret: 401; address not allowed: 403.
 */
export function registerHttpSmsDlrRoute(
  app: TypedRoutes,
  path: string,
  configsByName: ReadonlyMap<string, HttpSmsConfig> | ((name: string) => Promise<HttpSmsConfig | undefined>),
  sink: (reports: DeliveryReport[]) => void | Promise<void>,
): void {
  if (!path.includes(":name")) throw new Error(`The DLR route path must name the connector with :name (got ${path}).`);
  void app.register(async (scope: TypedRoutes) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 64 * 1024 }, (_request, body, done) =>
      done(null, body),
    );
    scope.route({
      method: ["GET", "POST"],
      url: path,
      schema: { hide: true, params: DlrParams, querystring: DlrQuery },
      handler: async (request, reply) => {
        const { name } = request.params;
        const config = typeof configsByName === "function" ? await configsByName(name) : configsByName.get(name);
        if (!config) return reply.code(404).type("text/plain").send(`No http-sms connector named ${name}.`);
        const outcome = parseDlr(config, {
          method: request.method,
          address: request.ip,
          query: request.query,
          headers: request.headers,
          rawBody: Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0),
        });
        if (!outcome.ok) {
          request.log.warn({ connector: name, status: outcome.status }, `http-sms DLR refused: ${outcome.message}`);
          return reply.code(outcome.status).type("text/plain").send(outcome.message);
        }
        if (outcome.report) await sink([outcome.report]);
        return reply.code(200).type("text/plain").send("OK");
      },
    });
  });
}
