// The dispatcher: claims due messages, hands them to connectors through the router, and
// records each outcome (submitted, retry later, or failed and refunded) in one transaction per
// batch. Several dispatchers (processes) can run against PostgreSQL: there the claim, the
// submits and the record are one transaction whose row locks (FOR NO KEY UPDATE SKIP LOCKED)
// give each message to exactly one of them, and return it at once if its worker dies.

import { sql } from "kysely";
import { backoffMs, jittered } from "../core/backoff.js";
import { WorkerLoop } from "../core/worker-loop.js";
import type { Failure, Retry, Submitted } from "../messages/index.js";
import {
  claimDueMessages,
  failBeforeCarrier,
  markJobsStarted,
  markSubmitted,
  requeueForRetry,
  stillWaiting,
} from "../messages/index.js";
import type { Runtime } from "../runtime/runtime.js";
import type { MessageRow } from "../store/schema.js";
import type { Db } from "../store/store.js";
import type { ReportedMessage } from "../webhooks/events.js";
import type { Handoff } from "../webhooks/handoff.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox, withHandoff } from "../webhooks/outbox.js";
import { type Connector, outcomeOf, type SubmitResult } from "./connector.js";
import { Router } from "./router.js";

export interface DispatcherOptions {
  batchSize: number;
  /** Poll interval when no wake-up signal arrives. */
  idleMs: number;
  /** Submit attempts before a retryable failure becomes final. */
  maxAttempts: number;
  /**
   * How long recording again the submits of a batch whose record failed may keep failing
   * before they are given up, and so sent again (default 10 minutes): the dispatcher claims
   * nothing meanwhile, and a record that fails for another reason than the database being away
   * must not stop it for good.
   */
  unrecordedGiveUpMs?: number;
  /**
   * PostgreSQL, after a round that failed: how long the database must have answered again
   * before this worker claims (default 2 s). Another worker may have submits the carriers took
   * while it was away and records them within a second of its return; claimed before that, they
   * would be sent again.
   */
  claimAfterOutageMs?: number;
  /**
   * How long a message may be held for a connector of its route to be up (`connectors_down`,
   * not an attempt), from the first time it found none, before it fails and is refunded
   * (default 48 h; MESSAGE_VALIDITY_HOURS).
   */
  holdForMs?: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  batchSize: 500,
  idleMs: 1_000,
  // 1+2+4+…+256 s: a carrier may be down for about eight and a half minutes before messages fail.
  maxAttempts: 10,
};

export const QUEUED_SIGNAL = "messages_queued";
/** Channels whose message states are told by `delivery_report` webhooks. */
export const REPORTED_CHANNELS: ReadonlySet<string> = new Set(["sms", "voice", "email"]);
const CLAIM_LINGER_MS = 10;
const FAILED_ROUND_MAX_PAUSE_MS = 15_000;

const HOLD_FOR_MS = 48 * 3_600_000;
const CONNECTOR_WAIT_MAX_MS = 10 * 60_000;

/**
 * The wait of a message whose route has no connector up, after it has waited `waitedMs`: half
 * that (1 s at least, 10 minutes at most), ±20 %. Growing with the time waited, a held backlog
 * is read again a logarithmic number of times, not once a second; a connector that binds again
 * wakes it at once (carriers/registry.ts).
 */
export function connectorWaitMs(waitedMs: number): number {
  return jittered(Math.min(CONNECTOR_WAIT_MAX_MS, Math.max(1000, waitedMs / 2)));
}

/** Back-off before attempt n+1: 1 s, 2 s, 4 s ... capped at 5 minutes, with ±20 % jitter. */
export function retryDelayMs(attempts: number): number {
  return backoffMs(attempts, 1000, 300_000);
}

type FailedRows = Awaited<ReturnType<typeof failBeforeCarrier>>;

interface Outcomes {
  submitted: Submitted[];
  retries: Retry[];
  failures: Failure[];
  /** The connector that took each submitted message. */
  takenBy: Map<string, Connector>;
}

/** Submits the carriers took whose record failed: recorded again before anything is claimed. */
type Unrecorded = Pick<Outcomes, "submitted" | "takenBy"> & { claimed: MessageRow[] };

