// Reading and re-queuing an account's webhook deliveries: the list with every attempt, the
// test event, and redelivery of one delivery or of a time range. Shared by the v2 and operator APIs.
import { monotonicFactory } from "ulid";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { formatBroadcastId } from "../../base/core/ids.js";
import { localDay } from "../../base/core/time.js";
import { pagedRows } from "../../base/store/paging.js";
import type {
  NewWebhookDelivery,
  WebhookAttemptsTable,
  WebhookDeliveryRow,
  WebhookDeliveryStatus,
  WebhookEvent,
} from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { newTestWebhookId, queuedDelivery, redeliveryWebhookId } from "./delivery-rows.js";
import { inboundWhatsAppPayload, lowBalancePayload } from "./events.js";
import type { WebhookApiDeps } from "./operations.js";
import { WEBHOOKS_QUEUED } from "./outbox.js";

/** Deliveries re-queued by one time-range call at most. */
export const MAX_REDELIVERIES = 10_000;
export const DELIVERY_STATUSES: readonly WebhookDeliveryStatus[] = ["pending", "delivering", "delivered", "failed"];
/** What a time-range redelivery matches: `any` is every finished delivery. */
export type RedeliverStatus = "failed" | "delivered" | "any";

type Iso = (ms: number) => string;
type AttemptRow = Omit<WebhookAttemptsTable, "id">;
const ulid = monotonicFactory();

export function describeDelivery(row: WebhookDeliveryRow, attempts: readonly AttemptRow[], iso: Iso) {
  const open = row.status === "pending" || row.status === "delivering";
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event: row.event,
    url: row.url,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: open ? iso(row.next_attempt_at) : null,
    created_at: iso(row.created_at),
    done_at: row.done_at === null ? null : iso(row.done_at),
    last_status: row.last_status,
    last_error: row.last_error,
    redelivery_of: row.redelivery_of,
    payload: JSON.parse(row.payload) as unknown,
    attempts_log: attempts.map((a) => ({
      attempt: a.attempt,
      // Attempts before migration 0057 went to the delivery's url, which never changed then.
      url: a.url ?? row.url,
      status_code: a.status_code,
      latency_ms: a.latency_ms,
      error: a.error,
      at: iso(a.at),
    })),
  };
}

export interface DeliveryFilter {
  status?: WebhookDeliveryStatus | undefined;
  event?: WebhookEvent | undefined;
  page: number;
  perPage: number;
}

/** The account's deliveries, newest first, each with its attempts in order. */
export async function listDeliveries(db: Db, accountId: number, filter: DeliveryFilter, iso: Iso) {
  let query = db.selectFrom("webhook_deliveries").where("account_id", "=", accountId);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.event) query = query.where("event", "=", filter.event);
  const { rows, total } = await pagedRows(query, (q) => q.selectAll().orderBy("id", "desc"), filter);
  return { deliveries: await withAttempts(db, rows, iso), total };
}

/** Deliveries described with their attempts, in order. */
async function withAttempts(db: Db, rows: WebhookDeliveryRow[], iso: Iso) {
  const attempts =
    rows.length === 0
      ? []
      : await db
          .selectFrom("webhook_attempts")
          .select(["delivery_id", "attempt", "status_code", "latency_ms", "error", "at", "url"])
          .where(
            "delivery_id",
            "in",
            rows.map((r) => r.id),
          )
          .orderBy("delivery_id")
          .orderBy("attempt")
          .orderBy("id")
          .execute();
  const byDelivery = new Map<number, AttemptRow[]>();
  const deliveryOf = new Map(rows.map((row) => [row.id, row]));
  for (const attempt of attempts) {
    // The two reads are not one snapshot: an attempt recorded between them belongs to a
    // delivery row read as still `delivering`. Show only attempts the row already counts as done.
    const delivery = deliveryOf.get(attempt.delivery_id)!;
    const finished = delivery.status === "delivering" ? delivery.attempts - 1 : delivery.attempts;
    if (attempt.attempt > finished) continue;
    const list = byDelivery.get(attempt.delivery_id) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.delivery_id, list);
  }
  return rows.map((row) => describeDelivery(row, byDelivery.get(row.id) ?? [], iso));
}

/**
 * The deliveries one message caused (its delivery reports and their redeliveries), oldest
 * first: they share the message's id as their order key (webhook_deliveries_by_key).
 */
