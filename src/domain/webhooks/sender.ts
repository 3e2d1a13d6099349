// The webhook sender: claims due deliveries with a lease, POSTs each as JSON signed the
// Standard Webhooks way (signed-post.ts), and records every attempt. A 2xx answer delivers;
// anything else, a time-out or a connection error retries with exponential back-off and
// jitter until the delivery is RETRY_FOR old, then it fails. Deliveries with the same order key
// (one message's events) go out one at a time in order; each account has a cap on deliveries in
// flight, so a slow or dead endpoint only ever waits on its own account's slots.

import { backoffMs } from "../../base/core/backoff.js";
import { EpisodeLog } from "../../base/core/episodes.js";
import { WorkerLoop } from "../../base/core/worker-loop.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { WebhookDeliveryRow } from "../../base/store/schema.js";
import { WEBHOOKS_CHANGED, WEBHOOKS_QUEUED } from "./outbox.js";
import {
  claimDueDeliveries,
  deliveriesUpkeep,
  type Outcome,
  recordOutcomes,
  retryNow,
  unclaimDeliveries,
} from "./sender-queries.js";
import { WebhookPoster } from "./signed-post.js";

type Deps = Pick<Runtime, "store" | "clock" | "logger"> & Partial<Pick<Runtime, "metrics">>;

/** Failed attempts in a row at one endpoint before the operator is told (a single blip is not news). */
const ENDPOINT_FAILURES_WARNED = 3;

export interface SenderOptions {
  /** Deliveries in flight in this process. */
  concurrency: number;
  /** Deliveries in flight per account. */
  perAccount: number;
  timeoutMs: number;
  leaseMs: number;
  idleMs: number;
  /** Retries go on for at least this long after the event, then the delivery fails. */
  retryForMs: number;
  /** Finished deliveries (and their attempts) are deleted this long after they finished. */
  retentionMs: number;
  /** First retry delay; doubled each attempt up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: loopback/private targets and plain http allowed. */
  allowPrivate: boolean;
}

export const DEFAULT_SENDER_OPTIONS: SenderOptions = {
  concurrency: 512,
  perAccount: 256,
  timeoutMs: 10_000,
  leaseMs: 60_000,
  idleMs: 1_000,
  retryForMs: 24 * 60 * 60 * 1000,
  retentionMs: 30 * 24 * 60 * 60 * 1000,
  baseDelayMs: 5_000,
  maxDelayMs: 60 * 60 * 1000,
  allowPrivate: false,
};

/** Delay before attempt n+1 after n failed attempts: base·2^(n-1), capped, ±20 % jitter. */
export function webhookRetryDelayMs(attempts: number, options: Pick<SenderOptions, "baseDelayMs" | "maxDelayMs">) {
  return backoffMs(attempts, options.baseDelayMs, options.maxDelayMs);
}

/** How long outcomes gather before they are recorded together. */
const RECORD_LINGER_MS = 25;

export class WebhookSender extends WorkerLoop {
  private unsubscribeChanged: (() => void) | undefined;
  private rounds = 0;
  private readonly inFlight = new Map<number, number>();
  private total = 0;
  private readonly pending = new Set<Promise<void>>();
  private readonly poster: WebhookPoster;
  /** Outcomes waiting to be recorded, in one transaction per tick. */
  private results: { delivery: WebhookDeliveryRow; outcome: Outcome }[] = [];
  private recording: Promise<void> | undefined;
  /** Endpoints failing now, each warned about once (see ENDPOINT_FAILURES_WARNED). */
  private readonly failingEndpoints: EpisodeLog;
  /** Endpoints answering again after failing, whose deliveries in back-off are due now (flushResults). */
  private recovered = new Map<string, { account_id: number; url: string }>();

  constructor(
    private readonly deps: Deps,
    private readonly options: SenderOptions = DEFAULT_SENDER_OPTIONS,
  ) {
    super({
      name: "webhook",
      logger: deps.logger,
      signals: deps.store.signals,
      channel: WEBHOOKS_QUEUED,
      idleMs: options.idleMs,
    });
    // The longest back-off is an hour: a dead endpoint stays one episode while it is retried.
    this.failingEndpoints = new EpisodeLog(deps.logger, {
      quietMs: options.maxDelayMs * 2,
      threshold: ENDPOINT_FAILURES_WARNED,
    });
    this.poster = new WebhookPoster(deps, options);
  }