/** Unrecorded submits kept at most; past it the oldest batches are given up (and logged). */
const MAX_UNRECORDED = 50_000;
const UNRECORDED_GIVE_UP_MS = 10 * 60_000;
const RECORD_AGAIN_MAX_PAUSE_MS = 1_000;
/** Twice the longest pause between another worker's attempts to record again (above). */
const CLAIM_AFTER_OUTAGE_MS = 2 * RECORD_AGAIN_MAX_PAUSE_MS;

/** Where the dispatcher gets its router (the carrier registry swaps it when routes change) and reports results. */
export interface Routing {
  router(): Router;
  /** Every connector's results, for its health. */
  observe?(connector: string, results: readonly SubmitResult[]): void;
}

type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { webhooks?: WebhookOutbox };

export class Dispatcher extends WorkerLoop {
  private readonly routing: Routing;
  /** Rounds failed in a row, for the pause before the next claim. */
  private failedRounds = 0;
  /** Batches whose submits the carriers took but whose record failed (recordAgain). */
  private unrecorded: Unrecorded[] = [];
  /** Attempts in a row to record them again that failed, for the pause before the next. */
  private recordAgainFailures = 0;
  /** When the oldest of them failed to be recorded. */
  private unrecordedSince: number | undefined;

  constructor(
    private readonly deps: Deps,
    routing: Router | Routing,
    private readonly options: DispatcherOptions = DEFAULT_DISPATCHER_OPTIONS,
  ) {
    super({
      name: "dispatch",
      logger: deps.logger,
      signals: deps.store.signals,
      channel: QUEUED_SIGNAL,
      idleMs: options.idleMs,
    });
    this.routing = routing instanceof Router ? { router: () => routing } : routing;
  }

  protected async round(): Promise<boolean> {
    if (this.unrecorded.length > 0) {
      try {
        await this.recordAgain();
        this.recordAgainFailures = 0;
      } catch (error) {
        // Soon again (100 ms doubling to 1 s), not after the claims' longer pause: these messages
        // are queued meanwhile, and another worker that claims them first sends them again.
        this.recordAgainFailures++;
        await this.pause(Math.min(RECORD_AGAIN_MAX_PAUSE_MS, 100 * 2 ** (this.recordAgainFailures - 1)));
        throw error;
      }
    }
    let claimed: number;
    try {
      if (this.failedRounds > 0 && this.deps.store.engine === "postgres") await this.othersRecordFirst();
      claimed = this.deps.store.engine === "postgres" ? await this.claimAndDispatch() : await this.dispatchRead();
      this.failedRounds = 0;
    } catch (error) {
      // A batch whose outcomes could not be recorded is queued again at once (PostgreSQL: its
      // claim was the failed transaction's row locks; SQLite: it never left the queue). What
      // the carriers took of it is kept (`unrecorded`) and recorded first once the database
      // answers (above), so that it is not sent again. Pause before the next claim, 1 s
      // doubling to 15 s, so a fault that fails every record (the database away) does not
      // submit what the carriers did not take over and over.
      this.failedRounds++;
      const pause = Math.min(FAILED_ROUND_MAX_PAUSE_MS, 1000 * 2 ** (this.failedRounds - 1));
      await this.pause(this.unrecorded.length > 0 ? 100 : pause);
      throw error;
    }
    if (claimed === 0) return false;
    // A small claim means the queue is nearly empty: wait a moment so the next claim
    // carries more, instead of reading and committing a few messages at a time.
    if (claimed < this.options.batchSize / 4 && this.isRunning) {
      await new Promise((resolve) => setTimeout(resolve, CLAIM_LINGER_MS));
    }
    return true;
  }

  /**
   * After a failed round on PostgreSQL (the database away): once it answers again, waits before
   * claiming, so that other workers record what the carriers took of their batches while it was
   * away (they try every second at most, recordAgain) before this one can claim those messages
   * and send them again. Throws while the database does not answer.
   */
  private async othersRecordFirst(): Promise<void> {
    await sql`select 1`.execute(this.deps.store.db);
    await this.pause(this.options.claimAfterOutageMs ?? CLAIM_AFTER_OUTAGE_MS);
  }

