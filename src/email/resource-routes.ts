// Email resources. v2 (the account's API key): sending domains with their DKIM record,
// stored templates, and the per-recipient status of a send. Operator (/admin/api): an
// account's domains and their approval, and the simulator's captured inbox.

import { Type } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import { APPROVAL_STATUSES, requireAccount } from "../accounts/index.js";
import { isoUtc } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import { pageMeta, pageOf, pathId } from "../http/query-params.js";
import type { TypedRoutes } from "../http/typed-routes.js";
import { pageAnswer, resourceAnswer } from "../http/v2-answers.js";
import { emailSendMessages } from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { Db } from "../store/store.js";
import {
  addEmailDomain,
  describeEmailDomain,
  listEmailDomains,
  removeEmailDomain,
  setEmailDomainStatus,
} from "./domains.js";
import { getCaptured, listCaptured } from "./simulator.js";
import {
  createEmailTemplate,
  deleteEmailTemplate,
  describeEmailTemplate,
  getEmailTemplate,
  listEmailTemplates,
  MAX_TEMPLATE_HTML,
  updateEmailTemplate,
} from "./templates.js";
import {
  EmailDomain,
  EmailDomainDeletion,
  EmailSendStatus,
  EmailTemplate,
  EmailTemplateDeletion,
} from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const tags = ["email"];
const iso = (ms: number) => isoUtc(new Date(ms));
const ok = (data: unknown) => ({ status: "success", data });
const DomainBody = Type.Object(
  { domain: Type.String({ minLength: 3, maxLength: 253 }) },
  { additionalProperties: false, title: "EmailDomainRequest" },
);
const TemplateFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  subject: Type.String({ minLength: 1, maxLength: 998 }),
  html: Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_HTML }),
  text: Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEMPLATE_HTML }), Type.Null()])),
};
const PageQuery = Type.Object({
  per_page: Type.Optional(Type.String({ maxLength: 20 })),
  page: Type.Optional(Type.String({ maxLength: 20 })),
});

function templateId(raw: string): number {
  const id = pathId(raw);
  if (id === undefined) throw new GatewayError("not_found", `No email template ${raw.slice(0, 40)} in this account.`);
  return id;
}

