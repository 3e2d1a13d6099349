// v2 keywords and received (inbound) SMS of the calling account. Answers use the `status`
// envelope; lists are paginated with `meta`.

import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { PageMeta, pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf, pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import { APPROVAL_STATUSES } from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { createKeyword, describeKeyword, getKeyword, listKeywords } from "./keywords.js";
import { listInbound } from "./messages.js";
import { InboundMessage, Keyword, KeywordRequest, KeywordWithMessages } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock">;

const resource = { envelope: "status" } as const;
const KEYWORDS_PER_PAGE = 25;
const KEYWORDS_MAX_PER_PAGE = 100;
const INBOUND_PER_PAGE = 50;
const INBOUND_MAX_PER_PAGE = 200;
const PageQuery = PAGE_PARAMS;
const time = (ms: number) => isoUtc(new Date(ms));

function statusFilter(value: string | undefined): ApprovalStatus | undefined {
  if (value === undefined || value === "") return undefined;
  if (!APPROVAL_STATUSES.includes(value as ApprovalStatus)) {
    throw new GatewayError("invalid_request", 'Query parameter "status" must be pending, approved or rejected.', {
      field: "status",
    });
  }
  return value as ApprovalStatus;
}

export function registerV2InboundRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  v2.get(
    "/keywords",
    {
      config: resource,
      schema: {
        operationId: "listKeywords",
        response: { 200: pageAnswer(Keyword) },
        summary: "Keywords of the account, oldest first, paginated",
        tags: ["inbound"],
        querystring: Type.Object({ ...PageQuery, status: Type.Optional(Type.String({ maxLength: 20 })) }),
      },
    },
    async (request) => {
      const query = request.query;
      const page = pageOf(query, KEYWORDS_PER_PAGE, KEYWORDS_MAX_PER_PAGE);
      const { rows, total } = await listKeywords(db, request.principal!.accountId, {
        status: statusFilter(query.status),
        ...page,
      });
      return { status: "success", data: rows.map((row) => describeKeyword(row, time)), meta: pageMeta(page, total) };
    },
  );

  v2.get(
    "/keywords/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getKeyword",
        response: {
          200: Type.Object({ status: Type.Literal("success"), data: KeywordWithMessages, meta: PageMeta }),
        },
        summary: "One keyword with the messages it matched, newest first, paginated",
        tags: ["inbound"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
        querystring: Type.Object(PageQuery),
      },
    },
    async (request) => {
      const { id } = request.params;
      const accountId = request.principal!.accountId;
      const page = pageOf(request.query, INBOUND_PER_PAGE, INBOUND_MAX_PER_PAGE);
      const keywordId = pathId(id);
      const row = keywordId === undefined ? undefined : await getKeyword(db, accountId, keywordId);
      if (!row) throw new GatewayError("not_found", `No keyword with id "${id}" in this account.`);
      const { entries, total } = await listInbound(db, accountId, { keywordId: row.id, ...page }, time);
      return {
        status: "success",
        data: { ...describeKeyword(row, time), received_total: total, received: entries },
        meta: pageMeta(page, total),
      };
    },
  );

  v2.post(
    "/keywords",
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "createKeyword",
        summary: "Create a keyword (pending operator approval)",
        tags: ["inbound"],
        body: KeywordRequest,
        response: { 201: resourceAnswer(Keyword) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const accountId = request.principal!.accountId;
      const row = await ctx.store.transaction(async (trx) => {
        const row = await createKeyword(
          trx,
          ctx.clock,
          accountId,
          { key: body.key, responseType: body.response_type, staticMessage: body.static_message },
          ctx.config.optOutWords,
        );
        await recordChange(
          trx,
          { clock: ctx.clock, actor: actorOf(request) },
          {
            action: "keyword.request",
            target: `keyword ${row.id}`,
            accountId,
            after: { keyword: row.key, status: row.status, response_type: row.response_type },
          },
        );
        return row;
      });
      return reply.code(201).send({ status: "success", data: describeKeyword(row, time) });
    },
  );

  v2.get(
    "/inbound",
    {
      config: resource,
      schema: {
        operationId: "listInboundMessages",
        response: { 200: pageAnswer(InboundMessage) },
        summary: "SMS received on the account's inbound numbers, newest first, paginated",
        tags: ["inbound"],
        querystring: Type.Object(PageQuery),
      },
    },
    async (request) => {
      const page = pageOf(request.query, INBOUND_PER_PAGE, INBOUND_MAX_PER_PAGE);
      const { entries, total } = await listInbound(db, request.principal!.accountId, page, time);
      return { status: "success", data: entries, meta: pageMeta(page, total) };
    },
  );
}
