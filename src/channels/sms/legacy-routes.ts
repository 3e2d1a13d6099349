// The legacy HTTP family: plain-text answers and negative codes, served under /httpapi and
// /api/secure_api/httpapi with identical parameters, GET and POST (form). Each call only
// translates: sends go through the same SmsPolicy and Acceptor as v2.

import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { publicStatus } from "../../base/core/message-status.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { localDayRange } from "../../base/core/time.js";
import { queryNotUtf8, urlencodedBodyOf } from "../../base/http/body-text.js";
import { describedFormError, FORM_BODY_LIMIT } from "../../base/http/form-data.js";
import { sendLegacyError } from "../../base/http/http-errors.js";
import { ambiguousAmong } from "../../base/http/param-bags.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { approvedTemplates, normalizeDltHeader, requestTemplate, walletBalance } from "../../domain/accounts/index.js";
import type { Authenticator, Principal } from "../../domain/auth/index.js";
import { actorOf, admitCaller, authenticateLegacy, inactiveAccount, legacyParams } from "../../domain/auth/index.js";
import { type AcceptService, listMessagesByOffset, recipientStatus } from "../../domain/messages/index.js";
import { leftOutOf } from "../../domain/refusals/index.js";
import { LEGACY_BEFORE_CALLER, LEGACY_PARAMETERS, notUtf8, repeatedParameter } from "./legacy-encoding.js";
import { inexactNumber, jsonScalarsAsText } from "./legacy-json.js";
import { legacyCallInput, legacySendInput } from "./legacy-send.js";
import type { SmsPolicy } from "./policy.js";
import { normalizeIndianMobile, normalizeInternational, withoutRepeats } from "./recipients.js";
import { MAX_XML_BYTES, parseXmlSend, XML_UNICODE_REMEDY, type XmlSend, xmlCredentials } from "./xml-send.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & {
  acceptor: AcceptService;
  authenticator: Authenticator;
  smsPolicy: SmsPolicy;
  /** The send's route V: one text-to-speech call (voice/'s, handed in by app/); its broadcast id. */
  voiceCall?: (principal: Principal, call: { from?: string; to?: string; text?: string }) => Promise<string>;
};

const LEGACY_PREFIXES = ["/httpapi", "/api/secure_api/httpapi"] as const;
const MAX_MIS_LIMIT = 1000;
/** Far past any account's messages, and within what both databases take as an offset. */
const MAX_MIS_OFFSET = 100_000_000;
/**
 * The mis report is the SMS API's: its rows carry broadcast ids the delivery report (/dlr) finds.
 * Voice calls are accepted like SMS (a legacy broadcast id, a phone number) and /dlr finds them;
 * WhatsApp rows carry a numeric id and email rows an address, so neither belongs here.
 */
const MIS_CHANNELS = ["sms", "voice"] as const;

/** A page parameter of mis: digits within [min, max]; `fallback` when absent or empty. */
function misPage(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  const text = value?.trim() ?? "";
  if (text === "") return fallback;
  const parsed = /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
  if (parsed >= min && parsed <= max) return parsed;
  throw new GatewayError("invalid_request", `Parameter "${name}" must be a whole number from ${min} to ${max}.`, {
    field: name,
  });
}

/** A legacy answer: plain text (a code, a broadcast id, a number), or a list served as JSON. */
type LegacyAnswer = string | { json: unknown[] };
type LegacyHandler<C> = (
  params: Record<string, string>,
  principal: Principal,
  context: C,
  /** The request itself, for an audit entry's actor (actorOf). */
  request: FastifyRequest,
) => Promise<LegacyAnswer>;
/** Finds the caller; may hand the handler something it parsed on the way (the XML document). */
type LegacyAuth<C> = (
  params: Record<string, string>,
  address: string,
  request: FastifyRequest,
) => Promise<{ principal: Principal; context: C }>;

declare module "fastify" {
  interface FastifyRequest {
    /** An XML send's document, once parsed: the log of refusals reads it (app/refusal-capture.ts). */
    xmlSend?: XmlSend;
  }
}

