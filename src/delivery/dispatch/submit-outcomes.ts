// What a claimed batch's submits came to, and its record: each message filed as submitted,
// queued again after a back-off, held for a connector to be up, or failed; the batch's outcomes
// and their `submitted` and `failed` delivery_report events written in one transaction.
import { backoffMs, jittered } from "../../base/core/backoff.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { Failure, Retry, Submitted } from "../../domain/messages/index.js";
import {
  failBeforeCarrier,
  markJobsStarted,
  markSubmitted,
  RollupChanges,
  requeueForRetry,
  scheduleAgain,
} from "../../domain/messages/index.js";
import type { ReportedMessage } from "../../domain/webhooks/events.js";
import type { Handoff } from "../../domain/webhooks/handoff.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { type Connector, outcomeOf, type SubmitResult } from "./connector.js";

/** Channels whose message states are told by `delivery_report` webhooks. */
export const REPORTED_CHANNELS: ReadonlySet<string> = new Set(["sms", "voice", "email"]);

const HOLD_FOR_MS = 48 * 3_600_000;

/** What a held message waits for: the longest wait between two looks at it, and the words when it runs out. */
export interface HoldKind {
  maxWaitMs: number;
  /** Ends the failure's message: `The message waited 48 h (MESSAGE_VALIDITY_HOURS) <waitsFor>.` */
  waitsFor: string;
}

/** No connector of its route up: a connector that binds again wakes it at once (carriers/registry.ts). */
export const CONNECTOR_WAIT: HoldKind = { maxWaitMs: 10 * 60_000, waitsFor: "for one to be up" };

/**
 * Its account, or one above it, not active (decision 0155): reactivating it wakes its messages at
 * once (held-accounts.ts); the look every hour at most is for a wake that was missed.
 */
export const ACCOUNT_WAIT: HoldKind = { maxWaitMs: 60 * 60_000, waitsFor: "for its account to be active again" };

/**
 * The wait of a held message after it has waited `waitedMs`: half that (1 s at least,
 * `maxWaitMs` at most), ±20 %. Growing with the time waited, a held backlog is read again a
 * logarithmic number of times, not once a second.
 */
export function holdWaitMs(waitedMs: number, maxWaitMs = CONNECTOR_WAIT.maxWaitMs): number {
  return jittered(Math.min(maxWaitMs, Math.max(1000, waitedMs / 2)));
}

/** Back-off before attempt n+1: 1 s, 2 s, 4 s ... capped at 5 minutes, with ±20 % jitter. */
export function retryDelayMs(attempts: number): number {
  return backoffMs(attempts, 1000, 300_000);
}

export type FailedRows = Awaited<ReturnType<typeof failBeforeCarrier>>;

export interface Outcomes {
  submitted: Submitted[];
  retries: Retry[];
  failures: Failure[];
  /** The connector that took each submitted message. */
  takenBy: Map<string, Connector>;
  /** Promotional messages whose promotional hours closed, scheduled again for the opening. */
  scheduledAgain?: { id: string; dueAt: number }[];
}

/** What recording a batch's outcomes writes to and counts in. */
export type RecordDeps = Pick<Runtime, "store" | "clock" | "metrics"> & { webhooks?: WebhookOutbox };

/**
 * Files one message's final outcome of this batch: submitted, queued again after a back-off,
 * failed, or (deferred: its connector was busy and did not start it) left as it was.
 */
export function settle(
  message: MessageRow,
  result: SubmitResult,
  connector: string,
  outcomes: Outcomes,
  now: () => number,
  maxAttempts: number,
  /** A submitted message's cost and its route's note. */
  costed?: Pick<Submitted, "cost" | "costPrefix" | "note">,
) {
  if (outcomeOf(result) === "deferred") {
    // Not an attempt: nothing is written, so it keeps its place at the head of the queue and
    // its attempts, and is claimed again in the next round. Counted as an attempt with a
    // back-off, a backlog larger than a carrier's rate (a campaign through a TPS-limited
    // bind) was deferred round after round until it failed, and what was left of it waited
    // minutes after the carrier had room again.
    return;
  }
  if (result.ok) {
    outcomes.submitted.push({
      id: message.id,
      connector,
      upstreamId: result.upstreamId,
      at: now(),
      attempts: message.attempts,
      ...costed,
      ...(result.source === undefined ? {} : { source: result.source }),
    });
  } else if (result.retryable && message.attempts < maxAttempts) {
    outcomes.retries.push({
      id: message.id,
      dueAt: now() + retryDelayMs(message.attempts),
      code: result.code,
      message: result.message,
      attempts: message.attempts,
      heldSince: null,
    });
  } else {
    outcomes.failures.push({
      id: message.id,
      code: result.code,
      message: result.message,
      at: now(),
      ...(connector ? { connector } : {}),
      ...(result.source === undefined ? {} : { source: result.source }),
    });
  }
}