  override start(): void {
    this.unsubscribeChanged ??= this.deps.store.signals.listen(WEBHOOKS_CHANGED, (payload) =>
      this.poster.forgetSigners(Number(payload)),
    );
    super.start();
  }

  /** Stops claiming, waits for the deliveries in flight and records them. */
  override async stop(): Promise<void> {
    await super.stop();
    this.unsubscribeChanged?.();
    await Promise.allSettled([...this.pending]);
    await this.poster.close();
  }

  protected async round(): Promise<boolean> {
    if (this.rounds++ % 20 === 0) await this.upkeep();
    const room = this.options.concurrency - this.total;
    const claimed = await this.claimAndSend();
    // Again at once only after a full claim (more may be due); a claim of fewer took all there
    // was, and the next recording, wake-up signal or idle round looks again.
    return room > 0 && claimed >= room;
  }

  /**
   * Deliveries whose sender died (lease expired) go back to pending; finished deliveries past
   * the retention period are deleted with their attempts (see deliveriesUpkeep).
   */
  async upkeep(): Promise<void> {
    await deliveriesUpkeep(this.deps.store, this.deps.clock.now().getTime(), this.options.retentionMs);
  }

  /** Claims what this process has room for and starts sending it; returns how many. */
  async claimAndSend(): Promise<number> {
    const room = this.options.concurrency - this.total;
    if (room <= 0) return 0;
    const claimed = await this.claim(room);
    for (const delivery of claimed) {
      this.inFlight.set(delivery.account_id, (this.inFlight.get(delivery.account_id) ?? 0) + 1);
      this.total++;
      this.launch(delivery);
    }
    return claimed.length;
  }

  /**
   * Slots for deliveries that the outbox writes as already claimed (DirectSender): at most
   * `wanted`, within this process's and the account's caps; they count as in flight at once.
   */
  reserve(accountId: number, wanted: number): number {
    if (!this.isRunning) return 0;
    const used = this.inFlight.get(accountId) ?? 0;
    const granted = Math.max(
      0,
      Math.min(wanted, this.options.concurrency - this.total, this.options.perAccount - used),
    );
    if (granted > 0) {
      this.inFlight.set(accountId, used + granted);
      this.total += granted;
    }
    return granted;
  }

  /** Gives back reserved slots whose deliveries were not written (their transaction failed). */
  release(accountId: number, count: number): void {
    this.settle(accountId, count);
  }

  /** The lease a delivery written as claimed gets, as a claim would give it. */
  get leaseMs(): number {
    return this.options.leaseMs;
  }

  /**
   * Sends deliveries written as claimed in reserved slots, once their transaction committed.
   * After stop() they go back to pending for whichever sender runs next.
   */
  takeNow(deliveries: readonly WebhookDeliveryRow[]): void {
    if (!this.isRunning) {
      for (const delivery of deliveries) this.settle(delivery.account_id, 1);
      const ids = deliveries.map((delivery) => delivery.id);
      if (ids.length > 0) void unclaimDeliveries(this.deps.store.db, ids).catch(() => undefined);
      return;
    }
    for (const delivery of deliveries) this.launch(delivery);
  }

  /**
   * Sends one delivery whose slot is already counted, and frees the slot once the receiver has
   * answered (or failed), not once the outcome is recorded: the slots bound the requests open at
   * a receiver, and holding them through RECORD_LINGER_MS and the recording's commit as well
   * capped one account at 256 slots ÷ ~43 ms ≈ 5,900 deliveries a second (bench/vs-kannel's
   * delivery reports fell behind at that rate). Until it is recorded the delivery stays
   * `delivering` with its lease, so a later event of the same message still waits for it.
   */
  private launch(delivery: WebhookDeliveryRow): void {
    const sending = this.poster
      .post(delivery)
      // No claim here: the recording of this outcome follows within RECORD_LINGER_MS and wakes
      // the loop once for its whole batch (flushResults). A claim per answer was a scan of the
      // pending deliveries per delivery: 2,000 a second under load, most finding nothing.
      .finally(() => this.settle(delivery.account_id, 1))
      .then((outcome) => this.record(delivery, outcome))
      .finally(() => this.pending.delete(sending));
    this.pending.add(sending);
  }

