// Answers to requests that reach no route: an unknown path, a path asked with a method it does
// not take (405 with Allow, from the server's route table), a URL Fastify cannot route, and a
// request Node's HTTP parser refuses before Fastify sees it (a control character in a header).
// Each is answered in the dialect of the family its path names: on the legacy paths the HTTP
// status with a plain-text explanation (no negative code: the URL or the request is what is
// wrong) and the same text in X-Error-Message (a HEAD has no body), elsewhere the JSON envelope
// (`success` under the v2 SMS calls, `status` otherwise).
import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { ConnectionError, FastifyReply, FastifyRequest } from "fastify";
import { GatewayError } from "../base/core/errors.js";
import {
  headerText,
  type JsonEnvelope,
  jsonErrorAnswer,
  sendJsonError,
  statusOf,
  toGatewayError,
} from "../base/http/http-errors.js";
import { timeoutRefusalOf } from "../base/http/timeout-refusal.js";

const LEGACY_PATH = /^\/(httpapi|api\/secure_api|xmlapi|api\/getcredits|voicecall|httpemailapi)/i;
const SMS_CALL_PATH = /^\/api\/v2\/(sms|balance|sender-ids)/i;

function envelopeOf(path: string): JsonEnvelope {
  return SMS_CALL_PATH.test(path) ? "success" : "status";
}

/** The methods a route can be asked with; OPTIONS and the rest have no route anywhere. */
const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The methods `path` is served with, from the server's route table (every family's routes, so no
 * list to keep): empty when no route has the path. A GET registered without its HEAD (a call that
 * sends: decision 0186) lists GET only.
 */
export function methodsOf(request: FastifyRequest, path: string): string[] {
  return METHODS.filter((method) => request.server.findRoute({ method, url: path }) !== null);
}

/**
 * What a request that reached no route is refused with: 405 naming the path's methods (its Allow
 * header) when the path exists, else 404. A HEAD of a GET that sends or writes runs nothing.
 */
export function notFound(request: FastifyRequest): GatewayError {
  const path = request.url.split("?")[0] ?? "";
  let allowed: string[] = [];
  try {
    allowed = methodsOf(request, path);
  } catch {
    // A path the router cannot read (a bad escape) has no route: 404.
  }
  if (allowed.length === 0) return new GatewayError("not_found", `No endpoint ${request.method} ${path}.`);
  const allow = allowed.join(", ");
  const message =
    request.method === "HEAD" && allowed.includes("GET")
      ? `HEAD runs nothing here: a GET of ${path} sends or writes, so it has no HEAD. Use ${allowed.join(" or ")}.`
      : `${request.method} is not taken on ${path}: it takes ${allow}.`;
  return new GatewayError("method_not_allowed", message, { allow });
}

/** An error outside any route (unknown path, unparsable URL), in the dialect of the path's family. */
export function renderUnrouted(request: FastifyRequest, reply: FastifyReply, raw: unknown) {
  const error = toGatewayError(raw);
  // RFC 9110 15.5.6: a 405 names the methods the path takes.
  if (error.code === "method_not_allowed" && typeof error.details?.allow === "string") {
    reply.header("allow", error.details.allow);
  }
  // `//httpapi/…` (a base URL ending in "/") is the legacy family's, as its routes take it.
  const url = request.url.replace(/^[^?]*/, (path) => path.replace(/\/{2,}/g, "/"));
  if (LEGACY_PATH.test(url)) {
    return reply
      .code(statusOf(error))
      .header("x-error-message", headerText(error.message))
      .type("text/plain; charset=utf-8")
      .send(error.message);
  }
  return sendJsonError(request, reply, raw, envelopeOf(url));
}

/** The path of the request line a refused packet starts with, or "" when there is none. */
function pathOf(packet: Buffer | undefined): string {
  const line = packet?.subarray(0, 8192).toString("latin1").split("\r\n", 1)[0] ?? "";
  return line.split(" ")[1] ?? "";
}

const CLIENT_ERRORS = new Map<string | undefined, [number, string]>([
  ["ERR_HTTP_REQUEST_TIMEOUT", [408, "The request did not arrive in time."]],
  ["HPE_HEADER_OVERFLOW", [431, "The request headers are larger than the gateway accepts."]],
]);

/**
 * Fastify's clientErrorHandler: a request Node's parser refused, answered on the socket in the
 * family's dialect (Fastify's own would be `{"error":"Bad Request","statusCode":400}`), then closed.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  // A reset connection has no one to answer.
  if (error.code === "ECONNRESET" || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS.get(error.code) ?? [
    400,
    "The request is not valid HTTP: a malformed request line or header.",
  ];
  // A route reading a long body may have named its own answer to the timeout (timeout-refusal.ts).
  const own = error.code === "ERR_HTTP_REQUEST_TIMEOUT" ? timeoutRefusalOf(socket) : undefined;
  // Node hands the bytes it refused as a Buffer (Fastify's type describes their JSON form).
  const path = own?.path ?? pathOf(error.rawPacket as unknown as Buffer | undefined);
  const refusal = own
    ? new GatewayError(own.error.code, own.error.message, { ...own.error.details, http: status })
    : new GatewayError("invalid_request", message, { http: status });
  const requestId = randomUUID();
  const [type, body] = LEGACY_PATH.test(path)
    ? ["text/plain; charset=utf-8", refusal.message]
    : ["application/json; charset=utf-8", JSON.stringify(jsonErrorAnswer(refusal, requestId, envelopeOf(path)))];
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
