// Operator API for inbound SMS: virtual numbers, keyword approval, suppression lists, and a
// test endpoint that injects an inbound message. Thin adapters over operations.ts and ingest.ts.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { IdParams, PageNumber } from "../../base/http/query-params.js";
import { operatorAnswer, operatorPage, type TypedRoutes } from "../../base/http/typed-routes.js";
import { decisionBody, getAccount, reasonOf } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import {
  AccountKeyword,
  InboundNumber,
  InjectedInbound,
  RemovedInboundNumber,
  Suppression,
  SuppressionsAdded,
  SuppressionsRemoved,
} from "./admin-schemas.js";
import { type InboundDeps, type IngestOutcome, ingestInbound } from "./ingest.js";
import {
  addSuppressionsFor,
  assignNumberFor,
  type InboundOperatorDeps,
  keywordsOf,
  numbersOf,
  removeNumberFor,
  removeSuppressionsFor,
  setKeywordStatusFor,
  suppressionsOf,
} from "./operations.js";

/** What this file takes from the gateway. */
type Deps = InboundDeps;

/** The connector name of messages injected through the operator API. */
const OPERATOR_CONNECTOR = "operator";

const Username = Type.Object({ username: Type.String() });
const Status = Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]);
const Page = {
  page: Type.Optional(PageNumber()),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
};
const MAX_NUMBERS = 10_000;
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?(?:Z|[+-]\d\d:\d\d)$/;
const Numbers = Type.Object(
  {
    numbers: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: MAX_NUMBERS }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { additionalProperties: false },
);