export function registerV2EmailRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const accountOf = (request: FastifyRequest) => request.principal!.accountId;

  v2.get(
    "/email/domains",
    {
      config: resource,
      schema: {
        operationId: "listEmailDomains",
        summary: "Sending domains and their DKIM records",
        tags,
        response: { 200: resourceAnswer(Type.Array(EmailDomain)) },
      },
    },
    async (request) => ok((await listEmailDomains(db, accountOf(request))).map((row) => describeEmailDomain(row, iso))),
  );

  v2.post(
    "/email/domains",
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "addEmailDomain",
        summary: "Ask for a sending domain (pending until an operator approves it)",
        tags,
        body: DomainBody,
        response: { 201: resourceAnswer(EmailDomain) },
      },
    },
    async (request, reply) => {
      const row = await addEmailDomain(db, ctx.clock, accountOf(request), request.body.domain);
      return reply.code(201).send(ok(describeEmailDomain(row, iso)));
    },
  );

  v2.delete(
    "/email/domains/:domain",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "removeEmailDomain",
        response: { 200: resourceAnswer(EmailDomainDeletion) },
        summary: "Remove a sending domain",
        tags,
        params: Type.Object({ domain: Type.String({ maxLength: 253 }) }),
      },
    },
    async (request) => {
      const { domain } = request.params;
      await removeEmailDomain(db, accountOf(request), domain);
      return ok({ domain, deleted: true });
    },
  );

  v2.get(
    "/email/templates",
    {
      config: resource,
      schema: {
        operationId: "listEmailTemplates",
        summary: "Stored email templates, oldest first, paginated",
        tags,
        querystring: PageQuery,
        response: { 200: pageAnswer(EmailTemplate) },
      },
    },
    async (request) => {
      const page = pageOf(request.query, 25, 100);
      const { rows, total } = await listEmailTemplates(db, accountOf(request), page);
      return { ...ok(rows.map((row) => describeEmailTemplate(row, iso))), meta: pageMeta(page, total) };
    },
  );

  v2.post(
    "/email/templates",
    {
      config: resource,
      schema: {
        operationId: "createEmailTemplate",
        summary: "Store a template: {{name}} placeholders (HTML-escaped in html; {{{name}}} raw)",
        tags,
        body: Type.Object(TemplateFields, { additionalProperties: false, title: "EmailTemplateRequest" }),
        response: { 201: resourceAnswer(EmailTemplate) },
      },
    },
    async (request, reply) => {
      const row = await createEmailTemplate(db, ctx.clock, accountOf(request), request.body);
      return reply.code(201).send(ok(describeEmailTemplate(row, iso)));
    },
  );

  const IdParams = Type.Object({ id: Type.String({ maxLength: 20 }) });
  v2.get(
    "/email/templates/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getEmailTemplate",
        summary: "One email template",
        tags,
        params: IdParams,
        response: { 200: resourceAnswer(EmailTemplate) },
      },
    },
    async (request) => {
      const id = templateId(request.params.id);
      const row = await getEmailTemplate(db, accountOf(request), id);
      if (!row) throw new GatewayError("not_found", `No email template ${id} in this account.`);
      return ok(describeEmailTemplate(row, iso));
    },
  );

  v2.put(
    "/email/templates/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "updateEmailTemplate",
        response: { 200: resourceAnswer(EmailTemplate) },
        summary: "Change an email template",
        tags,
        params: IdParams,
        body: Type.Object(
          {
            name: Type.Optional(TemplateFields.name),
            subject: Type.Optional(TemplateFields.subject),
            html: Type.Optional(TemplateFields.html),
            text: TemplateFields.text,
          },
          { additionalProperties: false, title: "EmailTemplateChange" },
        ),
      },
    },
    async (request) => {
      const id = templateId(request.params.id);
      return ok(
        describeEmailTemplate(await updateEmailTemplate(db, ctx.clock, accountOf(request), id, request.body), iso),
      );
    },
  );

  v2.delete(
    "/email/templates/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "deleteEmailTemplate",
        summary: "Delete an email template",
        tags,
        params: IdParams,
        response: { 200: resourceAnswer(EmailTemplateDeletion) },
      },
    },
    async (request) => {
      const id = templateId(request.params.id);
      await deleteEmailTemplate(db, accountOf(request), id);
      return ok({ id, deleted: true });
    },
  );

  v2.get(
    "/email/status/:broadcastId",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getEmailStatus",
        response: { 200: resourceAnswer(EmailSendStatus) },
        summary: "Every recipient of an email send: status, bounce reason, opens and clicks",
        tags,
        params: Type.Object({ broadcastId: Type.String({ maxLength: 64 }) }),
      },
    },
    async (request) => {
      const { broadcastId } = request.params;
      const recipients = await sendStatus(db, accountOf(request), broadcastId);
      if (recipients.length === 0) throw new GatewayError("not_found", `No email send ${broadcastId} in this account.`);
      return ok({ broadcast_id: broadcastId, recipients });
    },
  );
}

