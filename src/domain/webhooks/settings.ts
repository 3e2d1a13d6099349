// An account's webhook settings: a URL per event and the signing secret. Rotating the secret
// keeps the old one signing (both signatures sent) for a grace period, so receivers can
// switch without losing events.
import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import type { Engine } from "../../base/store/engine.js";
import type { WebhookEvent } from "../../base/store/schema.js";
import { moveVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { followEndpointChange } from "./endpoint-changes.js";
import { WEBHOOK_URLS_VERSION, WEBHOOKS_CHANGED } from "./outbox.js";

export const WEBHOOK_EVENTS: readonly WebhookEvent[] = [
  "delivery_report",
  "inbound_sms",
  "inbound_whatsapp",
  "low_balance",
  "verification_approved",
  "verification_denied",
  "verification_expired",
  "chain_completed",
  "link_clicked",
];
/**
 * What a delivery can be: an account-level event, an email notification (to its send's notifyurl),
 * or an operator alert (to the operator's alert URL, delivered as the operator account's).
 */
export const DELIVERY_EVENTS: readonly WebhookEvent[] = [...WEBHOOK_EVENTS, "email", "alert"];
/** How long a rotated-out secret still signs. */
export const SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

/** A Standard Webhooks secret: `whsec_` + 32 random bytes in base64. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/**
 * A signing secret as a reader who may not sign sees it (decision 0141): `whsec_…` and its last
 * four characters, enough to tell secrets apart, never to sign. The audit log writes it so too.
 */
export function maskedSecret(secret: string | null): string | null {
  return secret === null ? null : `whsec_…${secret.slice(-4)}`;
}

export interface WebhookSettings {
  urls: Partial<Record<WebhookEvent, string>>;
  /** The current secret (the one a receiver should verify with). */
  secret: string | undefined;
}

export async function webhookSettings(store: Store, accountId: number, now: number): Promise<WebhookSettings> {
  const [urls, secrets] = await Promise.all([
    store.db.selectFrom("webhook_endpoints").select(["event", "url"]).where("account_id", "=", accountId).execute(),
    activeSecrets(store, accountId, now),
  ]);
  return { urls: Object.fromEntries(urls.map((u) => [u.event, u.url])), secret: secrets[0] };
}

/** Secrets that sign now, current first. */
export async function activeSecrets(store: Store, accountId: number, now: number): Promise<string[]> {
  const rows = await store.db
    .selectFrom("webhook_secrets")
    .select(["secret", "expires_at"])
    .where("account_id", "=", accountId)
    .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
    .orderBy("id", "desc")
    .execute();
  return rows.sort((a, b) => Number(a.expires_at !== null) - Number(b.expires_at !== null)).map((r) => r.secret);
}

/**
 * Sets (or, with null, removes) URLs per event; makes the account's secret if it has none. The
 * account's deliveries still open for a changed event follow (endpoint-changes.ts).
 */
export async function setWebhookUrls(
  store: Store,
  clock: Clock,
  accountId: number,
  urls: Partial<Record<WebhookEvent, string | null>>,
  /**
   * What the caller writes in the same transaction (the audit entry), given the URLs before and
   * after and the secret this call made (null: the account had one).
   */
  also?: (trx: Db, before: Record<string, string>, after: Record<string, string>, made: string | null) => Promise<void>,
): Promise<WebhookSettings> {
  const now = clock.now().getTime();
  const urlsOf = async (trx: Db) =>
    Object.fromEntries(
      (
        await trx.selectFrom("webhook_endpoints").select(["event", "url"]).where("account_id", "=", accountId).execute()
      ).map((row) => [row.event, row.url]),
    );
  await store.transaction(async (trx) => {
    const before = await urlsOf(trx);
    let changed = false;
    for (const [event, url] of Object.entries(urls) as [WebhookEvent, string | null][]) {
      if ((before[event] ?? null) !== (url || null)) {
        await followEndpointChange(trx, accountId, event, url || null, now);
        changed = true;
      }
      await trx
        .deleteFrom("webhook_endpoints")
        .where("account_id", "=", accountId)
        .where("event", "=", event)
        .execute();
      if (url) {
        await trx
          .insertInto("webhook_endpoints")
          .values({ account_id: accountId, event, url, created_at: now, updated_at: now })
          .execute();
      }
    }
    // Every process's outbox sees it before it hands a delivery to its sender (outbox.ts).
    if (changed) await moveVersion(trx, WEBHOOK_URLS_VERSION, now);
    const made = await ensureSecret(trx, store.engine, accountId, now);
    if (also) await also(trx, before, await urlsOf(trx), made);
  });
  await store.signals.notify(WEBHOOKS_CHANGED, String(accountId));
  return webhookSettings(store, accountId, now);
}

/**
 * Makes the account's signing secret if it has none (an email's notifyurl needs one too); `also`
 * runs in the same transaction with the secret made (the audit entry), never when there was one.
 */
export async function ensureWebhookSecret(
  store: Store,
  clock: Clock,
  accountId: number,
  also?: (trx: Db, made: string) => Promise<void>,
): Promise<void> {
  // Most calls find one: a current secret is only ever replaced by another (a rotation), so a read
  // that sees one needs no write transaction, its lock or (SQLite) the process's one writer.
  if (await hasCurrentSecret(store.db, accountId)) return;
  const made = await store.transaction(async (trx) => {
    const secret = await ensureSecret(trx, store.engine, accountId, clock.now().getTime());
    if (secret !== null) await also?.(trx, secret);
    return secret;
  });
  if (made !== null) await store.signals.notify(WEBHOOKS_CHANGED, String(accountId));
}

/** The class of the PostgreSQL advisory lock of an account's signing secrets ("SWWS"); the account id is its key. */
const SECRET_LOCK = 0x5357_5753;

/**
 * Two transactions that change an account's secrets (two first emails with a notifyurl, a rotation)
 * run one after the other, so the second reads the secret the first made instead of making a
 * second current one: on PostgreSQL each first takes the account's secret lock, held to its
 * commit; SQLite's write transactions are serial already.
 */
async function lockSecrets(trx: Db, engine: Engine, accountId: number): Promise<void> {
  if (engine === "postgres") {
    await sql`select pg_advisory_xact_lock(cast(${SECRET_LOCK} as integer), cast(${accountId} as integer))`.execute(
      trx,
    );
  }
}

async function hasCurrentSecret(db: Db, accountId: number): Promise<boolean> {
  const current = await db
    .selectFrom("webhook_secrets")
    .select("id")
    .where("account_id", "=", accountId)
    .where("expires_at", "is", null)
    .executeTakeFirst();
  return current !== undefined;
}

/** The secret made, null when the account had one. */
async function ensureSecret(trx: Db, engine: Engine, accountId: number, now: number): Promise<string | null> {
  await lockSecrets(trx, engine, accountId);
  if (await hasCurrentSecret(trx, accountId)) return null;
  const secret = newWebhookSecret();
  await trx
    .insertInto("webhook_secrets")
    .values({ account_id: accountId, secret, created_at: now, expires_at: null })
    .execute();
  return secret;
}

/**
 * A new current secret; the old one keeps signing for `graceMs`, and one rotated out before it stops
 * now: a delivery carries two signatures at most, as the API promises (three rotations in a day
 * signed with four, and the header grew with each). Answers the new secret.
 */
export async function rotateWebhookSecret(
  store: Store,
  clock: Clock,
  accountId: number,
  graceMs = SECRET_GRACE_MS,
  /** What the caller writes in the same transaction (the audit entry), given the secret replaced (null: none) and the new one. */
  also?: (trx: Db, replaced: string | null, secret: string) => Promise<void>,
): Promise<string> {
  const now = clock.now().getTime();
  const secret = newWebhookSecret();
  await store.transaction(async (trx) => {
    await lockSecrets(trx, store.engine, accountId);
    const replaced = await trx
      .selectFrom("webhook_secrets")
      .select("secret")
      .where("account_id", "=", accountId)
      .where("expires_at", "is", null)
      .executeTakeFirst();
    await trx
      .updateTable("webhook_secrets")
      .set({ expires_at: now })
      .where("account_id", "=", accountId)
      .where("expires_at", ">", now)
      .execute();
    await trx
      .updateTable("webhook_secrets")
      .set({ expires_at: now + graceMs })
      .where("account_id", "=", accountId)
      .where("expires_at", "is", null)
      .execute();
    await trx
      .insertInto("webhook_secrets")
      .values({ account_id: accountId, secret, created_at: now, expires_at: null })
      .execute();
    await also?.(trx, replaced?.secret ?? null, secret);
  });
  await store.signals.notify(WEBHOOKS_CHANGED, String(accountId));
  return secret;
}
