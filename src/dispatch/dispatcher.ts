// The dispatcher: claims due messages with a lease, hands them to connectors through the
// router, and records each outcome (submitted, retry later, or failed and refunded) in one
// transaction per batch. Several dispatchers (processes) can run against PostgreSQL: the
// claim uses FOR UPDATE SKIP LOCKED, so each message goes to exactly one of them.

import { WorkerLoop } from "../core/worker-loop.js";
import type { Failure, Retry, Submitted } from "../messages/index.js";
import {
  claimDueMessages,
  failBeforeCarrier,
  markJobsStarted,
  markSubmitted,
  renewLeases,
  requeueForRetry,
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
  leaseMs: number;
  /** Poll interval when no wake-up signal arrives. */
  idleMs: number;
  /** Submit attempts before a retryable failure becomes final. */
  maxAttempts: number;
}

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  batchSize: 500,
  // A crashed worker's claims return to the queue after this long; a batch takes far less.
  leaseMs: 15_000,
  idleMs: 1_000,
  // 1+2+4+…+256 s: a carrier may be down for about eight and a half minutes before messages fail.
  maxAttempts: 10,
};

export const QUEUED_SIGNAL = "messages_queued";
/** Channels whose message states are told by `delivery_report` webhooks. */
export const REPORTED_CHANNELS: ReadonlySet<string> = new Set(["sms", "voice", "email"]);
const CLAIM_LINGER_MS = 10;

/** Back-off before attempt n+1: 1 s, 2 s, 4 s ... capped at 5 minutes, with ±20 % jitter. */
export function retryDelayMs(attempts: number): number {
  const base = Math.min(1000 * 2 ** Math.max(0, attempts - 1), 300_000);
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

interface Outcomes {
  submitted: Submitted[];
  retries: Retry[];
  failures: Failure[];
}

/** Where the dispatcher gets its router (the carrier registry swaps it when routes change) and reports results. */
export interface Routing {
  router(): Router;
  /** Every connector's results, for its health. */
  observe?(connector: string, results: readonly SubmitResult[]): void;
}

type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { webhooks?: WebhookOutbox };

export class Dispatcher extends WorkerLoop {
  private readonly routing: Routing;

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
    const claimed = await claimDueMessages(
      this.deps.store,
      this.deps.clock.now().getTime(),
      this.options.batchSize,
      this.options.leaseMs,
    );
    if (claimed.length === 0) return false;
    await this.dispatch(claimed);
    // A small claim means the queue is nearly empty: wait a moment so the next claim
    // carries more, instead of reading and committing a few messages at a time.
    if (claimed.length < this.options.batchSize / 4 && this.isRunning) {
      await new Promise((resolve) => setTimeout(resolve, CLAIM_LINGER_MS));
    }
    return true;
  }

  /**
   * Submits one claimed batch and records every outcome in one transaction. A message its
   * connector refused with a retryable error (or could not send) goes to the next connector of
   * its plan within the same batch; only when every one of them failed so is it queued again.
   */
  async dispatch(claimed: MessageRow[]): Promise<void> {
    const now = () => this.deps.clock.now().getTime();
    const outcomes: Outcomes = { failures: [], retries: [], submitted: [] };
    const leases = this.holdLeases(claimed);
    try {
      await this.submitAll(claimed, outcomes, now);
    } finally {
      // The outcome transaction below locks the rows as it updates them, after which an expired
      // lease cannot take them back; the heartbeat's last beat left it at least 2/3 of a lease.
      await leases.stop();
    }
    const { submitted, retries, failures } = outcomes;
    let events = 0;
    // Events this process's webhook sender has room for go to it straight after the commit,
    // as the delivery reports' do (reports.ts): a claim's scan for each batch's `submitted` events cost more.
    const failed = await withHandoff(this.deps.store, this.deps.webhooks, async (trx, handoff) => {
      if (submitted.length > 0) {
        await markSubmitted(this.deps.store, trx, submitted);
        await markJobsStarted(
          trx,
          claimed.map((m) => m.job_id),
          now(),
        );
      }
      if (retries.length > 0) await requeueForRetry(trx, retries);
      const failedRows = failures.length > 0 ? await failBeforeCarrier(trx, this.deps.clock, failures) : [];
      if (this.deps.webhooks) events = await this.reportEvents(trx, claimed, submitted, failedRows, handoff);
      return failedRows;
    });
    if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);

    const { metrics } = this.deps;
    const channelOf = new Map(claimed.map((m) => [m.id, m.channel]));
    for (const item of submitted) {
      metrics.messagesDispatched.inc({ channel: channelOf.get(item.id) ?? "unknown", connector: item.connector });
    }
    for (const row of failed) metrics.messagesFailed.inc({ channel: row.channel, stage: "submit" });
  }

  /** Hands each claimed message to the connectors of its plan, failing over within the batch, and files its outcome. */
  private async submitAll(claimed: MessageRow[], outcomes: Outcomes, now: () => number): Promise<void> {
    const router = this.routing.router();
    const plans = new Map<string, Connector[]>();
    let pending: MessageRow[] = [];
    for (const message of claimed) {
      const plan = router.plan(message);
      if (plan.ok) {
        plans.set(message.id, plan.connectors);
        pending.push(message);
      } else {
        // no_route fails now; connectors_down waits like any retryable failure.
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
          });
        }),
      );
      pending = again;
    }
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

  /** Files one message's final outcome of this batch: submitted, queued again after a back-off, or failed. */
  private settle(message: MessageRow, result: SubmitResult, connector: string, outcomes: Outcomes, now: () => number) {
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
      });
    } else {
      outcomes.failures.push({ id: message.id, code: result.code, message: result.message, at: now() });
    }
  }

  /**
   * PostgreSQL: while a claimed batch is sent (however long its connectors take, failover rounds
   * included), its lease is renewed every third of the lease, so housekeeping never hands a
   * message that is being submitted to another worker. SQLite's one dispatcher holds no leases.
   */
  private holdLeases(claimed: MessageRow[]): { stop(): Promise<void> } {
    const first = claimed[0];
    if (this.deps.store.engine !== "postgres" || first?.lease_until == null) return { stop: async () => undefined };
    const ids = claimed.map((m) => m.id);
    let held = Number(first.lease_until);
    let beating: Promise<void> | undefined;
    const beat = async () => {
      const until = this.deps.clock.now().getTime() + this.options.leaseMs;
      try {
        await renewLeases(this.deps.store.db, ids, until, held);
        held = until;
      } catch (error) {
        this.deps.logger.warn({ err: error, messages: ids.length }, "could not renew the dispatch lease of a batch");
      }
    };
    const timer = setInterval(() => {
      if (!beating) beating = beat().finally(() => (beating = undefined));
    }, this.options.leaseMs / 3);
    return {
      stop: async () => {
        clearInterval(timer);
        await beating;
      },
    };
  }

  /** `submitted` and `failed` delivery_report events, written with the states they report. */
  private async reportEvents(
    trx: Db,
    claimed: MessageRow[],
    submitted: Submitted[],
    failed: Awaited<ReturnType<typeof failBeforeCarrier>>,
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