export async function deliveriesOfMessage(db: Db, accountId: number, messageId: string, iso: Iso) {
  const rows = await db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("order_key", "=", messageId)
    .where("account_id", "=", accountId)
    .orderBy("id")
    .limit(100)
    .execute();
  return withAttempts(db, rows, iso);
}

async function currentUrl(db: Db, accountId: number, event: WebhookEvent): Promise<string | undefined> {
  const row = await db
    .selectFrom("webhook_endpoints")
    .select("url")
    .where("account_id", "=", accountId)
    .where("event", "=", event)
    .executeTakeFirst();
  return row?.url;
}

function noUrl(event: WebhookEvent): GatewayError {
  return new GatewayError(
    "conflict",
    `No ${event} webhook URL is set for this account; set one first (PUT /api/v2/webhooks; the operator's PUT /admin/api/accounts/{username}/webhooks).`,
    { field: "event" },
  );
}

async function insertOne(deps: WebhookApiDeps, row: NewWebhookDelivery): Promise<WebhookDeliveryRow> {
  const inserted = await deps.store.transaction((trx) =>
    trx.insertInto("webhook_deliveries").values(row).returningAll().executeTakeFirstOrThrow(),
  );
  await deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return inserted;
}

/**
 * Queues a sample event to the account's URL for it, shaped as a real one: the spec's fields in
 * their order, then what a real event adds after them (a delivery_report's broadcast_id, a
 * well-formed id of the account's that names no broadcast: sequence 000000). What marks it as a
 * test is its `webhook-id` (`msg_test_…`) and ids that name nothing.
 */
export async function queueTestEvent(deps: WebhookApiDeps, accountId: number, event: WebhookEvent, iso: Iso) {
  const db = deps.store.db;
  const url = await currentUrl(db, accountId, event);
  if (!url) throw noUrl(event);
  const now = deps.clock.now().getTime();
  const at = isoUtc(new Date(now));
  let payload: Record<string, unknown>;
  if (event === "delivery_report") {
    payload = {
      event,
      message_id: `q${ulid(now)}`,
      status: "delivered",
      delivered_at: at,
      recipient: "9876543210",
      broadcast_id: sampleBroadcastId(accountId, now),
    };
  } else if (event === "low_balance") {
    payload = lowBalancePayload({ username: "example", wallet: "sms", balance: 99, threshold: 100, at: now });
  } else if (event.startsWith("verification_")) {
    const status = event.slice("verification_".length);
    payload = { event, verification_id: `v${ulid(now)}`, recipient: "9876543210", channel: "sms", status, at };
  } else if (event === "chain_completed") {
    payload = {
      event,
      chain_id: `c${ulid(now)}`,
      recipient: "919876543210",
      outcome: "delivered",
      steps: [
        { channel: "whatsapp", to: "919876543210", message_id: `q${ulid(now)}`, status: "failed" },
        { channel: "sms", to: "9876543210", message_id: `q${ulid(now)}`, status: "delivered" },
      ],
      at,
    };
  } else if (event === "link_clicked") {
    payload = {
      event,
      message_id: `q${ulid(now)}`,
      url: "https://example.com/",
      short_url: "https://example.com/l/test",
      clicked_at: at,
      user_agent: null,
    };
  } else if (event === "inbound_whatsapp") {
    payload = inboundWhatsAppPayload({
      accountId,
      from: "919876543210",
      to: "15550001234",
      message: "Test",
      type: "text",
      messageId: `wamid.test_${ulid(now)}`,
      receivedAt: now,
    });
  } else {
    const number = await deps.firstInboundNumber(db, accountId);
    payload = { event, from: "9876543210", to: number ?? "0000000000", message: "Test", received_at: at };
  }
  const webhookId = newTestWebhookId(now);
  const row = await insertOne(
    deps,
    queuedDelivery(
      { account_id: accountId, event, order_key: webhookId, payload: JSON.stringify(payload), redelivery_of: null },
      url,
      webhookId,
      now,
    ),
  );
  return describeDelivery(row, [], iso);
}

/** A broadcast id of the account's, in its shape and dated today (UTC), that names none (sequences start at 1). */
function sampleBroadcastId(accountId: number, now: number): string {
  return formatBroadcastId(accountId, localDay(new Date(now), "UTC"), 0);
}

/**
 * A new delivery of the same event to the account's current URL for it, with a new webhook-id:
 * receivers deduplicate by webhook-id, and a manual redelivery is meant to be processed again.
 * A test event's redelivery is still marked `msg_test_` (its payload names no message).
 */
