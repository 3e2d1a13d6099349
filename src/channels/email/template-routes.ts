// v2 email templates (the account's API key): stored subjects and bodies with {{name}}
// placeholders, listed a page at a time, read, created, changed and deleted; each change is in the
// audit log, written in the change's transaction (email_template.create, .update, .delete).

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf, pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf } from "../../domain/auth/index.js";
import {
  createEmailTemplate,
  deleteEmailTemplate,
  describeEmailTemplate,
  getEmailTemplate,
  listEmailTemplates,
  MAX_TEMPLATE_HTML,
  updateEmailTemplate,
} from "./templates.js";
import { EmailTemplate, EmailTemplateDeletion } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const tags = ["email"];
const iso = (ms: number) => isoUtc(new Date(ms));
const ok = (data: unknown) => ({ status: "success", data });
const TemplateFields = {
  name: Type.String({ minLength: 1, maxLength: 100 }),
  subject: Type.String({ minLength: 1, maxLength: 998 }),
  html: Type.String({ minLength: 1, maxLength: MAX_TEMPLATE_HTML }),
  text: Type.Optional(Type.Union([Type.String({ maxLength: MAX_TEMPLATE_HTML }), Type.Null()])),
};
const PageQuery = Type.Object(PAGE_PARAMS);

function templateId(raw: string): number {
  const id = pathId(raw);
  if (id === undefined) throw new GatewayError("not_found", `No email template ${raw.slice(0, 40)} in this account.`);
  return id;
}

export function registerV2EmailTemplateRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const accountOf = (request: FastifyRequest) => request.principal!.accountId;
  const auditedBy = (request: FastifyRequest) => ({ clock: ctx.clock, actor: actorOf(request) });

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
      const row = await createEmailTemplate(ctx.store, auditedBy(request), accountOf(request), request.body);
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
      const row = await updateEmailTemplate(ctx.store, auditedBy(request), accountOf(request), id, request.body);
      return ok(describeEmailTemplate(row, iso));
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
      await deleteEmailTemplate(ctx.store, auditedBy(request), accountOf(request), id);
      return ok({ id, deleted: true });
    },
  );
}
