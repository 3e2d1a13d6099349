// The alert settings as the operator API and the CLI show and change them: one checked change
// (the schema's ranges, the webhook URL rules, the credit steps), the operator account whose
// webhook secret signs the alerts, and the answer with the secret and the active alerts.
import { Value } from "typebox/value";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError, isGatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import type { Audited } from "../../domain/audit/index.js";
import { ensureSigningSecret } from "../../domain/webhooks/operations.js";
import { activeSecrets } from "../../domain/webhooks/settings.js";
import { checkWebhookUrl } from "../../domain/webhooks/url-guard.js";
import { AlertSettingsRequest } from "./alert-schemas.js";
import { type AlertSettingsChange, applyChange, readAlertSettings, writeAlertSettings } from "./settings.js";
import { activeAlerts } from "./states.js";

export interface AlertDeps {
  store: Store;
  clock: Clock;
  /** SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS. */
  allowPrivate: boolean;
  /** Whether SMTP_URL is set (alert emails need it). */
  emailConfigured: boolean;
}

interface Issue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** The field a schema issue names, dotted (`delivery_rate.percent`). */
export function issueField(issue: Issue | undefined): string | undefined {
  const path = (issue?.instancePath ?? "").replace(/^\//, "").split("/").filter(Boolean);
  const named = issue?.params?.additionalProperty ?? issue?.params?.requiredProperty;
  if (typeof named === "string") path.push(named);
  return path.length > 0 ? path.join(".") : undefined;
}

/** Refuses a change the request schema refuses (the CLI's; the API's is checked by Fastify). */
export function checkChange(change: unknown): AlertSettingsChange {
  const issue = Value.Errors(AlertSettingsRequest, change)[0] as Issue | undefined;
  if (issue) {
    const field = issueField(issue);
    throw new GatewayError("invalid_request", `${field ?? "The settings"}: ${issue.message ?? "is not valid"}.`, {
      ...(field ? { field } : {}),
    });
  }
  return change as AlertSettingsChange;
}

export async function describeAlerts(deps: AlertDeps) {
  const now = deps.clock.now().getTime();
  const iso = (ms: number) => new Date(ms).toISOString();
  const { settings, operatorAccountId } = await readAlertSettings(deps.store.db);
  const secret =
    settings.url && operatorAccountId !== null
      ? ((await activeSecrets(deps.store, operatorAccountId, now))[0] ?? null)
      : null;
  const active = (await activeAlerts(deps.store.db)).map((alert) => ({
    alert: alert.kind,
    subject: alert.subject,
    value: alert.value,
    detail: alert.detail,
    since: iso(alert.since),
    raised_at: iso(alert.raised_at),
  }));
  return { ...settings, secret, email_configured: deps.emailConfigured, active };
}

/**
 * Applies a change checked whole, audited as `who`; `operatorAccountId` (the caller, or the CLI's --operator) signs
 * the alert webhooks from now on; undefined keeps the one that set them before.
 */
export async function changeAlerts(
  deps: AlertDeps,
  who: Audited,
  change: AlertSettingsChange,
  operatorAccountId?: number,
) {
  if (typeof change.url === "string") {
    try {
      checkWebhookUrl(change.url, { allowPrivate: deps.allowPrivate });
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      throw new GatewayError(error.code, `url: ${error.message}`, { ...error.details, field: "url" });
    }
  }
  const stored = await readAlertSettings(deps.store.db);
  const next = applyChange(stored.settings, change);
  const operator = operatorAccountId ?? stored.operatorAccountId;
  if (next.url && operator === null) {
    throw new GatewayError(
      "invalid_request",
      "Name the operator account whose webhook secret signs the alerts (the CLI's --operator).",
      { field: "operator" },
    );
  }
  // The alert webhooks are signed with the operator account's webhook secret.
  if (next.url && operator !== null) await ensureSigningSecret(deps.store, who, operator, "the alerts webhook");
  await writeAlertSettings(deps.store, who, next, operator);
  return describeAlerts(deps);
}
