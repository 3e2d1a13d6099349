// The operator API under /admin/api: everything the CLI does, authenticated with an operator key.

import { Type } from "typebox";
import { MAX_CREDITS, WALLETS } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { OneOf } from "../../base/http/answer-schemas.js";
import { sendJsonError } from "../../base/http/http-errors.js";
import { IdParams, PageNumber, pageMeta, refuseUndeclaredQuery } from "../../base/http/query-params.js";
import { operatorAnswer, operatorPage, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { hasSmppChanges, type SmppSettingsChanges, setSmppSettings } from "../../channels/smpp-server/index.js";
import {
  ACCOUNT_STATUSES,
  DLT_MATCHING_MODES,
  decisionBody,
  describeAccount,
  MAX_FLOOD_LIMIT,
  MAX_TEMPLATE_CONTENT,
  MAX_TEMPLATE_NAME,
  reasonOf,
  requireAccount,
  searchAccounts,
  setAccountPriceCard,
  updateAccount,
  walletCredits,
} from "../../domain/accounts/index.js";
import type { CallerChecks } from "../../domain/auth/index.js";
import { admitCaller, authenticateCaller, clearLoginLocks } from "../../domain/auth/index.js";
import {
  AccountView,
  AddedSenderId,
  ApprovalQueue,
  DecidedSenderId,
  OnboardedAccount,
  OperatorAccount,
  OperatorAccountDetail,
  OperatorSenderId,
  SenderIdAddition,
  SenderIdApproval,
} from "./account-schemas.js";
import { APPROVAL_KINDS } from "./approval-kinds.js";
import { pendingApprovals } from "./approvals.js";
import { accountPriceCardEntry, accountUpdateEntry, smppSettingsEntry } from "./change-entries.js";
import { registerCreditRoutes } from "./credit-routes.js";
import { registerDltChainRoutes } from "./dlt-chain-routes.js";
import { registerDltLinkRoutes } from "./dlt-link-routes.js";
import { RateLimit, registerKeyRoutes } from "./key-routes.js";
import { registerLoginLockRoutes } from "./login-lock-routes.js";
import { refuseNulText } from "./nul-text.js";
import { createAccountWithKey } from "./onboarding.js";
import { accountDetail, changeDeps } from "./operations.js";
import { registerCostCardRoutes, registerPriceCardRoutes } from "./price-card-routes.js";
import { addSenderIdFor, senderIdsOf, setSenderIdStatusFor } from "./sender-id-operations.js";
import { registerSmsRuleRoutes } from "./sms-rule-routes.js";
import { registerTwoFactorResetRoutes } from "./two-factor-routes.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config"> & CallerChecks;

const Username = Type.Object({ username: Type.String() });
/** The query string of an operator route that takes no parameters (an operator key may still ride in it). */
const NoQuery = Type.Object({});
const Credits = Type.Object(
  Object.fromEntries(WALLETS.map((w) => [w, Type.Optional(Type.Number({ minimum: 0, maximum: MAX_CREDITS }))])),
  { additionalProperties: false },
);

export async function registerAdminRoutes(admin: TypedRoutes, ctx: Deps): Promise<void> {
  const deps = {
    store: ctx.store,
    clock: ctx.clock,
    dltChainRequired: ctx.config.dlt.chainRequired,
    dltTemplatesAllRoutes: ctx.config.dlt.templatesAllRoutes,
    dltTmId: ctx.config.dlt.tmId,
  };
  admin.setErrorHandler((error, request, reply) => sendJsonError(request, reply, error, "status"));
  // Every operator answer is written by its schema, the one the console types its pages with; every
  // family's operator routes are added to this scope after this hook.
  admin.addHook("onRoute", (route) => {
    // A route that declares no query string takes none: `?x=1` is refused naming it (decision 0024's
    // addendum of 2026-12-02), as a misspelt filter is, not ignored. `_` never reaches a route.
    if (route.schema?.querystring === undefined) route.schema = { ...route.schema, querystring: NoQuery };
    if (route.method === "HEAD") return;
    if (!Object.keys(route.schema?.response ?? {}).some((status) => status.startsWith("2"))) {
      throw new Error(
        `${String(route.method)} ${route.url}: an operator route needs a schema.response for its success answer (operatorAnswer, from a *-schemas.ts file).`,
      );
    }
  });
  // The operator key is checked before the body is read: it is taken from a header or the query
  // (or the console's session cookie), never from a JSON body, so a caller without one is refused
  // before the gateway buffers what it sent (up to 16 MiB) or reads its content type.
  admin.addHook("onRequest", async (request) => {
    const principal = await authenticateCaller(
      request,
      ctx,
      "Missing operator API key: send Authorization: Bearer <key>.",
    );
    if (principal.role !== "operator" || principal.status !== "active") throw new GatewayError("operator_only");
    admitCaller(request, principal);
    // As on the v2 API: a misspelt filter is refused, not ignored.
    refuseUndeclaredQuery(request);
  });
  // Once the body is read and the caller's access checked: no text of any operator route holds a NUL
  // (decision 0024, addendum), as PostgreSQL takes none and SQLite would store it.
  admin.addHook("preHandler", async (request) => refuseNulText(request));
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get(
    "/accounts",
    {
      schema: {
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 64 })),
          status: Type.Optional(Type.Union(ACCOUNT_STATUSES.map((s) => Type.Literal(s)))),
          page: Type.Optional(PageNumber()),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: operatorPage(OperatorAccount),
      },
    },
    async (request) => {
      const query = request.query;
      const paging = { page: query.page ?? 1, perPage: query.per_page ?? 100 };
      const { rows, total } = await searchAccounts(ctx.store.db, { search: query.q, status: query.status, ...paging });
      const data = await Promise.all(
        rows.map(async (account) => describeAccount(account, await walletCredits(ctx.store.db, account.id))),
      );
      return { status: "success", data, meta: pageMeta(paging, total) };
    },
  );

  admin.get(
    "/approvals",
    {
      schema: {
        querystring: Type.Object({
          kind: Type.Optional(Type.Union(APPROVAL_KINDS.map((k) => Type.Literal(k)))),
          page: Type.Optional(PageNumber()),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: { "2xx": ApprovalQueue },
      },
    },
    async (request) => {
      const query = request.query;
      const paging = { page: query.page ?? 1, perPage: query.per_page ?? 100 };
      const { items, waiting, total } = await pendingApprovals(ctx.store.db, { kind: query.kind, ...paging });
      return { status: "success", data: items, waiting, meta: pageMeta(paging, total) };
    },
  );

  admin.post(
    "/accounts",
    {
      schema: {
        body: Type.Object(
          {
            username: Type.String(),
            password: Type.String(),
            role: Type.Optional(Type.Union([Type.Literal("customer"), Type.Literal("operator")])),
            parent: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            markup_percent: Type.Optional(Type.Number()),
            credits: Type.Optional(Credits),
            rate_limit: Type.Optional(RateLimit),
            time_zone: Type.Optional(Type.String({ maxLength: 64 })),
            flood_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FLOOD_LIMIT })),
            routes: Type.Optional(Type.Array(Type.String({ maxLength: 8 }), { maxItems: 8 })),
            sender_ids: Type.Optional(Type.Array(Type.String({ maxLength: 20 }), { maxItems: 50 })),
            dlt_entity_ids: Type.Optional(Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50 })),
            default_dlt_entity_id: Type.Optional(Type.String({ maxLength: 64 })),
            templates: Type.Optional(
              Type.Array(
                Type.Object(
                  {
                    content: Type.String({ maxLength: MAX_TEMPLATE_CONTENT }),
                    name: Type.Optional(Type.String({ maxLength: MAX_TEMPLATE_NAME })),
                    dlt_template_id: Type.Optional(Type.Union([Type.String({ maxLength: 30 }), Type.Null()])),
                  },
                  { additionalProperties: false },
                ),
                { maxItems: 100 },
              ),
            ),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(OnboardedAccount),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await createAccountWithKey(changeDeps(deps, request), {
        username: body.username,
        password: body.password,
        ...(body.role ? { role: body.role } : {}),
        ...(body.parent !== undefined ? { parent: body.parent } : {}),
        ...(body.markup_percent !== undefined ? { markupPercent: body.markup_percent } : {}),
        ...(body.credits ? { credits: body.credits } : {}),
        ...(body.rate_limit !== undefined ? { rateLimit: body.rate_limit } : {}),
        ...(body.time_zone !== undefined ? { timeZone: body.time_zone } : {}),
        ...(body.flood_limit !== undefined ? { floodLimit: body.flood_limit } : {}),
        ...(body.routes !== undefined ? { routes: body.routes } : {}),
        ...(body.sender_ids ? { senderIds: body.sender_ids } : {}),
        ...(body.dlt_entity_ids ? { dltEntityIds: body.dlt_entity_ids } : {}),
        ...(body.default_dlt_entity_id !== undefined ? { defaultDltEntityId: body.default_dlt_entity_id } : {}),
        ...(body.templates
          ? {
              templates: body.templates.map((t) => ({
                content: t.content,
                name: t.name,
                dltTemplateId: t.dlt_template_id ?? null,
              })),
            }
          : {}),
      });
      const { ready, missing } = await accountDetail(deps, created.username);
      return reply.code(201).send(ok({ ...created, ready, missing }));
    },
  );

  admin.get(
    "/accounts/:username",
    { schema: { params: Username, response: operatorAnswer(OperatorAccountDetail) } },
    async (request) => ok(await accountDetail(deps, request.params.username)),
  );

  admin.patch(
    "/accounts/:username",
    {
      schema: {
        params: Username,
        body: Type.Object(
          {
            status: Type.Optional(
              Type.Union([Type.Literal("active"), Type.Literal("inactive"), Type.Literal("blocked")]),
            ),
            password: Type.Optional(Type.String()),
            time_zone: Type.Optional(Type.String()),
            flood_limit: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_FLOOD_LIMIT })),
            get_api_enabled: Type.Optional(Type.Boolean()),
            international_enabled: Type.Optional(Type.Boolean()),
            dlt_scrubbing: Type.Optional(Type.Boolean()),
            dlt_matching: Type.Optional(OneOf(DLT_MATCHING_MODES)),
            promo_sender_enabled: Type.Optional(Type.Boolean()),
            routes: Type.Optional(Type.Array(Type.String({ maxLength: 8 }), { maxItems: 8 })),
            unlock: Type.Optional(Type.Boolean()),
            default_dlt_entity_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
            promo_hours: Type.Optional(Type.Union([Type.String({ maxLength: 32 }), Type.Null()])),
            shorten_urls: Type.Optional(Type.Boolean()),
            price_card: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
            smpp_password: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
            smpp_max_binds: Type.Optional(Type.Integer({ minimum: 0, maximum: 1000 })),
            smpp_submits_per_second: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
            smpp_allowed_ips: Type.Optional(
              Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }), Type.Null()]),
            ),
            password_allowed_ips: Type.Optional(
              Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }), Type.Null()]),
            ),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(OperatorAccountDetail),
      },
    },
    async (request) => {
      const { username } = request.params;
      const body = request.body;
      const smpp: SmppSettingsChanges = {
        password: body.smpp_password,
        maxBinds: body.smpp_max_binds,
        submitsPerSecond: body.smpp_submits_per_second,
        allowedIps: body.smpp_allowed_ips,
      };
      // Checked first: an unknown card changes nothing else.
      const who = changeDeps(deps, request);
      if (body.price_card !== undefined) {
        const entry = accountPriceCardEntry(who, username);
        await setAccountPriceCard(ctx.store, ctx.clock, username, body.price_card, entry);
      }
      if (hasSmppChanges(smpp)) {
        await setSmppSettings(ctx.store, ctx.clock, username, smpp, smppSettingsEntry(who, username));
      }
      await updateAccount(
        ctx.store,
        ctx.clock,
        username,
        {
          status: body.status,
          password: body.password,
          timeZone: body.time_zone,
          floodLimit: body.flood_limit,
          getApiEnabled: body.get_api_enabled,
          internationalEnabled: body.international_enabled,
          dltScrubbing: body.dlt_scrubbing,
          dltMatching: body.dlt_matching,
          promoSenderEnabled: body.promo_sender_enabled,
          routes: body.routes,
          defaultDltEntityId: body.default_dlt_entity_id,
          promoHours: body.promo_hours,
          promoHoursLimit: ctx.config.promoHours,
          shortenUrls: body.shorten_urls,
          passwordAllowedIps: body.password_allowed_ips,
        },
        accountUpdateEntry(who),
      );
      // Once the settings are taken: its own change, audited as login_locks.clear (as DELETE …/login-locks).
      if (body.unlock) await clearLoginLocks(ctx.store, who, username);
      return ok(await accountDetail(deps, username));
    },
  );

  admin.get(
    "/accounts/:username/sender-ids",
    { schema: { params: Username, response: operatorAnswer(Type.Array(OperatorSenderId)) } },
    async (request) => ok(await senderIdsOf(deps, request.params.username)),
  );

  admin.post(
    "/accounts/:username/sender-ids",
    {
      schema: { params: Username, body: SenderIdAddition, response: operatorAnswer(AddedSenderId) },
    },
    async (request, reply) => {
      // Approved at once, it is white-listed as a DLT header too, unless `dlt_header: false` (decision 0151).
      const { sender, approve, dlt_header: dltHeader } = request.body;
      const username = request.params.username;
      const created = await addSenderIdFor(changeDeps(deps, request), { username, sender, approve, dltHeader });
      return reply.code(201).send(ok(created));
    },
  );

  for (const [action, status] of [
    ["approve", "approved"],
    ["reject", "rejected"],
  ] as const) {
    // An approval white-lists the sender ID as a DLT header too, unless `dlt_header: false` (decision 0151).
    const body = action === "approve" ? SenderIdApproval : decisionBody(action).body;
    admin.post(
      `/sender-ids/:id/${action}`,
      {
        schema: { params: IdParams, body, response: operatorAnswer(DecidedSenderId) },
        // The body is optional: a POST without one decides with no reason.
        preValidation: decisionBody(action).preValidation,
      },
      async (request) => {
        const reason = reasonOf(request.body);
        const header = (request.body as { dlt_header?: boolean }).dlt_header !== false;
        const who = changeDeps(deps, request);
        return ok(await setSenderIdStatusFor(who, request.params.id, status, undefined, reason, header));
      },
    );
  }

  // Operators' read-only views of accounts' consoles, newest first: who looked at which, when.
  admin.get(
    "/account-views",
    {
      schema: {
        querystring: Type.Object({
          account: Type.Optional(Type.String({ maxLength: 64 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: operatorAnswer(Type.Array(AccountView)),
      },
    },
    async (request) => {
      const { account, limit } = request.query;
      const accountId = account ? (await requireAccount(ctx.store.db, account)).id : undefined;
      const views = await ctx.sessions.views(accountId, limit ?? 100);
      const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
      return ok(views.map((view) => ({ ...view, started_at: iso(view.started_at), ended_at: iso(view.ended_at) })));
    },
  );

  registerCreditRoutes(admin, ctx);
  registerPriceCardRoutes(admin, ctx);
  registerCostCardRoutes(admin, ctx);
  registerKeyRoutes(admin, ctx);
  registerLoginLockRoutes(admin, ctx);
  registerTwoFactorResetRoutes(admin, ctx);
  await registerSmsRuleRoutes(admin, ctx);
  registerDltLinkRoutes(admin, ctx);
  registerDltChainRoutes(admin, ctx);
}
