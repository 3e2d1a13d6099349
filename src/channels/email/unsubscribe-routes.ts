// One-click unsubscribe (RFC 8058, decision 0171). Public: /e/u/{message id}/{mac}, the URL each
// list-mail message names in List-Unsubscribe. POST (the mailbox provider's one-click, body
// List-Unsubscribe=One-Click, or the page's button) puts the recipient on the sending account's
// email suppression list and answers 200, again 200 when it is there already; GET only shows a
// page with that button (mail scanners fetch links: a GET changes nothing). A link that is not
// signed for its message is 404. v2: the account's list; operator: the list, and an address taken
// off it again (audited).
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { NullableString, pageAnswer, Time } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf } from "../../base/http/query-params.js";
import { operatorAnswer, operatorPage, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { actorOf } from "../../domain/auth/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import {
  listEmailSuppressions,
  removeEmailSuppression,
  unsubscribeRecipient,
  unsubscribeTarget,
} from "./suppressions.js";
import { type EmailTracker, UNSUBSCRIBE_PATH } from "./tracking.js";

const MESSAGE_ID = /^q[0-9A-HJKMNP-TV-Z]{26}$/;
const LinkParams = Type.Object({ id: Type.String({ maxLength: 64 }), mac: Type.String({ maxLength: 64 }) });

