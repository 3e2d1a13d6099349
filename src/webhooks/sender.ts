// The webhook sender: claims due deliveries with a lease, POSTs each as JSON signed the
// Standard Webhooks way, and records every attempt. A 2xx answer delivers; anything else, a
// time-out or a connection error retries with exponential back-off and jitter until the
// delivery is RETRY_FOR old, then it fails. Deliveries with the same order key (one message's
// events) go out one at a time in order; each account has a cap on deliveries in flight, so a
// slow or dead endpoint only ever waits on its own account's slots.

import { createHmac } from "node:crypto";
import type { LookupFunction } from "node:net";
import { Agent } from "undici";
import { backoffMs } from "../core/backoff.js";
import { EpisodeLog } from "../core/episodes.js";
import { WorkerLoop } from "../core/worker-loop.js";
import type { Runtime } from "../runtime/runtime.js";
import type { WebhookDeliveryRow } from "../store/schema.js";
import { WEBHOOKS_CHANGED, WEBHOOKS_QUEUED } from "./outbox.js";
import {
  claimDueDeliveries,
  deliveriesUpkeep,
  type Outcome,
  recordOutcomes,
  retryNow,
  unclaimDeliveries,
} from "./sender-queries.js";
import { activeSecrets } from "./settings.js";
import { checkWebhookUrl, resolveWebhookTarget } from "./url-guard.js";

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

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the
 * decoded secret. Node's native HMAC, 6x faster than the reference package's JavaScript
 * SHA-256; the tests verify every signature with the `standardwebhooks` package itself.
 */
export function signWebhook(key: Buffer, id: string, at: Date, body: string): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** Delay before attempt n+1 after n failed attempts: base·2^(n-1), capped, ±20 % jitter. */
export function webhookRetryDelayMs(attempts: number, options: Pick<SenderOptions, "baseDelayMs" | "maxDelayMs">) {
  return backoffMs(attempts, options.baseDelayMs, options.maxDelayMs);
}

/** How long outcomes gather before they are recorded together. */
const RECORD_LINGER_MS = 25;
/** A rotated-out secret stops signing at its expiry; this is how late that can be noticed. */
const SIGNERS_TTL_MS = 5_000;

export class WebhookSender extends WorkerLoop {
  private unsubscribeChanged: (() => void) | undefined;
  private rounds = 0;
  private readonly inFlight = new Map<number, number>();
  private total = 0;
  private readonly pending = new Set<Promise<void>>();
  private readonly agent: Agent;
  /** Each URL checked and parsed, remembered (the same few URLs carry almost every delivery). */
  private readonly targets = new Map<string, { origin: string; path: string }>();
  /** Each account's signers (current secret first), briefly; dropped when its settings change. */
  private readonly signers = new Map<number, { value: Promise<Buffer[]>; expires: number }>();
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
    // Keep-alive connections per origin, reused across deliveries. Every connection's DNS answer
    // goes through the SSRF guard, and the socket connects to the address the guard checked.
    const allowPrivate = options.allowPrivate;
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      resolveWebhookTarget(new URL(`https://${host}/`), { allowPrivate }).then(
        ({ address, family }) =>
          lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family),
        (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
      );
    };
    // The longest back-off is an hour: a dead endpoint stays one episode while it is retried.
    this.failingEndpoints = new EpisodeLog(deps.logger, {
      quietMs: options.maxDelayMs * 2,
      threshold: ENDPOINT_FAILURES_WARNED,
    });
    this.agent = new Agent({
      connections: 64,
      keepAliveTimeout: 30_000,
      pipelining: 1,
      connect: { lookup, timeout: options.timeoutMs },
    });
  }

  override start(): void {
    this.unsubscribeChanged ??= this.deps.store.signals.listen(WEBHOOKS_CHANGED, (payload) =>
      this.signers.delete(Number(payload)),
    );
    super.start();
  }

  /** Stops claiming, waits for the deliveries in flight and records them. */
  override async stop(): Promise<void> {
    await super.stop();
    this.unsubscribeChanged?.();
    await Promise.allSettled([...this.pending]);
    await this.agent.close();
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
    const sending = this.post(delivery)
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

  /**
   * A URL's origin and path, once checkWebhookUrl accepted it (scheme; an IP-literal host is
   * never looked up, so it is checked here); both remembered per URL.
   */
  private targetOf(url: string): { origin: string; path: string } {
    let target = this.targets.get(url);
    if (!target) {
      checkWebhookUrl(url, { allowPrivate: this.options.allowPrivate });
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= 10_000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
  }

  /** The account's signing keys: each active `whsec_` secret, base64-decoded. */
  private signersOf(accountId: number): Promise<Buffer[]> {
    const now = Date.now();
    const hit = this.signers.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const value = activeSecrets(this.deps.store, accountId, this.deps.clock.now().getTime()).then((secrets) =>
      secrets.map((secret) => Buffer.from(secret.replace(/^whsec_/, ""), "base64")),
    );
    if (this.signers.size >= 10_000) this.signers.clear();
    this.signers.set(accountId, { value, expires: now + SIGNERS_TTL_MS });
    value.catch(() => this.signers.delete(accountId));
    return value;
  }

  private async post(delivery: WebhookDeliveryRow): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const { origin, path } = this.targetOf(delivery.url);
      const signers = await this.signersOf(delivery.account_id);
      const at = this.deps.clock.now();
      const signature = signers.map((key) => signWebhook(key, delivery.webhook_id, at, delivery.payload));
      const response = await this.agent.request({
        origin,
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Switchboard-Webhooks/1",
          "webhook-id": delivery.webhook_id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": signature.join(" "),
        },
        body: delivery.payload,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      // The answer's body is not ours to keep; read it away so the connection can be reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        error: ok ? null : `HTTP ${response.statusCode}`,
        latencyMs: elapsed(),
      };
    } catch (error) {
      const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      return { statusCode: null, error: message.slice(0, 500), latencyMs: elapsed() };
    }
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
