// The email family: /httpemailapi/v1/send (recommended), /httpemailapiv2/send and
// /httpemailapi/send, GET and POST (query, form, or multipart with `attachment` files). The
// answer is plain text with HTTP 200: the broadcast id, or -7 (authentication failed), -11
// (validation failed: missing or bad field, unapproved sender, not enough email credits) or
// -14 (internal error). Also the tracking endpoints the pixel and the links point at, and the
// one-click unsubscribe (unsubscribe-routes.ts).

import multipart from "@fastify/multipart";
import type { FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { type ErrorCode, GatewayError } from "../../base/core/errors.js";
import { notUtf8Query, queryNotUtf8 } from "../../base/http/body-text.js";
import { MULTIPART_BOUNDARY } from "../../base/http/form-data.js";
import { noteRefusal, toGatewayError } from "../../base/http/http-errors.js";
import { ambiguityReason, ambiguousAmong, gatherParams, isJsonBody } from "../../base/http/param-bags.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import type { Authenticator } from "../../domain/auth/index.js";
import { admitCaller, authenticateLegacy } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import { leftOutOf } from "../../domain/refusals/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { recordEngagement } from "./events.js";
import { MAX_ATTACHMENT_BYTES, MAX_ATTACHMENTS, sendEmail, type UploadedFile } from "./send.js";
import type { EmailTracker } from "./tracking.js";
import { CLICK_PATH, OPEN_PATH } from "./tracking.js";
import { registerUnsubscribeRoutes } from "./unsubscribe-routes.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & {
  acceptor: AcceptService;
  prices: PriceBook;
  authenticator: Authenticator;
  emailTracker: EmailTracker;
  webhooks: WebhookOutbox;
};

export const EMAIL_SEND_PATHS = ["/httpemailapi/v1/send", "/httpemailapiv2/send", "/httpemailapi/send"] as const;

const AUTH_CODES: ReadonlySet<ErrorCode> = new Set([
  "missing_api_key",
  "missing_password",
  "unauthorized",
  "account_locked",
  "account_inactive",
  "insufficient_scope",
  "address_not_allowed",
]);
const VALIDATION_CODES: ReadonlySet<ErrorCode> = new Set([
  "invalid_request",
  "invalid_json",
  "insufficient_credits",
  "invalid_recipient",
  "recipient_opted_out",
]);

/** The email answer for an error: -7, -11, or -14 for anything unexpected. */
export function emailCode(error: GatewayError): number {
  if (AUTH_CODES.has(error.code)) return -7;
  if (VALIDATION_CODES.has(error.code)) return -11;
  return -14;
}

// A transparent 1×1 GIF.
const PIXEL = Buffer.from("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7", "base64");
const MESSAGE_ID = /^q[0-9A-HJKMNP-TV-Z]{26}$/;
/** A tracking link's message id and MAC, checked by the handler: a bad one still gets its pixel or 404. */
const TrackingParams = Type.Object({ id: Type.String(), mac: Type.String() });
/** The link's target as the query parser gives it (a name sent twice is a list): only a string can be the signed one. */
const ClickQuery = Type.Object({ u: Type.Optional(Type.Unknown()) });
/**
 * The largest multipart body: the attachments' 10 MB together plus 4 MiB for the fields and the
 * multipart framing (the form limit of the other families). A Content-Length over it is refused
 * before a byte of the body is read.
 */
export const MAX_MULTIPART_BYTES = MAX_ATTACHMENT_BYTES + 4 * 1024 * 1024;
/** After a refusal of a body too large to read, how long the connection lingers (so the answer reaches the client) before it is cut. */
const CUT_AFTER_MS = 500;
/** A refusal of a body too large (or of unknown length) to read: the connection is cut after the answer. */
const unreadable = new WeakSet<GatewayError>();

