// v2's Verify API: POST /api/v2/verify (start), /verify/{id}/check, /resend, /cancel,
// GET /verify/{id}, GET /verify (filters from, to, status, recipient; newest first, a cursor),
// GET /verify/analytics (conversion per channel and country) and GET /verify/settings. Parse, call the Verifier, answer.
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { isVerificationId } from "../../base/core/ids.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { cursorLimit, queryWindow } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { VerificationStatus } from "../../base/store/schema.js";
import { verifyConversion } from "./analytics.js";
import type { VerificationFilter, VerificationRow } from "./rows.js";
import { listVerifications } from "./rows.js";
import {
  Verification,
  VerificationCheck,
  VerificationPage,
  VerificationStarted,
  VerifyAnalytics,
  VerifyCheckRequest,
  VerifyResendRequest,
  VerifySettingsAnswer,
  VerifyStartRequest,
} from "./schemas.js";
import { describeVerifySettings, type VerifyChannel, verifySettings } from "./settings.js";
import type { Verifier } from "./verifier.js";

type Deps = Pick<Runtime, "store"> & { verifier: Verifier };

const config = { envelope: "status" } as const;
const tags = ["verify"];
const Id = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });
const STATUSES: readonly VerificationStatus[] = ["pending", "approved", "denied", "expired", "cancelled"];
const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const ListQuery = Type.Object({
  status: text(20),
  recipient: text(320),
  from: text(40),
  to: text(40),
  limit: text(10),
  per_page: text(10),
  cursor: text(100),
});
export const VERIFY_LIMIT_DEFAULT = 50;
export const VERIFY_LIMIT_MAX = 500;

const ok = <T>(data: T) => ({ status: "success" as const, data });

export function describeVerification(row: VerificationRow) {
  return {
    verification_id: row.id,
    status: row.status,
    recipient: row.recipient,
    channel: row.channel as VerifyChannel,
    channels: row.channels.split(",") as VerifyChannel[],
    code_length: row.code_length,
    locale: row.locale,
    attempts: Number(row.attempts),
    message_id: row.message_id,
    created_at: isoUtc(new Date(Number(row.created_at))),
    expires_at: isoUtc(new Date(Number(row.expires_at))),
    last_sent_at: isoUtc(new Date(Number(row.last_sent_at))),
    done_at: row.done_at === null ? null : isoUtc(new Date(Number(row.done_at))),
  };
}

function knownId(id: string): string {
  if (!isVerificationId(id)) throw new GatewayError("not_found", `No verification with id "${id}" in this account.`);
  return id;
}

function listFilter(accountId: number, timeZone: string, query: Record<string, string | undefined>) {
  const given = (name: string) => query[name]?.trim() || undefined;
  const filter: VerificationFilter = { accountId, ...queryWindow((name) => given(name), timeZone) };
  const status = given("status");
  if (status !== undefined) {
    if (!(STATUSES as readonly string[]).includes(status)) {
      throw new GatewayError("invalid_request", `Query parameter "status" must be one of ${STATUSES.join(", ")}.`, {
        field: "status",
      });
    }
    filter.status = status as VerificationStatus;
  }
  const recipient = given("recipient");
  if (recipient !== undefined) filter.recipient = normalizeIndianMobile(recipient) ?? recipient;
  const cursor = given("cursor");
  if (cursor !== undefined && !isVerificationId(cursor)) {
    throw new GatewayError("invalid_request", 'Query parameter "cursor" is not a cursor this list gave.', {
      field: "cursor",
    });
  }
  return { filter, cursor, limit: cursorLimit(query, VERIFY_LIMIT_DEFAULT, VERIFY_LIMIT_MAX) };
}