/** The page's headers: nothing but its own inline style, posting back to itself, never framed. */
const PAGE_HEADERS: Record<string, string> = {
  "content-security-policy":
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
  "x-robots-tag": "noindex",
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(reply: FastifyReply, status: number, title: string, body: string) {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title><style>body{font:16px/1.5 system-ui,sans-serif;margin:0;padding:2rem 1rem;color:#1b1b1b}main{max-width:32rem;margin:auto}button{font:inherit;padding:.5rem 1.25rem;cursor:pointer}</style></head><body><main><h1>${title}</h1>${body}</main></body></html>`;
  return reply.code(status).headers(PAGE_HEADERS).type("text/html; charset=utf-8").send(html);
}

function notValid(reply: FastifyReply) {
  return reply.code(404).headers(PAGE_HEADERS).type("text/plain; charset=utf-8").send("This link is not valid.");
}

/** What this file's public routes take from the gateway. */
type LinkDeps = Pick<Runtime, "store" | "clock"> & { emailTracker: EmailTracker; webhooks: WebhookOutbox };

/** GET and POST /e/u/{id}/{mac}: public, in a scope that reads any body (the one-click POST's form, or none). */
export async function registerUnsubscribeRoutes(app: FastifyInstance, ctx: LinkDeps): Promise<void> {
  await app.register(async (scope) => {
    // RFC 8058's POST is a form (urlencoded or multipart) saying List-Unsubscribe=One-Click: the
    // signed URL is what counts, so the body is read (up to 16 kB) and not looked at.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 16 * 1024 }, (_request, _body, done) =>
      done(null, undefined),
    );
    const route = { schema: { hide: true, params: LinkParams }, config: { public: true } };
    const valid = (request: FastifyRequest<{ Params: { id: string; mac: string } }>) =>
      MESSAGE_ID.test(request.params.id) && ctx.emailTracker.verifyUnsubscribe(request.params.id, request.params.mac);

    scope.get<{ Params: { id: string; mac: string } }>(
      `${UNSUBSCRIBE_PATH}/:id/:mac`,
      route,
      async (request, reply) => {
        if (!valid(request)) return notValid(reply);
        const target = await unsubscribeTarget(ctx.store.db, request.params.id);
        if (!target) return notValid(reply);
        const who = escapeHtml(target.recipient);
        const from = target.from ? ` from ${escapeHtml(target.from)}` : "";
        if (target.listed) {
          return page(reply, 200, "Unsubscribed", `<p>${who} is unsubscribed: no more list email${from}.</p>`);
        }
        return page(
          reply,
          200,
          "Unsubscribe",
          `<p>Stop list email${from} to ${who}?</p><form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
        );
      },
    );

    scope.post<{ Params: { id: string; mac: string } }>(
      `${UNSUBSCRIBE_PATH}/:id/:mac`,
      route,
      async (request, reply) => {
        if (!valid(request)) return notValid(reply);
        const outcome = await unsubscribeRecipient(ctx, request.params.id);
        if (!outcome) return notValid(reply);
        const target = await unsubscribeTarget(ctx.store.db, request.params.id);
        const from = target?.from ? ` from ${escapeHtml(target.from)}` : "";
        return page(
          reply,
          200,
          "Unsubscribed",
          `<p>${escapeHtml(target?.recipient ?? "This address")} is unsubscribed: no more list email${from}.</p>`,
        );
      },
    );
  });
}

const EmailSuppression = Type.Object(
  {
    address: Type.String({ description: "In lower case." }),
    reason: Type.String({ description: "list-unsubscribe: the recipient used a message's one-click link." }),
    message_id: NullableString({ description: "The message whose link it was." }),
    created_at: Time,
  },
  { title: "EmailSuppression" },
);
const EmailSuppressionRemoved = Type.Object({
  account: Type.String(),
  address: Type.String(),
  removed: Type.Boolean(),
});
const PageQuery = Type.Object(PAGE_PARAMS);

type ListDeps = Pick<Runtime, "store" | "clock">;

function describe(row: { address: string; reason: string; message_id: string | null; created_at: number }) {
  return { ...row, created_at: isoUtc(new Date(row.created_at)) };
}

/** GET /api/v2/email/suppressions: the account's list, newest first. */
export function registerV2EmailSuppressionRoutes(v2: TypedRoutes, ctx: ListDeps): void {
  v2.get(
    "/email/suppressions",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "listEmailSuppressions",
        summary: "Addresses that unsubscribed from the account's list email, newest first",
        tags: ["email"],
        querystring: PageQuery,
        response: { 200: pageAnswer(EmailSuppression) },
      },
    },
    async (request) => {
      const page = pageOf(request.query, 50, 500);
      const { rows, total } = await listEmailSuppressions(ctx.store.db, request.principal!.accountId, page);
      return { status: "success", data: rows.map(describe), meta: pageMeta(page, total) };
    },
  );
}

/** The operator's view of an account's list, and an address taken off it (audited). */
export function registerEmailSuppressionAdminRoutes(admin: TypedRoutes, ctx: ListDeps): void {
  const Username = { username: Type.String({ maxLength: 64 }) };
  admin.get(
    "/accounts/:username/email/suppressions",
    {
      schema: {
        summary: "An account's email suppression list, newest first",
        tags: ["operator"],
        params: Type.Object(Username),
        querystring: PageQuery,
        response: operatorPage(EmailSuppression),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const page = pageOf(request.query, 50, 500);
      const { rows, total } = await listEmailSuppressions(ctx.store.db, account.id, page);
      return { status: "success", data: rows.map(describe), meta: pageMeta(page, total) };
    },
  );

  admin.delete(
    "/accounts/:username/email/suppressions/:address",
    {
      schema: {
        summary: "Take an address off an account's email suppression list (the recipient asked to be mailed again)",
        tags: ["operator"],
        params: Type.Object({ ...Username, address: Type.String({ maxLength: 254 }) }),
        response: operatorAnswer(EmailSuppressionRemoved),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const row = await ctx.store.transaction(async (trx) => {
        const row = await removeEmailSuppression(trx, account.id, request.params.address);
        await recordChange(
          trx,
          { clock: ctx.clock, actor: actorOf(request) },
          {
            action: "email_suppression.remove",
            target: `email suppression list of ${account.username}`,
            accountId: account.id,
            before: { address: row.address, reason: row.reason, message_id: row.message_id },
          },
        );
        return row;
      });
      return { status: "success", data: { account: account.username, address: row.address, removed: true } };
    },
  );
}