/** The legacy throttle: per account and second, separate from the v2 key rate. */
function legacyThrottle(ctx: Deps) {
  const perSecond = ctx.config.legacyThrottlePerSecond;
  if (perSecond === 0) return async (_principal: Principal) => undefined;
  const limiter = new RateLimiterMemory({ points: perSecond, duration: 1 });
  return async (principal: Principal) => {
    try {
      await limiter.consume(String(principal.accountId));
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new GatewayError("rate_limited", "Too many requests for this account; slow down.", {
          retry_after: Math.ceil(rejection.msBeforeNext / 1000),
        });
      }
      throw rejection;
    }
  };
}

/** A body this family does not read: refused in its own dialect (-8; -9 on XML), never read as no body. */
function unreadBody(contentType: string | undefined): GatewayError {
  return new GatewayError(
    "invalid_request",
    `${contentType ? `A ${contentType.slice(0, 100)} body` : "A body without a Content-Type"} is not read here: send the parameters in the query string or as a form (application/x-www-form-urlencoded or multipart/form-data); a JSON object (application/json) is read too.`,
    { http: 415 },
  );
}

export async function registerLegacyRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  const throttle = legacyThrottle(ctx);
  // Forms are this family's bodies, and a JSON object, which clients have relied on; any other
  // body (text/plain too, which Fastify would read as a string no parameter comes from) is
  // refused. An empty body of any type is no body: the query's parameters count.
  app.removeContentTypeParser("text/plain");
  // An urlencoded form is read here, so that a value whose escapes are not UTF-8 is known and refused.
  app.removeContentTypeParser("application/x-www-form-urlencoded");
  app.addContentTypeParser(
    "application/x-www-form-urlencoded",
    { parseAs: "buffer", bodyLimit: FORM_BODY_LIMIT },
    (request, body, done) => {
      // Its bytes, raw or escaped, in the charset it declares (UTF-8 unless ISO-8859-1 or Windows-1252).
      try {
        const { form, notUtf8 } = urlencodedBodyOf(request, body as Buffer);
        request.formNotUtf8 = notUtf8;
        done(null, form);
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    if ((body as Buffer).length === 0) done(null, undefined);
    else done(unreadBody(request.headers["content-type"]), undefined);
  });
  const policy = ctx.smsPolicy;

  const defaultAuth: LegacyAuth<undefined> = async (params, address) => ({
    principal: await authenticateLegacy(params, ctx.authenticator, address),
    context: undefined,
  });

  /**
   * Registers a legacy call at `paths` for GET and POST; the handler returns the plain-text answer
   * or a JSON list (templates, mis). Refusals are always a plain-text negative code.
   * An account that is not active (its own status or a parent's, decision 0148) is refused here,
   * -16 as the send's rules refuse it, before the handler runs (`doing` names what it cannot do in
   * X-Error-Message); only `anyStatus` (accountstatus, whose answer is that status) answers it.
   * `bodyError` renders a request the framework could not read (too large, not a form) in the
   * call's own dialect; without it such a request keeps the server's default answer.
   */
  function route<C = undefined>(
    paths: readonly string[],
    summary: string,
    handler: LegacyHandler<C>,
    options: {
      authenticate?: LegacyAuth<C>;
      bodyError?: (error: unknown) => GatewayError;
      anyStatus?: true;
      doing?: string;
      /** The call sends or writes: a HEAD must not run it, and answers 405 (decision 0186). */
      unsafe?: true;
    } = {},
  ) {
    const authenticate = options.authenticate ?? (defaultAuth as unknown as LegacyAuth<C>);
    const { bodyError } = options;
    const handle = async (request: FastifyRequest, reply: FastifyReply) => {
      try {
        const json = jsonScalarsAsText(request.body);
        request.body = json.body;
        const { params, ambiguous } = legacyParams(request);
        // Credentials (or XML documents) given twice with different values name no one login; other
        // parameters are refused once the caller is known, as text that is not UTF-8 is.
        const unclear = ambiguousAmong(ambiguous, LEGACY_BEFORE_CALLER);
        if (unclear !== undefined) throw repeatedParameter(unclear);
        const { principal, context } = await authenticate(params, request.ip, request);
        request.principal = principal;
        admitCaller(request, principal);
        if (principal.status !== "active" && !options.anyStatus) throw inactiveAccount(principal, options.doing);
        const notUtf8Name = queryNotUtf8(request.raw.url) ?? request.formNotUtf8;
        if (notUtf8Name !== undefined) throw notUtf8(notUtf8Name);
        const repeated = ambiguousAmong(ambiguous, LEGACY_PARAMETERS);
        if (repeated !== undefined) throw repeatedParameter(repeated);
        if (json.inexact !== undefined) throw inexactNumber(json.inexact);
        await throttle(principal);
        const answer = await handler(params, principal, context, request);
        if (typeof answer === "string") return reply.type("text/plain; charset=utf-8").send(answer);
        return reply.type("application/json; charset=utf-8").send(JSON.stringify(answer.json));
      } catch (error) {
        if (error instanceof GatewayError && error.code === "rate_limited") {
          reply.header("retry-after", String(error.details?.retry_after ?? 1));
        }
        return sendLegacyError(request, reply, error);
      }
    };
    for (const url of paths) {
      // A HEAD (a link checker, a monitor) answers as the GET would, without a body, where the call
      // only reads; where it sends or writes it has no route, and runs nothing: 405 with Allow
      // (decision 0186, app/unrouted.ts).
      app.route({
        method: options.unsafe ? ["GET", "POST"] : ["GET", "HEAD", "POST"],
        url,
        exposeHeadRoute: false,
        schema: { summary, hide: true },
        handler: handle,
        // Failures before the handler (body too large, unsupported type) answer in plain text too.
        errorHandler: (error: unknown, request: FastifyRequest, reply: FastifyReply) =>
          sendLegacyError(request, reply, bodyError ? bodyError(error) : describedFormError(error)),
      });
    }
  }
  const both = (path: string) => LEGACY_PREFIXES.map((prefix) => `${prefix}${path}`);

  /**
   * The broadcast id; the numbers left out (DND, invalid, given twice, …) go to the log of
   * refusals, the answer unchanged. A repeated number is sent and charged once.
   */
  const accept = async (request: FastifyRequest, principal: Principal, input: Parameters<SmsPolicy["decide"]>[1]) => {
    const { order, rejected } = await policy.decide(principal, input);
    const { kept, repeats } = withoutRepeats(order.drafts);
    order.drafts = kept;
    const outcome = await ctx.acceptor.accept(order);
    if (outcome.kind !== "accepted") throw new GatewayError("internal_error");
    const broadcastId = outcome.send.broadcastId;
    const leftOut = [...rejected, ...repeats];
    if (leftOut.length > 0) request.leftOut = { broadcastId, recipients: leftOutOf(leftOut) };
    return broadcastId;
  };

  route(["/api/getcredits"], "SMS credit balance as a plain number", async (_params, principal) => {
    const balance = await walletBalance(ctx.store.db, principal.accountId, "sms");
    return String(fromMilli(balance));
  });

  /** Route V: a text-to-speech call, charged to the voice wallet as the voice API's would be. */
  const callByVoice = async (params: Record<string, string>, principal: Principal) => {
    if (!ctx.voiceCall) throw new GatewayError("route_not_approved", "Route V (voice) is not available here.");
    return ctx.voiceCall(principal, legacyCallInput(params));
  };

  route(
    both("/send"),
    "Send SMS; answers the broadcast id or a negative code",
    async (params, principal, _context, request) =>
      params.route?.trim().toUpperCase() === "V"
        ? callByVoice(params, principal)
        : accept(request, principal, legacySendInput(params)),
    { doing: "send", unsafe: true },
  );

  route(
    both("/dlr"),
    "Delivery report of one number of a broadcast: delivered, submitted, failed or -15",
    async (params, principal) => {
      const broadcastId = params.broadcastid?.trim();
      const raw = params.phonenumber?.trim() ?? "";
      const mobile = normalizeIndianMobile(raw) ?? normalizeInternational(raw);
      // No broadcast id holds a NUL (PostgreSQL's text cannot): not found on both engines, as on v2.
      if (!broadcastId || broadcastId.includes("\u0000") || !mobile) throw new GatewayError("not_found");
      let window: { from: number; until: number } | undefined;
      if (params.date) {
        const range = localDayRange(params.date.trim(), principal.timeZone);
        if (!range) throw new GatewayError("not_found");
        window = { from: range[0].getTime(), until: range[1].getTime() };
      }
      const status = await recipientStatus(ctx.store.db, principal.accountId, broadcastId, mobile, window);
      if (!status) throw new GatewayError("not_found");
      if (status === "delivered") return "delivered";
      return status === "failed" || status === "cancelled" ? "failed" : "submitted";
    },
  );

  route(both("/templates"), "Approved templates as a JSON array", async (_params, principal) => {
    const rows = await approvedTemplates(ctx.store.db, principal.accountId);
    return {
      json: rows.map((row) => ({
        template_id: `${principal.accountId}_${row.id}`,
        template_name: row.name,
        template_message: row.content,
        dlt_template_id: row.dlt_template_id,
        sender_id: row.sender,
        status: row.status,
      })),
    };
  });

  route(
    both("/addtemplate"),
    "Create a template (pending approval); answers <user_id>_<template_id>",
    async (params, principal, _context, request) => {
      const sender = params.sender_id?.trim();
      if (!sender) throw new GatewayError("missing_sender_id");
      // Every parameter but notes is required; a missing one answers -6, as the template's text does.
      const required = (name: string) => {
        const value = params[name];
        if (!value?.trim()) throw new GatewayError("missing_message", `${name} is required.`);
        return value;
      };
      const name = required("template_name");
      const content = required("template_message");
      const dltTemplateId = required("dlt_template_id");
      // The header's shape first (-8): a malformed one is never looked up.
      const header = await policy.senders.requireApproved(principal, normalizeDltHeader(sender));
      // The same template asked for again answers the one the account has (its id).
      const { row } = await requestTemplate(ctx.store, ctx.clock, principal.accountId, actorOf(request), {
        name,
        content,
        dltTemplateId,
        sender: header,
        notes: params.notes ?? null,
      });
      return `${principal.accountId}_${row.id}`;
    },
    { unsafe: true },
  );

  route(
    both("/accountstatus"),
    "Account status: active, inactive or blocked",
    async (_params, principal) => principal.status,
    { anyStatus: true },
  );

  route(both("/mis"), "Message records, newest first, as a JSON array", async (params, principal) => {
    // A bad page is refused (-8, X-Error-Message names the parameter), never read as the default.
    const limit = misPage(params.limit, "limit", 100, 1, MAX_MIS_LIMIT);
    const offset = misPage(params.offset, "offset", 0, 0, MAX_MIS_OFFSET);
    const sender = params.sender_id?.trim() ? params.sender_id.trim().toUpperCase() : undefined;
    refuseNul(sender, "Parameter sender_id", "sender_id");
    const rows = await listMessagesByOffset(ctx.store.db, principal.accountId, {
      channels: MIS_CHANNELS,
      sender,
      limit,
      offset,
    });
    return {
      json: rows.map((row) => ({
        message_id: row.id,
        broadcast_id: row.broadcast_id,
        mobile: row.recipient,
        sender_id: row.sender,
        message: row.body,
        route: row.route,
        status: publicStatus(row.status),
        credits: fromMilli(row.credits),
        created_at: isoUtc(new Date(row.created_at)),
        sent_time: row.submitted_at === null ? null : isoUtc(new Date(row.submitted_at)),
        delivery_time: row.status === "delivered" && row.done_at !== null ? isoUtc(new Date(row.done_at)) : null,
        error_code: row.status === "failed" ? row.error_code : null,
      })),
    };
  });

  // The XML API: one broadcast for the whole document; credentials inside it, or beside it.
  route<XmlSend>(
    ["/xmlapi/send"],
    "Send SMS from an XML document in the form field xmlstring",
    async (_params, principal, doc, request) =>
      accept(request, principal, {
        senderId: doc.senderId,
        recipients: [],
        items: doc.messages,
        route: doc.route ?? "T",
        unicodeRemedy: XML_UNICODE_REMEDY,
      }),
    {
      doing: "send",
      unsafe: true,
      authenticate: async (params, address, request) => {
        const doc = await parseXmlSend(params.xmlstring);
        request.xmlSend = doc;
        const credentials = xmlCredentials(doc, params);
        return { principal: await authenticateLegacy(credentials, ctx.authenticator, address), context: doc };
      },
      // The document arrives in a form field: a body over the form limit is an oversized document,
      // and a body that is not a form (raw text/xml) carries no xmlstring.
      bodyError: (error) =>
        new GatewayError(
          "malformed_xml",
          (error as { code?: string }).code === "FST_ERR_CTP_BODY_TOO_LARGE"
            ? `Malformed XML received: the document is larger than ${MAX_XML_BYTES} bytes.`
            : "Malformed XML received: send the document in the form field xmlstring (application/x-www-form-urlencoded).",
        ),
    },
  );
}