export function registerV2VerifyRoutes(v2: TypedRoutes, ctx: Deps): void {
  const { verifier } = ctx;

  v2.post(
    "/verify",
    {
      config: { ...config, errors: [402, 403, 422, 429] },
      schema: {
        operationId: "startVerification",
        summary: "Send a one-time code to a recipient (charged as a send of its channel)",
        tags,
        body: VerifyStartRequest,
        response: { 200: resourceAnswer(VerificationStarted) },
      },
    },
    async (request) => {
      const body = request.body;
      const row = await verifier.start(request.principal!, {
        recipient: body.recipient,
        channel: body.channel,
        codeLength: body.code_length ?? 6,
        expirySeconds: body.expiry_seconds ?? 600,
        locale: body.locale,
        clientIp: body.client_ip,
      });
      return ok({
        verification_id: row.id,
        status: "pending" as const,
        channel: row.channel as VerifyChannel,
        expires_at: isoUtc(new Date(row.expires_at)),
      });
    },
  );

  v2.get(
    "/verify/settings",
    {
      config,
      schema: {
        operationId: "getVerifySettings",
        summary: "The account's verify settings (the operator sets them)",
        tags,
        response: { 200: resourceAnswer(VerifySettingsAnswer) },
      },
    },
    async (request) => ok(describeVerifySettings(await verifySettings(ctx.store.db, request.principal!.accountId))),
  );

  v2.get(
    "/verify",
    {
      config,
      schema: {
        operationId: "listVerifications",
        summary: "The account's verifications, newest first, with filters and a cursor",
        tags,
        querystring: ListQuery,
        response: { 200: VerificationPage },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const { filter, cursor, limit } = listFilter(principal.accountId, principal.timeZone, request.query);
      await verifier.expire({ accountId: principal.accountId });
      const page = await listVerifications(ctx.store.db, filter, limit, cursor);
      return {
        status: "success" as const,
        data: page.rows.map(describeVerification),
        meta: { limit, next_cursor: page.next ?? null },
      };
    },
  );

  v2.get(
    "/verify/analytics",
    {
      config,
      schema: {
        operationId: "getVerifyAnalytics",
        summary: "Conversion per channel and country: started, approved, rate, time to approve",
        tags,
        querystring: Type.Object({ from: text(40), to: text(40) }),
        response: { 200: resourceAnswer(VerifyAnalytics) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const window = queryWindow((name) => request.query[name]?.trim() || undefined, principal.timeZone);
      await verifier.expire({ accountId: principal.accountId });
      const { total, rows } = await verifyConversion(ctx.store.db, principal.accountId, window);
      return ok({
        from: window.from === undefined ? null : isoUtc(new Date(window.from)),
        to: window.to === undefined ? null : isoUtc(new Date(window.to)),
        total,
        by_channel_country: rows.map((row) => ({ ...row, channel: row.channel as VerifyChannel })),
      });
    },
  );

  v2.get(
    "/verify/:id",
    {
      config: { ...config, errors: [404] },
      schema: {
        operationId: "getVerification",
        summary: "One verification",
        tags,
        params: Id,
        response: { 200: resourceAnswer(Verification) },
      },
    },
    async (request) => ok(describeVerification(await verifier.get(request.principal!, knownId(request.params.id)))),
  );

  v2.post(
    "/verify/:id/check",
    {
      config: { ...config, errors: [404, 409] },
      schema: {
        operationId: "checkVerification",
        summary: "Check a code: approved once, denied after VERIFY_MAX_ATTEMPTS wrong ones",
        tags,
        params: Id,
        body: VerifyCheckRequest,
        response: { 200: resourceAnswer(VerificationCheck) },
      },
    },
    async (request) => ok(await verifier.check(request.principal!, knownId(request.params.id), request.body.code)),
  );

  v2.post(
    "/verify/:id/resend",
    {
      config: { ...config, errors: [402, 404, 409, 422, 429] },
      schema: {
        operationId: "resendVerification",
        summary: "Send the code again, by the next channel of the account's order unless one is named",
        tags,
        params: Id,
        body: Type.Optional(VerifyResendRequest),
        response: { 200: resourceAnswer(Verification) },
      },
    },
    async (request) =>
      ok(
        describeVerification(
          await verifier.resend(request.principal!, knownId(request.params.id), request.body?.channel),
        ),
      ),
  );

  v2.post(
    "/verify/:id/cancel",
    {
      config: { ...config, errors: [404, 409] },
      schema: {
        operationId: "cancelVerification",
        summary: "Cancel a pending verification",
        tags,
        params: Id,
        response: { 200: resourceAnswer(Verification) },
      },
    },
    async (request) => ok(describeVerification(await verifier.cancel(request.principal!, knownId(request.params.id)))),
  );
}
