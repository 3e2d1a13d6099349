// The operator API's alerts: GET|PUT /admin/api/alerts (each kind's switch, threshold and window,
// the operator's alert URL and address, the signing secret, the alerts active now) and
// PUT /admin/api/accounts/{username}/low-balance-threshold (an account's own threshold). A bad
// field answers 400 invalid_request naming it in error.field.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { toGatewayError } from "../../base/http/http-errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { staffReadsSecrets } from "../../domain/webhooks/routes.js";
import { maskedSecret } from "../../domain/webhooks/settings.js";
import { AccountThreshold, AccountThresholdRequest, AlertSettings, AlertSettingsRequest } from "./alert-schemas.js";
import { changeAlerts, describeAlerts, issueField } from "./operations.js";
import { type AlertSettingsChange, accountThreshold, setAccountThreshold } from "./settings.js";

type Deps = Pick<Runtime, "config" | "store" | "clock">;

/** A body the schema refused, as invalid_request with the offending field (`delivery_rate.percent`). */
function refuseInvalid(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validation?: { keyword?: string }[] }) | undefined;
  if (!error) return;
  const issue = error.validation?.find((i) => i.keyword !== "anyOf") ?? error.validation?.[0];
  const field = issueField(issue);
  throw new GatewayError("invalid_request", toGatewayError(error).message, field ? { field } : undefined);
}

export function registerAlertAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const deps = {
    store: ctx.store,
    clock: ctx.clock,
    allowPrivate: ctx.config.allowPrivateWebhooks,
    emailConfigured: ctx.config.email.smtpUrl !== undefined,
  };

  admin.get(
    "/alerts",
    {
      schema: {
        summary:
          "Alert settings, the signing secret of the alert webhooks (masked for staff who may not change them), and the alerts active now",
        tags: ["operator"],
        response: operatorAnswer(AlertSettings),
      },
    },
    async (request) => {
      // The operator account's webhook secret signs the alerts: whole only to whom may change them (decision 0141).
      const data = await describeAlerts(deps);
      return {
        status: "success",
        data: staffReadsSecrets(request) ? data : { ...data, secret: maskedSecret(data.secret) },
      };
    },
  );

  admin.put(
    "/alerts",
    {
      attachValidation: true,
      schema: {
        summary: "Change alert settings: any field, the others kept",
        tags: ["operator"],
        body: AlertSettingsRequest,
        response: operatorAnswer(AlertSettings),
      },
    },
    async (request) => {
      refuseInvalid(request);
      const change = (request.body ?? {}) as AlertSettingsChange;
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const data = await changeAlerts(deps, who, change, request.principal!.accountId);
      return { status: "success", data };
    },
  );

  admin.put(
    "/accounts/:username/low-balance-threshold",
    {
      attachValidation: true,
      schema: {
        summary: "Set (or, with null, remove) an account's own low-balance threshold",
        tags: ["operator"],
        params: Type.Object({ username: Type.String({ maxLength: 64 }) }),
        body: AccountThresholdRequest,
        response: operatorAnswer(AccountThreshold),
      },
    },
    async (request) => {
      refuseInvalid(request);
      const account = await requireAccount(ctx.store.db, request.params.username);
      const body = request.body as { threshold: number | null; wallet?: Wallet };
      const change = { wallet: body.wallet ?? "sms", threshold: body.threshold };
      await setAccountThreshold(ctx.store, { clock: ctx.clock, actor: actorOf(request) }, account, change);
      const own = await accountThreshold(ctx.store.db, account.id);
      return {
        status: "success",
        data: { account: account.username, wallet: own?.wallet ?? change.wallet, threshold: own?.threshold ?? null },
      };
    },
  );

  admin.get(
    "/accounts/:username/low-balance-threshold",
    {
      schema: {
        summary: "An account's own low-balance threshold (null: the default of GET /admin/api/alerts applies)",
        tags: ["operator"],
        params: Type.Object({ username: Type.String({ maxLength: 64 }) }),
        response: operatorAnswer(AccountThreshold),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const own = await accountThreshold(ctx.store.db, account.id);
      return {
        status: "success",
        data: { account: account.username, wallet: own?.wallet ?? "sms", threshold: own?.threshold ?? null },
      };
    },
  );
}