  /** Waits `ms`, or less when the dispatcher is stopped meanwhile. */
  private async pause(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (this.isRunning && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(100, until - Date.now())));
    }
  }

  /** SQLite: the claim is a read; the outcomes are recorded in one transaction after the submits. */
  private async dispatchRead(): Promise<number> {
    const { store } = this.deps;
    const claimed = await claimDueMessages(store, store.db, this.now(), this.options.batchSize);
    if (claimed.length > 0) await this.dispatch(claimed);
    return claimed.length;
  }

  /**
   * PostgreSQL: one transaction claims (locks) a batch, holds it while the connectors submit,
   * and records the outcomes; another dispatcher skips the locked rows.
   */
  private async claimAndDispatch(): Promise<number> {
    const { store, webhooks } = this.deps;
    let taken: { claimed: MessageRow[]; outcomes: Outcomes } | undefined;
    const batch = await withHandoff(store, webhooks, async (trx, handoff) => {
      const claimed = await claimDueMessages(store, trx, this.now(), this.options.batchSize);
      if (claimed.length === 0) return undefined;
      // The transaction is idle while the carriers answer (up to 14 s a connector, more with
      // failover): a server's idle_in_transaction_session_timeout must not end it, and the
      // claim with it, halfway (the batch would be submitted again).
      await sql`set local idle_in_transaction_session_timeout = 0`.execute(trx);
      const outcomes = await this.submitAll(claimed);
      taken = { claimed, outcomes };
      return { claimed, outcomes, ...(await this.record(trx, handoff, claimed, outcomes)) };
    }).catch((error: unknown) => {
      if (taken) this.keepUnrecorded(taken.claimed, taken.outcomes);
      throw error;
    });
    if (!batch) return 0;
    await this.afterCommit(batch.claimed, batch.outcomes, batch.failed, batch.events);
    return batch.claimed.length;
  }

  /**
   * Submits one claimed batch and records every outcome in one transaction. A message its
   * connector refused with a retryable error (or could not send) goes to the next connector of
   * its plan within the same batch; only when every one of them failed so is it queued again.
   */
  async dispatch(claimed: MessageRow[]): Promise<void> {
    const outcomes = await this.submitAll(claimed);
    // Events this process's webhook sender has room for go to it straight after the commit,
    // as the delivery reports' do (reports.ts): a claim's scan for each batch's `submitted` events cost more.
    const { failed, events } = await withHandoff(this.deps.store, this.deps.webhooks, (trx, handoff) =>
      this.record(trx, handoff, claimed, outcomes),
    ).catch((error: unknown) => {
      this.keepUnrecorded(claimed, outcomes);
      throw error;
    });
    await this.afterCommit(claimed, outcomes, failed, events);
  }

  /** Keeps the submits of a batch whose record failed, to be recorded before the next claim. */
  private keepUnrecorded(claimed: MessageRow[], { submitted, takenBy }: Outcomes): void {
    if (submitted.length === 0) return;
    this.unrecorded.push({ claimed, submitted, takenBy });
    this.unrecordedSince ??= Date.now();
    let kept = this.unrecorded.reduce((n, b) => n + b.submitted.length, 0);
    while (kept > MAX_UNRECORDED && this.unrecorded.length > 1) {
      const dropped = this.unrecorded.shift()!;
      kept -= dropped.submitted.length;
      this.deps.logger.error(
        { messages: dropped.submitted.length },
        "submits the carriers took were never recorded (the database away too long): they will be sent again",
      );
    }
  }

  /**
   * Records the submits of batches whose record failed (the database was away: the transaction
   * died with its connection, or a write failed), as submitted with the carrier's ids, so that
   * they are not claimed and sent again. Only messages still waiting to be sent (queued or
   * dispatching) change, locked first on PostgreSQL: one another worker claimed meanwhile is
   * its (skipped while it holds it; `submitted` once it has sent it again). Their `submitted`
   * events go with them. A receipt the carrier sent meanwhile may have found the message still
   * queued and changed nothing: each connector looks again (`recordedLate`) once the record is
   * committed.
   */
  private async recordAgain(): Promise<void> {
    const batches = this.unrecorded;
    const submitted = batches.flatMap((batch) => batch.submitted);
    const claimed = batches.flatMap((batch) => batch.claimed);
    const { store, webhooks } = this.deps;
    const recorded = await withHandoff(store, webhooks, async (trx, handoff) => {
      const waiting = await stillWaiting(
        store,
        trx,
        submitted.map((item) => item.id),
      );
      const outcomes: Outcomes = {
        submitted: submitted.filter((item) => waiting.has(item.id)),
        retries: [],
        failures: [],
        takenBy: new Map(),
      };
      const { events } = await this.record(trx, handoff, claimed, outcomes);
      return { outcomes, events };
    }).catch((error: unknown) => {
      const giveUpMs = this.options.unrecordedGiveUpMs ?? UNRECORDED_GIVE_UP_MS;
      if (Date.now() - this.unrecordedSince! >= giveUpMs) {
        this.deps.logger.error(
          { messages: submitted.length, err: error, failing_ms: giveUpMs },
          "submits the carriers took could not be recorded in time: given up, they will be sent again",
        );
        this.unrecorded = this.unrecorded.filter((batch) => !batches.includes(batch));
        this.unrecordedSince = undefined;
      }
      throw error;
    });
    this.unrecorded = this.unrecorded.filter((batch) => !batches.includes(batch));
    this.unrecordedSince = undefined;
    // Not waiting any more: the first record's commit went through after all (its answer was
    // lost), or another worker claimed the message meanwhile.
    const notWaiting = submitted.length - recorded.outcomes.submitted.length;
    this.deps.logger.warn(
      { recorded: recorded.outcomes.submitted.length, ...(notWaiting > 0 ? { not_waiting: notWaiting } : {}) },
      "recorded submits whose first record failed",
    );
    await this.afterCommit(claimed, recorded.outcomes, [], recorded.events);
    const changed = new Set(recorded.outcomes.submitted);
    const byConnector = new Map<Connector, string[]>();
    for (const batch of batches) {
      for (const item of batch.submitted) {
        const connector = batch.takenBy.get(item.id);
        if (!connector?.recordedLate || !changed.has(item)) continue;
        const ids = byConnector.get(connector) ?? [];
        ids.push(item.id);
        byConnector.set(connector, ids);
      }
    }
    for (const [connector, ids] of byConnector) {
      // Recorded already: a failure here leaves those reports to the connector's start-up sweep.
      await connector.recordedLate!(ids).catch((error: unknown) =>
        this.deps.logger.warn(
          { err: error, connector: connector.name, messages: ids.length },
          "looking for the reports of messages recorded late failed",
        ),
      );
    }
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /** Writes a batch's outcomes, and its `submitted` and `failed` events, in `trx`. */
  private async record(trx: Db, handoff: Handoff | undefined, claimed: MessageRow[], outcomes: Outcomes) {
    const { submitted, retries, failures } = outcomes;
    if (submitted.length > 0) {
      await markSubmitted(this.deps.store, trx, submitted);
      await markJobsStarted(
        trx,
        claimed.map((m) => m.job_id),
        this.now(),
      );
    }
    if (retries.length > 0) await requeueForRetry(trx, retries);
    const failed = failures.length > 0 ? await failBeforeCarrier(trx, this.deps.clock, failures) : [];
    const events = this.deps.webhooks ? await this.reportEvents(trx, claimed, submitted, failed, handoff) : 0;
    return { failed, events };
  }

  private async afterCommit(claimed: MessageRow[], outcomes: Outcomes, failed: FailedRows, events: number) {
    if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    const { metrics } = this.deps;
    const channelOf = new Map(claimed.map((m) => [m.id, m.channel]));
    for (const item of outcomes.submitted) {
      metrics.messagesDispatched.inc({ channel: channelOf.get(item.id) ?? "unknown", connector: item.connector });
    }
    for (const row of failed) metrics.messagesFailed.inc({ channel: row.channel, stage: "submit" });
  }

  /** Hands each claimed message to the connectors of its plan, failing over within the batch, and files its outcome. */
  private async submitAll(claimed: MessageRow[]): Promise<Outcomes> {
    const now = () => this.now();
    const outcomes: Outcomes = { failures: [], retries: [], submitted: [], takenBy: new Map() };
    const router = this.routing.router();
    const plans = new Map<string, Connector[]>();
    let pending: MessageRow[] = [];
    for (const message of claimed) {
      const plan = router.plan(message);
      if (plan.ok) {
        plans.set(message.id, plan.connectors);
        pending.push(message);
      } else if (plan.code === "connectors_down") {
        this.hold(message, plan, outcomes, now());
      } else {
        // no_route fails now.
        this.settle(message, { ...plan, ok: false }, "", outcomes, now);
      }
    }
    while (pending.length > 0) {
      const groups = new Map<Connector, MessageRow[]>();
      for (const message of pending) {
        const connector = plans.get(message.id)![0]!;
        const list = groups.get(connector) ?? [];
        list.push(message);
        groups.set(connector, list);
      }
      const again: MessageRow[] = [];
      await Promise.all(
        [...groups].map(async ([connector, messages]) => {
          const results = await this.submitTo(connector, messages);
          this.routing.observe?.(connector.name, results);
          messages.forEach((message, index) => {
            const result = results[index]!;
            const plan = plans.get(message.id)!;
            if (outcomeOf(result) === "retryable" && plan.length > 1) {
              plan.shift();
              this.deps.metrics.connectorFailovers.inc({ from: connector.name, to: plan[0]!.name });
              again.push(message);
              return;
            }
            this.settle(message, result, connector.name, outcomes, now);
            if (result.ok) outcomes.takenBy.set(message.id, connector);
          });
        }),
      );
      pending = again;
    }
    return outcomes;
  }

  /** The connector's results for `messages`; a connector that throws has failed them all, retryably. */
  private async submitTo(connector: Connector, messages: MessageRow[]): Promise<SubmitResult[]> {
    let results: SubmitResult[];
    const started = performance.now();
    try {
      results = await connector.submit(messages);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      results = messages.map(() => ({ ok: false, retryable: true, code: "connector_error", message: reason }));
    }
    this.deps.metrics.connectorSubmitSeconds.observe(
      { connector: connector.name },
      (performance.now() - started) / 1000,
    );
    return messages.map(
      (_message, index) =>
        results[index] ?? { ok: false, retryable: true, code: "no_result", message: "Connector gave no result." },
    );
  }

  /**
   * Files one message's final outcome of this batch: submitted, queued again after a back-off,
   * failed, or (deferred: its connector was busy and did not start it) left as it was.
   */
  private settle(message: MessageRow, result: SubmitResult, connector: string, outcomes: Outcomes, now: () => number) {
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
      });
    } else if (result.retryable && message.attempts < this.options.maxAttempts) {
      outcomes.retries.push({
        id: message.id,
        dueAt: now() + retryDelayMs(message.attempts),
        code: result.code,
        message: result.message,
        attempts: message.attempts,
        heldSince: null,
      });
    } else {
      outcomes.failures.push({ id: message.id, code: result.code, message: result.message, at: now() });
    }
  }

  /**
   * A message no connector of whose route is up (down, or disabled): held, not tried. It waits
   * for one without spending an attempt, up to holdForMs from its hold's start, as a carrier's
   * outage or an operator's maintenance can outlast every retry's back-off; then it fails.
   */
  private hold(message: MessageRow, result: { code: string; message: string }, outcomes: Outcomes, now: number) {
    const heldSince = (message.error_code === "connectors_down" ? message.held_since : null) ?? now;
    const waited = now - heldSince;
    const holdForMs = this.options.holdForMs ?? HOLD_FOR_MS;
    if (waited < holdForMs) {
      outcomes.retries.push({
        id: message.id,
        dueAt: now + connectorWaitMs(waited),
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
      message: `${result.message} The message waited ${hours} h (MESSAGE_VALIDITY_HOURS) for one to be up.`,
      at: now,
    });
  }

  /** `submitted` and `failed` delivery_report events, written with the states they report. */
  private async reportEvents(
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
        });
      }
    }
    for (const row of failed) {
      if (REPORTED_CHANNELS.has(row.channel)) events.push({ ...row, status: "failed", at: row.done_at });
    }
    return events.length > 0
      ? this.deps.webhooks!.deliveryReports(trx, events, this.deps.clock.now().getTime(), handoff)
      : 0;
  }
}