/**
 * A message held, not tried: no connector of its route is up (down, or disabled), or its account
 * is not active. It waits without spending an attempt, up to holdForMs from its hold's start (as
 * a carrier's outage or an operator's maintenance can outlast every retry's back-off); then it
 * fails, refunded as every failure before a carrier is.
 */
export function hold(
  message: MessageRow,
  result: { code: string; message: string },
  outcomes: Outcomes,
  now: number,
  holdFor: number | undefined,
  kind: HoldKind = CONNECTOR_WAIT,
) {
  const heldSince = (message.error_code === result.code ? message.held_since : null) ?? now;
  const waited = now - heldSince;
  const holdForMs = holdFor ?? HOLD_FOR_MS;
  if (waited < holdForMs) {
    outcomes.retries.push({
      id: message.id,
      dueAt: now + holdWaitMs(waited, kind.maxWaitMs),
      code: result.code,
      message: result.message,
      attempts: message.attempts - 1,
      heldSince,
    });
    return;
  }
  const hours = Math.round((holdForMs / 3_600_000) * 10) / 10;
  outcomes.failures.push({
    id: message.id,
    code: result.code,
    message: `${result.message} The message waited ${hours} h (MESSAGE_VALIDITY_HOURS) ${kind.waitsFor}.`,
    at: now,
  });
}

/** Writes a batch's outcomes, and its `submitted` and `failed` events, in `trx`. */
export async function recordOutcomes(
  deps: RecordDeps,
  trx: Db,
  handoff: Handoff | undefined,
  claimed: MessageRow[],
  outcomes: Outcomes,
) {
  const { submitted, retries, failures } = outcomes;
  // The batch's changes to the delivery rollups, written last (one upsert per rollup row).
  const rollups = new RollupChanges();
  if (submitted.length > 0) {
    await markSubmitted(deps.store, trx, submitted, claimed, rollups);
    await markJobsStarted(
      trx,
      claimed.map((m) => m.job_id),
      deps.clock.now().getTime(),
    );
  }
  if (retries.length > 0) await requeueForRetry(trx, retries);
  if (outcomes.scheduledAgain?.length) await scheduleAgain(trx, outcomes.scheduledAgain);
  const failed =
    failures.length > 0 ? await failBeforeCarrier(deps.store, trx, deps.clock, failures, rollups, claimed) : [];
  const events = deps.webhooks ? await reportEvents(deps, trx, claimed, submitted, failed, handoff) : 0;
  await rollups.write(deps.store, trx);
  return { failed, events };
}

/** After the record's commit: wakes the webhook senders, counts the batch's messages. */
export async function afterCommit(
  deps: RecordDeps,
  claimed: MessageRow[],
  outcomes: Outcomes,
  failed: FailedRows,
  events: number,
) {
  if (events > 0) await deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  const { metrics } = deps;
  const channelOf = new Map(claimed.map((m) => [m.id, m.channel]));
  for (const item of outcomes.submitted) {
    metrics.messagesDispatched.inc({ channel: channelOf.get(item.id) ?? "unknown", connector: item.connector });
  }
  for (const row of failed) metrics.messagesFailed.inc({ channel: row.channel, stage: "submit" });
}

/** `submitted` and `failed` delivery_report events, written with the states they report. */
async function reportEvents(
  deps: RecordDeps,
  trx: Db,
  claimed: MessageRow[],
  submitted: Submitted[],
  failed: FailedRows,
  handoff: Handoff | undefined,
): Promise<number> {
  const byId = new Map(claimed.map((m) => [m.id, m]));
  const events: ReportedMessage[] = [];
  for (const item of submitted) {
    const message = byId.get(item.id);
    if (message && REPORTED_CHANNELS.has(message.channel)) {
      events.push({
        id: item.id,
        account_id: message.account_id,
        recipient: message.recipient,
        status: "submitted",
        at: item.at,
        channel: message.channel,
        broadcast_id: message.broadcast_id,
        job_id: message.job_id,
      });
    }
  }
  for (const row of failed) {
    if (REPORTED_CHANNELS.has(row.channel)) events.push({ ...row, status: "failed", at: row.done_at });
  }
  return events.length > 0 ? deps.webhooks!.deliveryReports(trx, events, deps.clock.now().getTime(), handoff) : 0;
}