  private settle(accountId: number, count: number): void {
    const left = (this.inFlight.get(accountId) ?? count) - count;
    if (left <= 0) this.inFlight.delete(accountId);
    else this.inFlight.set(accountId, left);
    this.total -= count;
  }

  /** Due deliveries within this process's and each account's caps (see claimDueDeliveries). */
  private claim(limit: number): Promise<WebhookDeliveryRow[]> {
    const { leaseMs, perAccount } = this.options;
    const now = this.deps.clock.now().getTime();
    return claimDueDeliveries(this.deps.store, { now, limit, perAccount, leaseMs, inFlight: this.inFlight });
  }

  /** Queues the outcome; outcomes of RECORD_LINGER_MS are recorded in one transaction. */
  private record(delivery: WebhookDeliveryRow, outcome: Outcome): Promise<void> {
    this.results.push({ delivery, outcome });
    const endpoint = `${delivery.account_id} ${delivery.url}`;
    const fields = { account_id: delivery.account_id, url: delivery.url };
    if (outcome.error === null) {
      if (this.failingEndpoints.ended(endpoint, "webhook endpoint answers again", fields)) {
        this.recovered.set(endpoint, fields);
      }
    } else
      this.failingEndpoints.occurred(
        endpoint,
        `webhook endpoint failing: ${outcome.error}; its deliveries are retried`,
        {
          ...fields,
          error: outcome.error,
        },
      );
    // A few milliseconds of patience: each recording is a commit (an fsync on SQLite).
    this.recording ??= new Promise<void>((resolve) => setTimeout(resolve, RECORD_LINGER_MS)).then(() =>
      this.flushResults(),
    );
    return this.recording;
  }

  /**
   * Endpoints that answer 2xx again after failing at least ENDPOINT_FAILURES_WARNED times: their
   * deliveries waiting out a back-off go now, not up to an hour later (they are claimed within
   * the account's cap on deliveries in flight, so a recovering receiver is not flooded).
   */
  private async retryRecovered(now: number): Promise<void> {
    if (this.recovered.size === 0) return;
    const endpoints = [...this.recovered.values()];
    this.recovered = new Map();
    for (const endpoint of endpoints) {
      try {
        const due = await retryNow(this.deps.store.db, endpoint.account_id, endpoint.url, now);
        if (due === 0) continue;
        this.deps.logger.info(
          { ...endpoint, deliveries: due },
          "retries of a webhook endpoint that answers again are due now",
        );
        // Other processes' senders claim them too.
        await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
      } catch (error) {
        // They keep their back-off.
        this.deps.logger.warn({ err: error, ...endpoint }, "making a recovered endpoint's retries due failed");
      }
    }
  }

  private async flushResults(): Promise<void> {
    const batch = this.results;
    this.results = [];
    this.recording = undefined;
    const now = this.deps.clock.now().getTime();
    const statuses = batch.map(({ delivery, outcome }) => {
      if (outcome.error === null) return "delivered";
      return now - delivery.created_at >= this.options.retryForMs ? "failed" : "pending";
    });
    try {
      await recordOutcomes(
        this.deps.store,
        batch,
        statuses,
        now,
        (delivery) => now + webhookRetryDelayMs(delivery.attempts, this.options),
      );
      batch.forEach(({ delivery }, index) => {
        const result = statuses[index] === "pending" ? "retrying" : statuses[index]!;
        this.deps.metrics?.webhookAttempts.inc({ event: delivery.event, result });
      });
      await this.retryRecovered(now);
      // Their slots were freed at the answers, and a later event of these messages waited for
      // them to be recorded: one claim now for the batch.
      if (this.total <= this.options.concurrency / 2) this.wake();
    } catch (error) {
      // The leases run out and the deliveries are tried again: a receiver may see one twice,
      // which its webhook-id lets it recognise.
      this.deps.logger.error({ err: error, deliveries: batch.length }, "recording webhook attempts failed");
    }
  }
}
