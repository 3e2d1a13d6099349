// An account's webhook settings as the APIs show and change them: URLs checked against the SSRF
// guard before they are stored, and the signing secret with its rotation.
import type { Clock } from "../../base/core/clock.js";
import { GatewayError, isGatewayError } from "../../base/core/errors.js";
import type { WebhookEvent } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Actor, type Audited, recordChange } from "../audit/index.js";
import {
  ensureWebhookSecret,
  maskedSecret,
  rotateWebhookSecret,
  setWebhookUrls,
  type WebhookSettings,
  webhookSettings,
} from "./settings.js";
import { checkWebhookUrl } from "./url-guard.js";

export interface WebhookApiDeps {
  store: Store;
  clock: Clock;
  /** SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS. */
  allowPrivate: boolean;
  /** The `to` of a sample inbound_sms event: inbound/'s, handed in by app/ (inbound/ sits above webhooks/). */
  firstInboundNumber: FirstInboundNumber;
}

/** The account's first virtual number, undefined when it has none. */
export type FirstInboundNumber = (db: Db, accountId: number) => Promise<string | undefined>;

export type WebhookUrlChanges = Partial<Record<WebhookEvent, string | null>>;

function describeSettings(settings: WebhookSettings) {
  return {
    delivery_report: settings.urls.delivery_report ?? null,
    inbound_sms: settings.urls.inbound_sms ?? null,
    inbound_whatsapp: settings.urls.inbound_whatsapp ?? null,
    low_balance: settings.urls.low_balance ?? null,
    verification_approved: settings.urls.verification_approved ?? null,
    verification_denied: settings.urls.verification_denied ?? null,
    verification_expired: settings.urls.verification_expired ?? null,
    chain_completed: settings.urls.chain_completed ?? null,
    link_clicked: settings.urls.link_clicked ?? null,
    secret: settings.secret ?? null,
  };
}

export async function webhookSettingsOf(deps: WebhookApiDeps, accountId: number) {
  return describeSettings(await webhookSettings(deps.store, accountId, deps.clock.now().getTime()));
}

/** Sets or (null) removes URLs; every URL is checked first, and nothing changes if one is refused. */
export async function changeWebhookUrls(
  deps: WebhookApiDeps,
  accountId: number,
  changes: WebhookUrlChanges,
  actor: Actor,
) {
  for (const [event, url] of Object.entries(changes)) {
    if (url === null || url === undefined) continue;
    try {
      checkWebhookUrl(url, { allowPrivate: deps.allowPrivate });
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      // The guard names its field `url`; here the offending field is the event's.
      throw new GatewayError(error.code, `${event}: ${error.message}`, { ...error.details, field: event });
    }
  }
  const who = { clock: deps.clock, actor };
  // The first URLs make the signing secret: the entry shows it masked, as a rotation's does.
  const settings = await setWebhookUrls(deps.store, deps.clock, accountId, changes, (trx, before, after, made) =>
    recordChange(trx, who, {
      action: "webhooks.set",
      target: "webhook URLs",
      accountId,
      before,
      after: made === null ? after : { ...after, secret: maskedSecret(made) },
    }),
  );
  return describeSettings(settings);
}

/** A new current secret; the one it replaces keeps signing until `previous_valid_until`. */
export async function rotateSecretOf(
  deps: WebhookApiDeps,
  accountId: number,
  iso: (ms: number) => string,
  actor: Actor,
) {
  const who = { clock: deps.clock, actor };
  // The secrets themselves are never written to the log: masked, each tells the rotation's two apart.
  const secret = await rotateWebhookSecret(deps.store, deps.clock, accountId, undefined, (trx, replaced, fresh) =>
    recordChange(trx, who, {
      action: "webhooks.rotate_secret",
      target: "webhook signing secret",
      accountId,
      ...(replaced === null ? {} : { before: { secret: maskedSecret(replaced) } }),
      after: { secret: maskedSecret(fresh) },
    }),
  );
  const previous = await deps.store.db
    .selectFrom("webhook_secrets")
    .select((eb) => eb.fn.max("expires_at").as("until"))
    .where("account_id", "=", accountId)
    .where("expires_at", "is not", null)
    .where("expires_at", ">", deps.clock.now().getTime())
    .executeTakeFirst();
  const until = previous?.until === null || previous?.until === undefined ? null : Number(previous.until);
  return { secret, previous_valid_until: until === null ? null : iso(until) };
}

/** What needs a secret made for it besides the account's URLs, as its audit entry says. */
export type SecretNeed = "an email's notifyurl" | "the alerts webhook";

/**
 * Makes the account's signing secret if it has none, for `neededBy`, which signs with it. The
 * entry says who caused it and why, the secret masked; an account that has one writes nothing.
 */
export async function ensureSigningSecret(
  store: Store,
  who: Audited,
  accountId: number,
  neededBy: SecretNeed,
): Promise<void> {
  await ensureWebhookSecret(store, who.clock, accountId, (trx, made) =>
    recordChange(trx, who, {
      action: "webhooks.make_secret",
      target: "webhook signing secret",
      accountId,
      after: { secret: maskedSecret(made), needed_by: neededBy },
    }),
  );
}