async function sendStatus(db: Db, accountId: number, broadcastId: string) {
  const messages = await emailSendMessages(db, accountId, broadcastId);
  if (messages.length === 0) return [];
  const events = await db
    .selectFrom("email_events")
    .select(["message_id", "kind", "detail", "at"])
    .where(
      "message_id",
      "in",
      messages.map((m) => m.id),
    )
    .orderBy("id")
    .execute();
  // Grouped once: a send has up to 1,000 recipients, each with any number of opens and clicks.
  const byMessage = new Map<string, typeof events>();
  for (const event of events) {
    const list = byMessage.get(event.message_id);
    if (list) list.push(event);
    else byMessage.set(event.message_id, [event]);
  }
  return messages.map((m) => {
    const mine = byMessage.get(m.id) ?? [];
    const status =
      m.status === "dispatching"
        ? "queued"
        : m.status === "failed"
          ? "bounced"
          : m.status === "submitted"
            ? "sent"
            : m.status;
    return {
      message_id: m.id,
      email: m.recipient,
      kind: (JSON.parse(m.meta ?? "{}") as { kind?: string }).kind ?? "to",
      status,
      reason: m.status === "failed" ? m.error_message : null,
      scheduled_for: m.status === "scheduled" ? iso(m.due_at) : null,
      sent_at: m.submitted_at === null ? null : iso(m.submitted_at),
      opens: mine.filter((e) => e.kind === "opened").length,
      clicks: mine.filter((e) => e.kind === "clicked").map((e) => ({ url: e.detail, at: iso(e.at) })),
    };
  });
}

export function registerEmailAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const Username = { username: Type.String({ maxLength: 64 }) };
  const account = async (username: string) => (await requireAccount(db, username)).id;
  const operatorIso = (ms: number) => new Date(ms).toISOString();

  admin.get(
    "/accounts/:username/email/domains",
    { schema: { summary: "An account's sending domains", tags: ["operator"], params: Type.Object(Username) } },
    async (request) =>
      ok(
        (await listEmailDomains(db, await account(request.params.username))).map((r) =>
          describeEmailDomain(r, operatorIso),
        ),
      ),
  );

  admin.post(
    "/accounts/:username/email/domains",
    {
      schema: {
        summary: "Add a sending domain to an account (approve: true to approve it at once)",
        tags: ["operator"],
        params: Type.Object(Username),
        body: Type.Object(
          { domain: Type.String({ minLength: 3, maxLength: 253 }), approve: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const row = await addEmailDomain(db, ctx.clock, await account(request.params.username), body.domain, {
        approve: body.approve === true,
      });
      return reply.code(201).send(ok(describeEmailDomain(row, operatorIso)));
    },
  );

  admin.put(
    "/accounts/:username/email/domains/:domain",
    {
      schema: {
        summary: "Approve or reject a sending domain",
        tags: ["operator"],
        params: Type.Object({ ...Username, domain: Type.String({ maxLength: 253 }) }),
        body: Type.Object(
          { status: Type.Union(APPROVAL_STATUSES.map((s) => Type.Literal(s))) },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => {
      const { domain } = request.params;
      const { status } = request.body;
      return ok(
        describeEmailDomain(
          await setEmailDomainStatus(db, ctx.clock, await account(request.params.username), domain, status),
          operatorIso,
        ),
      );
    },
  );

  admin.get(
    "/email/inbox",
    {
      schema: {
        summary: "The simulator's captured inbox, newest first (every account, or ?account=<username>)",
        tags: ["operator"],
        querystring: Type.Object({
          account: Type.Optional(Type.String({ maxLength: 64 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          before_id: Type.Optional(Type.Integer({ minimum: 1 })),
        }),
      },
    },
    async (request) => {
      const query = request.query;
      const accountId = query.account ? (await requireAccount(db, query.account)).id : undefined;
      const rows = await listCaptured(db, accountId, { limit: query.limit ?? 50, beforeId: query.before_id });
      return ok(rows.map((row) => ({ ...row, created_at: operatorIso(row.created_at) })));
    },
  );

  admin.get(
    "/email/inbox/:id",
    {
      schema: {
        summary: "One captured message with its raw source (RFC 5322)",
        tags: ["operator"],
        params: Type.Object({ id: Type.Integer({ minimum: 1 }) }),
      },
    },
    async (request) => {
      const row = await getCaptured(db, request.params.id);
      if (!row) throw new GatewayError("not_found", "No such captured message.");
      return ok({ ...row, created_at: operatorIso(row.created_at) });
    },
  );
}