export async function registerEmailFamilyRoutes(app: TypedRoutes, ctx: Deps): Promise<void> {
  await app.register(async (scope) => {
    await scope.register(multipart, {
      limits: {
        fileSize: MAX_ATTACHMENT_BYTES,
        files: MAX_ATTACHMENTS + 1,
        fields: 50,
        fieldSize: 3 * 1024 * 1024,
        parts: 100,
      },
    });
    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const { params, ambiguous, files } = await readRequest(request);
        request.sendFields = params;
        const unclearLogin = repeatedField(ambiguous, false);
        if (unclearLogin) throw unclearLogin;
        const principal = await authenticateLegacy(params, ctx.authenticator, request.ip);
        request.principal = principal;
        admitCaller(request, principal);
        // A query escape that is not UTF-8 (`caf%E9`) was mailed as its escapes: -11, as such a form is
        // (after an account that is not active, whose -7 the send's checks answer first).
        const notUtf8 = principal.status === "active" ? queryNotUtf8(request.raw.url) : undefined;
        if (notUtf8 !== undefined) throw notUtf8Query(notUtf8);
        const repeated = repeatedField(ambiguous, principal.status === "active");
        if (repeated) throw repeated;
        const { broadcastId, leftOut } = await sendEmail(
          {
            store: ctx.store,
            clock: ctx.clock,
            acceptor: ctx.acceptor,
            prices: ctx.prices,
            allowPrivateWebhooks: ctx.config.allowPrivateWebhooks,
            address: request.ip,
          },
          principal,
          params,
          files,
        );
        if (leftOut.length > 0) request.leftOut = { broadcastId, recipients: leftOutOf(leftOut) };
        return answer(reply, broadcastId);
      } catch (error) {
        if (error instanceof GatewayError && unreadable.has(error)) cutAfterAnswer(request, reply);
        return refuse(request, reply, error);
      }
    };
    for (const url of EMAIL_SEND_PATHS) {
      scope.route({
        method: ["GET", "POST"],
        url,
        // A HEAD (a link checker, a monitor) must not send.
        exposeHeadRoute: false,
        schema: { summary: "Send an email; answers the broadcast id, -7 or -11", hide: true },
        handler: handle,
        // A body the server could not read (too large, not a form) is a validation failure.
        errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) =>
          refuse(
            request,
            reply,
            // A refusal of the body's own (text not UTF-8: base/http/body-text.ts) keeps its reason.
            isInternal(error) || error instanceof GatewayError
              ? error
              : new GatewayError("invalid_request", String(error)),
          ),
      });
    }
  });

  const open = { schema: { hide: true, params: TrackingParams }, config: { public: true } };
  app.get(`${OPEN_PATH}/:id/:mac`, open, async (request, reply) => {
    const { id, mac } = request.params;
    const token = mac.replace(/\.gif$/, "");
    if (MESSAGE_ID.test(id) && ctx.emailTracker.verifyOpen(id, token)) {
      await recordEngagement(ctx, id, "opened").catch((error: unknown) =>
        request.log.warn({ err: error }, "recording an email open failed"),
      );
    }
    // Always the pixel: a mail client shows nothing either way.
    return reply.header("cache-control", "no-store, max-age=0").type("image/gif").send(PIXEL);
  });

  const click = { schema: { hide: true, params: TrackingParams, querystring: ClickQuery }, config: { public: true } };
  app.get(`${CLICK_PATH}/:id/:mac`, click, async (request, reply) => {
    const { id, mac } = request.params;
    const url = request.query.u;
    if (typeof url !== "string" || !MESSAGE_ID.test(id) || !ctx.emailTracker.verifyClick(id, url, mac)) {
      // Only a link this gateway signed for this message redirects: no open redirect.
      return reply.code(404).type("text/plain; charset=utf-8").send("This link is not valid.");
    }
    await recordEngagement(ctx, id, "clicked", url).catch((error: unknown) =>
      request.log.warn({ err: error }, "recording an email click failed"),
    );
    return reply.header("cache-control", "no-store").redirect(url, 302);
  });

  await registerUnsubscribeRoutes(app, ctx);
}

/** The email parameters the spec writes comma-separated: given twice, or as a JSON array, they are one list. */
const LIST_FIELDS: ReadonlySet<string> = new Set(["to", "cc", "bcc"]);
const CREDENTIALS: ReadonlySet<string> = new Set(["api_key", "apikey", "username", "password"]);
/** Every other parameter the family reads: one value each (an address, a subject, a flag, …). */
const SINGLE_FIELDS: ReadonlySet<string> = new Set([
  "from",
  "subject",
  "html",
  "text",
  "replyto",
  "templateid",
  "defaultplaceholders",
  "trackopens",
  "trackclicks",
  "unsubscribe",
  "sendat",
  "notifyurl",
  "callbackdata",
]);

/**
 * The refusal of a parameter given twice with different values, or as a JSON array where one value
 * is read (base/http/param-bags.ts): -7 for a credential (no one login is named, none is tried),
 * else -11 once the caller is known (`known`).
 */
function repeatedField(ambiguous: readonly string[], known: boolean): GatewayError | undefined {
  const credential = ambiguousAmong(ambiguous, CREDENTIALS);
  if (credential !== undefined) return new GatewayError("unauthorized", ambiguityReason(credential));
  const field = known ? ambiguousAmong(ambiguous, SINGLE_FIELDS) : undefined;
  return field === undefined ? undefined : new GatewayError("invalid_request", ambiguityReason(field), { field });
}