export async function redeliverOne(deps: WebhookApiDeps, accountId: number, id: number, iso: Iso) {
  const db = deps.store.db;
  const original = await db
    .selectFrom("webhook_deliveries")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  if (!original) throw new GatewayError("not_found", `No webhook delivery with id ${id} in this account.`);
  if (original.status === "pending" || original.status === "delivering") {
    throw new GatewayError(
      "conflict",
      `Webhook delivery ${id} is still ${original.status} and will be retried; redeliver it once it has finished.`,
    );
  }
  // An email notification goes to its send's notifyurl, not to an account-level URL.
  const url = original.event === "email" ? original.url : await currentUrl(db, accountId, original.event);
  if (!url) throw noUrl(original.event);
  const now = deps.clock.now().getTime();
  const row = await insertOne(
    deps,
    queuedDelivery(
      { ...original, redelivery_of: original.id },
      url,
      redeliveryWebhookId(original.webhook_id, now),
      now,
    ),
  );
  return describeDelivery(row, [], iso);
}

export interface RedeliverRange {
  from: number;
  to: number;
  status: RedeliverStatus;
  event?: WebhookEvent | undefined;
}

/**
 * Re-queues the finished deliveries created in [from, to), oldest first (so a message's events
 * keep their order), at most MAX_REDELIVERIES per call, in one transaction. Deliveries of an
 * event that has no URL now are left out.
 */
export async function redeliverRange(deps: WebhookApiDeps, accountId: number, range: RedeliverRange) {
  const db = deps.store.db;
  const urls = new Map(
    (
      await db.selectFrom("webhook_endpoints").select(["event", "url"]).where("account_id", "=", accountId).execute()
    ).map((r) => [r.event, r.url]),
  );
  if (range.event && range.event !== "email" && !urls.has(range.event)) throw noUrl(range.event);
  // Email notifications are redelivered to their send's notifyurl, when asked for by name.
  const events = range.event ? [range.event] : [...urls.keys()];
  if (events.length === 0) {
    throw new GatewayError(
      "conflict",
      "No webhook URL is set for this account; set one first (PUT /api/v2/webhooks; the operator's PUT /admin/api/accounts/{username}/webhooks).",
    );
  }
  const statuses: WebhookDeliveryStatus[] = range.status === "any" ? ["delivered", "failed"] : [range.status];
  const now = deps.clock.now().getTime();
  const result = await deps.store.transaction(async (trx) => {
    const originals = await trx
      .selectFrom("webhook_deliveries")
      .select(["id", "account_id", "event", "order_key", "payload", "created_at", "url", "webhook_id"])
      .where("account_id", "=", accountId)
      .where("status", "in", statuses)
      .where("event", "in", events)
      .where("created_at", ">=", range.from)
      .where("created_at", "<", range.to)
      .orderBy("created_at")
      .orderBy("id")
      .limit(MAX_REDELIVERIES + 1)
      .execute();
    const taken = originals.slice(0, MAX_REDELIVERIES);
    await deps.store.insertMany(
      trx,
      "webhook_deliveries",
      taken.map(({ url, webhook_id, ...o }) =>
        queuedDelivery(
          { ...o, redelivery_of: o.id },
          o.event === "email" ? url : (urls.get(o.event) ?? ""),
          redeliveryWebhookId(webhook_id, now),
          now,
        ),
      ),
    );
    return { count: taken.length, next: originals[MAX_REDELIVERIES] };
  });
  if (result.count > 0) await deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  return {
    count: result.count,
    more: result.next !== undefined,
    // Milliseconds, so that calling again from here skips exactly what this call re-queued.
    next_from: result.next ? new Date(result.next.created_at).toISOString() : null,
  };
}

/**
 * MESSAGE_RETENTION_DAYS: up to `batch` finished deliveries (delivered or given up) made before
 * `cutoff`, with their attempts, the oldest first. Answers how many went.
 */
export async function pruneFinishedDeliveries(store: Store, cutoff: number, batch: number): Promise<number> {
  return store.transaction(async (trx) => {
    const rows = await trx
      .selectFrom("webhook_deliveries")
      .select("id")
      .where("created_at", "<", cutoff)
      .where("status", "in", ["delivered", "failed"])
      .orderBy("id")
      .limit(batch)
      .execute();
    if (rows.length === 0) return 0;
    const ids = rows.map((row) => row.id);
    await trx.deleteFrom("webhook_attempts").where("delivery_id", "in", ids).execute();
    await trx.deleteFrom("webhook_deliveries").where("id", "in", ids).execute();
    return rows.length;
  });
}
