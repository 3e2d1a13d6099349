// v2 templates of the account: list (paginated, by status), one by id, create (pending operator
// approval). Answers use the `status` envelope.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf, pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import { actorOf } from "../auth/index.js";
import { APPROVAL_STATUSES, getTemplate, listTemplates, requestTemplate, v2Template } from "./templates.js";
import { Template, TemplateRequest } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const TEMPLATES_PER_PAGE = 25;
const TEMPLATES_MAX_PER_PAGE = 100;

function approvalStatus(value: string | undefined): ApprovalStatus | undefined {
  if (value === undefined || value === "") return undefined;
  if (!APPROVAL_STATUSES.includes(value as ApprovalStatus)) {
    throw new GatewayError("invalid_request", 'Query parameter "status" must be pending, approved or rejected.', {
      field: "status",
    });
  }
  return value as ApprovalStatus;
}

export function registerV2TemplateRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  v2.get(
    "/templates",
    {
      config: resource,
      schema: {
        operationId: "listTemplates",
        response: { 200: pageAnswer(Template) },
        summary: "Templates of the account, oldest first, paginated",
        tags: ["account"],
        querystring: Type.Object({
          ...PAGE_PARAMS,
          status: Type.Optional(Type.String({ maxLength: 20 })),
        }),
      },
    },
    async (request) => {
      const query = request.query;
      const paging = pageOf(query, TEMPLATES_PER_PAGE, TEMPLATES_MAX_PER_PAGE);
      const status = approvalStatus(query.status);
      const { rows, total } = await listTemplates(db, request.principal!.accountId, { status, ...paging });
      return { status: "success", data: rows.map(v2Template), meta: pageMeta(paging, total) };
    },
  );

  v2.get(
    "/templates/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getTemplate",
        response: { 200: resourceAnswer(Template) },
        summary: "One template of the account",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const { id } = request.params;
      const numeric = pathId(id);
      const row = numeric === undefined ? undefined : await getTemplate(db, request.principal!.accountId, numeric);
      if (!row) throw new GatewayError("not_found", `No template with id "${id}" in this account.`);
      return { status: "success", data: v2Template(row) };
    },
  );

  v2.post(
    "/templates",
    {
      config: resource,
      schema: {
        operationId: "createTemplate",
        summary: "Create a template (pending operator approval)",
        tags: ["account"],
        body: TemplateRequest,
        response: { 200: resourceAnswer(Template), 201: resourceAnswer(Template) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // Asking again answers the template as it stands (201 only for a new one), as a sender ID.
      const { row, created } = await requestTemplate(
        ctx.store,
        ctx.clock,
        request.principal!.accountId,
        actorOf(request),
        {
          name: body.name,
          // The spec requires only the name at creation: without content the template is a draft.
          content: body.content ?? "",
          draft: body.content === undefined,
          dltTemplateId: body.dlt_template_id ?? null,
          entityId: body.entity_id ?? null,
        },
      );
      return reply.code(created ? 201 : 200).send({ status: "success", data: v2Template(row) });
    },
  );
}