async function readRequest(
  request: FastifyRequest,
): Promise<{ params: Record<string, string>; ambiguous: string[]; files: UploadedFile[] }> {
  const query = { values: request.query };
  if (!request.isMultipart()) {
    const body = { values: request.body, json: isJsonBody(request.headers["content-type"]) };
    return { ...gatherParams([query, body], LIST_FIELDS), files: [] };
  }
  // The multipart reader reads the socket itself, past Fastify's body limit: the length is
  // checked before a byte is read, and a body without one (chunked) is not read at all.
  const length = request.headers["content-length"];
  if (length === undefined) {
    throw tooLargeToRead("A multipart/form-data body needs a Content-Length.");
  }
  if (Number(length) > MAX_MULTIPART_BYTES) {
    throw tooLargeToRead(`A multipart/form-data body is at most ${MAX_MULTIPART_BYTES} bytes.`);
  }
  const boundary = MULTIPART_BOUNDARY.exec(request.headers["content-type"] ?? "")?.[1]?.replace(/^"|"$/g, "");
  if (!boundary) throw new GatewayError("invalid_request", "A multipart body needs a boundary in its Content-Type.");
  // The multipart reader takes a body cut short (or with no part at all) as a complete one.
  const closed = watchFor(request.raw, `--${boundary}--`);
  try {
    // Null prototype: a field named `constructor` or `__proto__` is a field, not Object's member.
    const fields: Record<string, string[]> = Object.create(null);
    const files = await readParts(request, fields);
    if (!closed()) throw new GatewayError("invalid_request", "The multipart body ends before its closing boundary.");
    return { ...gatherParams([query, { values: fields }], LIST_FIELDS), files };
  } catch (error) {
    // Stop parsing what is left: the refusal is decided (the rest is drained after the answer).
    request.raw.unpipe();
    // Everything the multipart reader throws (no boundary, a cut part, a limit) is about the body.
    if (error instanceof GatewayError) throw error;
    throw new GatewayError("invalid_request", `The multipart body cannot be read: ${(error as Error).message}`);
  }
}

function tooLargeToRead(message: string): GatewayError {
  const error = new GatewayError("invalid_request", message);
  unreadable.add(error);
  return error;
}

/**
 * After the answer to a body refused unread (no length, or over the limit), the connection is
 * cut: it cannot carry another request before the body's end, which may be gigabytes away. It
 * lingers a moment first, so that closing on unread bytes does not reset the answer away.
 */
function cutAfterAnswer(request: FastifyRequest, reply: FastifyReply): void {
  const socket = request.raw.socket;
  reply.raw.once("finish", () => setTimeout(() => socket.destroy(), CUT_AFTER_MS).unref());
}

/** Whether `marker` went by in the stream so far (across chunk edges). */
function watchFor(stream: NodeJS.ReadableStream, marker: string): () => boolean {
  const wanted = Buffer.from(marker);
  // The last marker-length-1 bytes seen: only a marker across the edge needs them.
  let carry = Buffer.alloc(0);
  let seen = false;
  const look = (chunk: Buffer) => {
    // The chunk is searched where it is: copying it (or all the bytes so far) into one buffer
    // at every chunk would cost a body's length again for each.
    const edge = Buffer.concat([carry, chunk.subarray(0, wanted.length - 1)]);
    if (edge.includes(wanted) || chunk.includes(wanted)) {
      seen = true;
      stream.off("data", look);
    }
    const tail = chunk.subarray(Math.max(0, chunk.length - wanted.length + 1));
    carry =
      tail.length >= wanted.length - 1
        ? Buffer.from(tail)
        : Buffer.concat([carry, tail]).subarray(-(wanted.length - 1));
  };
  stream.on("data", look);
  return () => {
    stream.off("data", look);
    return seen;
  };
}

/** The multipart body's files; its text fields go to `fields`, each name with every value it was given. */
async function readParts(request: FastifyRequest, fields: Record<string, string[]>): Promise<UploadedFile[]> {
  const files: UploadedFile[] = [];
  for await (const part of request.parts()) {
    const isAttachment = part.fieldname.toLowerCase().startsWith("attachment");
    if (part.type === "field") {
      // A part without a file name arrives as a field: it must not be dropped while the send is charged.
      if (isAttachment) {
        throw new GatewayError("invalid_request", `The ${part.fieldname} part has no file name; name the file.`, {
          field: "attachment",
        });
      }
      fields[part.fieldname] = [...(fields[part.fieldname] ?? []), String(part.value)];
      continue;
    }
    // A file over the limit stops the reading where it passes it, not at the file's end.
    part.file.once("limit", () =>
      part.file.destroy(
        new GatewayError("invalid_request", `An attachment is larger than ${MAX_ATTACHMENT_BYTES / 1024 / 1024} MB.`, {
          field: "attachment",
        }),
      ),
    );
    const content = await part.toBuffer();
    // An empty file input (no file chosen) is no attachment.
    if (part.filename === "" && content.length === 0) continue;
    if (!isAttachment) {
      throw new GatewayError("invalid_request", `Unexpected file field ${part.fieldname}; use attachment.`);
    }
    if (part.filename.trim() === "") {
      throw new GatewayError("invalid_request", `The ${part.fieldname} part has no file name; name the file.`, {
        field: "attachment",
      });
    }
    files.push({ filename: part.filename, contentType: part.mimetype || "application/octet-stream", content });
  }
  return files;
}

function answer(reply: FastifyReply, text: string) {
  return reply.code(200).type("text/plain; charset=utf-8").send(text);
}

function isInternal(error: unknown): boolean {
  const code = (error as { statusCode?: number }).statusCode;
  return typeof code === "number" && code >= 500;
}

function refuse(request: FastifyRequest, reply: FastifyReply, raw: unknown) {
  const error = toGatewayError(raw);
  noteRefusal(request, error);
  const code = emailCode(error);
  if (code === -14) request.log.error({ err: raw }, "email send failed");
  return answer(reply, String(code));
}