export function registerInboundAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const reader = { store: ctx.store, clock: ctx.clock };
  const deps = (request: FastifyRequest): InboundOperatorDeps => ({ ...reader, actor: actorOf(request) });
  const ok = (data: unknown) => ({ status: "success", data });
  const username = (params: unknown) => (params as { username: string }).username;

  // ---- Virtual numbers --------------------------------------------------------------------

  admin.get(
    "/accounts/:username/inbound-numbers",
    { schema: { params: Username, response: operatorAnswer(Type.Array(InboundNumber)) } },
    async (request) => ok(await numbersOf(reader, username(request.params))),
  );

  admin.post(
    "/accounts/:username/inbound-numbers",
    {
      schema: {
        params: Username,
        body: Type.Object({ number: Type.String({ maxLength: 32 }) }, { additionalProperties: false }),
        response: operatorAnswer(InboundNumber),
      },
    },
    async (request, reply) => {
      const { number } = request.body;
      const assigned = await assignNumberFor(deps(request), username(request.params), number);
      return reply.code(assigned.created ? 201 : 200).send(ok(assigned.number));
    },
  );

  admin.delete(
    "/accounts/:username/inbound-numbers/:number",
    {
      schema: {
        params: Type.Object({ username: Type.String(), number: Type.String({ maxLength: 32 }) }),
        response: operatorAnswer(RemovedInboundNumber),
      },
    },
    async (request) => {
      const { number } = request.params;
      return ok(await removeNumberFor(deps(request), username(request.params), number));
    },
  );

  // ---- Keywords -----------------------------------------------------------------------------

  admin.get(
    "/accounts/:username/keywords",
    {
      schema: {
        params: Username,
        querystring: Type.Object({ status: Type.Optional(Status), ...Page }),
        response: operatorPage(AccountKeyword),
      },
    },
    async (request) => {
      const query = request.query;
      const { keywords, meta } = await keywordsOf(reader, username(request.params), {
        status: query.status,
        page: query.page,
        perPage: query.per_page,
      });
      return { status: "success", data: keywords, meta };
    },
  );

  for (const [action, status] of [
    ["approve", "approved"],
    ["reject", "rejected"],
  ] as const) {
    admin.post(
      `/keywords/:id/${action}`,
      {
        schema: { params: IdParams, body: decisionBody(action).body, response: operatorAnswer(AccountKeyword) },
        preValidation: decisionBody(action).preValidation,
      },
      async (request) =>
        ok(await setKeywordStatusFor(deps(request), request.params.id, status, undefined, reasonOf(request.body))),
    );
  }

  // ---- Suppression lists ------------------------------------------------------------------

  admin.get(
    "/accounts/:username/suppressions",
    { schema: { params: Username, querystring: Type.Object(Page), response: operatorPage(Suppression) } },
    async (request) => {
      const query = request.query;
      const { suppressions, meta } = await suppressionsOf(
        reader,
        username(request.params),
        query.page ?? 1,
        query.per_page ?? 100,
      );
      return { status: "success", data: suppressions, meta };
    },
  );

  admin.post(
    "/accounts/:username/suppressions",
    { schema: { params: Username, body: Numbers, response: operatorAnswer(SuppressionsAdded) } },
    async (request) => {
      const body = request.body;
      return ok(
        await addSuppressionsFor(
          deps(request),
          username(request.params),
          body.numbers,
          body.reason?.trim() || "operator",
        ),
      );
    },
  );

  admin.delete(
    "/accounts/:username/suppressions",
    {
      schema: {
        params: Username,
        body: Type.Object(
          { numbers: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: MAX_NUMBERS }) },
          { additionalProperties: false },
        ),
        response: operatorAnswer(SuppressionsRemoved),
      },
    },
    async (request) => ok(await removeSuppressionsFor(deps(request), username(request.params), request.body.numbers)),
  );

  // ---- Test injection -----------------------------------------------------------------------

  // Straight to ingestion, not through a connector: the API process may run without workers
  // (api and worker roles apart on PostgreSQL), and the answer can then tell what happened.
  admin.post(
    "/inbound",
    {
      schema: {
        body: Type.Object(
          {
            to: Type.String({ minLength: 1, maxLength: 32 }),
            from: Type.String({ minLength: 1, maxLength: 32 }),
            message: Type.String({ maxLength: 2_000 }),
            upstream_id: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            received_at: Type.Optional(Type.String({ maxLength: 40 })),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(InjectedInbound),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const receivedAt = body.received_at === undefined ? undefined : Date.parse(body.received_at);
      if (receivedAt !== undefined && (!ISO_DATE_TIME.test(body.received_at ?? "") || !Number.isFinite(receivedAt))) {
        throw new GatewayError("invalid_request", "received_at must be an ISO 8601 date-time.", {
          field: "received_at",
        });
      }
      const outcome = await ingestInbound(ctx, {
        to: body.to,
        from: body.from,
        message: body.message,
        connector: OPERATOR_CONNECTOR,
        upstreamId: body.upstream_id,
        receivedAt,
      });
      if (outcome.kind === "unknown_number") {
        throw new GatewayError("not_found", `No account has the inbound number ${outcome.number || body.to}.`);
      }
      if (outcome.kind === "invalid") throw new GatewayError("invalid_request", outcome.message, { field: "from" });
      const account = await getAccount(ctx.store.db, outcome.inbound.account_id);
      // A duplicate answers the stored message: its keyword named too, not only its id.
      const keywordId = outcome.kind === "stored" ? null : outcome.inbound.keyword_id;
      const keyword =
        keywordId === null
          ? undefined
          : (await ctx.store.db.selectFrom("keywords").select("key").where("id", "=", keywordId).executeTakeFirst())
              ?.key;
      return reply
        .code(outcome.kind === "stored" ? 201 : 200)
        .send(ok(describeOutcome(outcome, account?.username, keyword)));
    },
  );
}

function describeOutcome(
  outcome: Extract<IngestOutcome, { inbound: unknown }>,
  account: string | undefined,
  storedKeyword: string | undefined,
) {
  const { inbound } = outcome;
  const stored = outcome.kind === "stored" ? outcome : undefined;
  return {
    id: inbound.id,
    account: account ?? null,
    from: inbound.sender,
    to: inbound.number,
    message: inbound.body,
    received_at: new Date(inbound.received_at).toISOString(),
    duplicate: outcome.kind === "duplicate",
    keyword_id: inbound.keyword_id,
    keyword: stored?.keyword?.key ?? storedKeyword ?? null,
    reply_message_id: inbound.reply_message_id,
    opt_out: stored?.optOut ?? null,
    reply: !stored
      ? null
      : stored.reply.status === "sent"
        ? { status: "sent", message_id: stored.reply.messageId }
        : stored.reply,
  };
}
