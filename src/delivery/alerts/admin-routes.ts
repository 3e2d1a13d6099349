// The operator API's alerts: GET|PUT /admin/api/alerts (each kind's switch, threshold and window,
// the operator's alert URL and address, the signing secret, the alerts active now) and
// PUT /admin/api/accounts/{username}/low-balance-threshold (an account's own threshold). A bad
// field answers 400 invalid_request naming it in error.field.
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyRequest } from "fastify";
import type { Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { toGatewayError } from "../../base/http/http-errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { activeSecrets, ensureWebhookSecret } from "../../domain/webhooks/settings.js";
import { checkWebhookUrl } from "../../domain/webhooks/url-guard.js";
import { AccountThreshold, AccountThresholdRequest, AlertSettings, AlertSettingsRequest } from "./alert-schemas.js";
import {
  type AlertSettingsChange,
  accountThreshold,
  applyChange,
  readAlertSettings,
  setAccountThreshold,
  writeAlertSettings,
} from "./settings.js";
import { activeAlerts } from "./states.js";

type Deps = Pick<Runtime, "config" | "store" | "clock">;

interface Issue {
  instancePath?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** A body the schema refused, as invalid_request with the offending field (`delivery_rate.percent`). */
function refusal(error: Error & { validation?: Issue[] }): GatewayError {
  const answer = toGatewayError(error);
  const issue = error.validation?.find((i) => i.keyword !== "anyOf") ?? error.validation?.[0];
  const path = (issue?.instancePath ?? "").replace(/^\//, "").split("/").filter(Boolean);
  const named = issue?.params?.additionalProperty ?? issue?.params?.requiredProperty;
  if (typeof named === "string") path.push(named);
  return new GatewayError("invalid_request", answer.message, path.length > 0 ? { field: path.join(".") } : undefined);
}

function refuseInvalid(request: FastifyRequest): void {
  const error = request.validationError as (Error & { validation?: Issue[] }) | undefined;
  if (error) throw refusal(error);
}

export function registerAlertAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const iso = (ms: number) => new Date(ms).toISOString();

  const describe = async () => {
    const now = ctx.clock.now().getTime();
    const { settings, operatorAccountId } = await readAlertSettings(ctx.store.db);
    const secret =
      settings.url && operatorAccountId !== null
        ? ((await activeSecrets(ctx.store, operatorAccountId, now))[0] ?? null)
        : null;
    const active = (await activeAlerts(ctx.store.db)).map((alert) => ({
      alert: alert.kind,
      subject: alert.subject,
      value: alert.value,
      detail: alert.detail,
      since: iso(alert.since),
      raised_at: iso(alert.raised_at),
    }));
    return { ...settings, secret, email_configured: ctx.config.email.smtpUrl !== undefined, active };
  };

  admin.get(
    "/alerts",
    {
      schema: {
        summary: "Alert settings, the signing secret of the alert webhooks, and the alerts active now",
        tags: ["operator"],
        response: operatorAnswer(AlertSettings),
      },
    },
    async () => ({ status: "success", data: await describe() }),
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
      if (typeof change.url === "string") {
        try {
          checkWebhookUrl(change.url, { allowPrivate: ctx.config.allowPrivateWebhooks });
        } catch (error) {
          const refused = toGatewayError(error);
          throw new GatewayError(refused.code, `url: ${refused.message}`, { ...refused.details, field: "url" });
        }
      }
      const { settings } = await readAlertSettings(ctx.store.db);
      const next = applyChange(settings, change);
      const operator = request.principal!.accountId;
      // The alert webhooks are signed with the operator account's webhook secret.
      if (next.url) await ensureWebhookSecret(ctx.store, ctx.clock, operator);
      await writeAlertSettings(ctx.store, next, operator, ctx.clock.now().getTime());
      return { status: "success", data: await describe() };
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
      await setAccountThreshold(ctx.store, account.id, change, ctx.clock.now().getTime());
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
