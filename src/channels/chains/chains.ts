// Chains: the service behind POST /api/v2/send. A chain's first step goes with the request; the
// worker's pass (advance) sends each later step when its condition on the step before is met,
// acts on deadlines from their stored due times (so a restart loses no timer), takes over a send
// whose process stopped mid-way (its lease ran out), and completes a chain once every message it
// sent is final, with its chain_completed event in the same transaction.
import type { Logger } from "pino";
import { type Clock, isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { isChainId, newChainId } from "../../base/core/ids.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { ChainCondition, MessageStatus } from "../../base/store/schema.js";
import { accountStatuses, getAccount } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";
import {
  claimIdempotencyKey,
  idempotencyKeyOf,
  messageStatuses,
  requestHash,
  storedAnswer,
} from "../../domain/messages/index.js";
import { WEBHOOKS_QUEUED, type WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { FINAL_STATUSES, reached, verdictOf } from "./conditions.js";
import { describeChain, stepsWithStatus } from "./listing.js";
import { pruneChains } from "./retention.js";
import {
  type ChainRow,
  chainById,
  chainOf,
  claimStep,
  completeChain,
  decidedRunningChains,
  extendLease,
  insertChain,
  type OpenStep,
  recordSend,
  type StepRow,
  skipFrom,
  stepsOf,
  waitingOrStaleSteps,
} from "./rows.js";
import { type ChainChannel, planSteps } from "./step-fields.js";
import { type StepOutcome, type StepSendDeps, sendStep } from "./step-send.js";

export type ChainsDeps = StepSendDeps & {
  webhooks: WebhookOutbox;
  clock: Clock;
  metrics: Pick<Metrics, "chainsStarted" | "chainsCompleted">;
  /** MESSAGE_RETENTION_DAYS: chains started before it are pruned once done with (0: kept). */
  retentionDays: number;
};

/** How long a claimed step's send may take before another worker takes it over. */
export const STEP_LEASE_MS = 60_000;
const PAGE = 500;
/** Clock time between two retention rounds, and the chains one removes (in batches). */
const RETENTION_EVERY_MS = 60_000;
const RETENTION_BATCH = 500;
const RETENTION_BATCHES_PER_ROUND = 20;

export interface ChainRequest {
  recipient: string;
  steps: Array<{ channel: ChainChannel; to?: string; after?: { on: ChainCondition; within_seconds?: number } }>;
}

export class Chains {
  constructor(private readonly deps: ChainsDeps) {}

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /**
   * Checks the steps, stores the chain and sends its first step; the chain as it stands then. A
   * request with an Idempotency-Key that started a chain before answers that chain.
   */
  async start(principal: Principal, request: ChainRequest, idempotencyHeader?: string | string[]) {
    const plans = planSteps(request.recipient, request.steps);
    const key = idempotencyKeyOf(idempotencyHeader);
    const hash = key ? requestHash("send", request) : "";
    const earlier = async () => {
      const stored = key ? await storedAnswer(this.deps.store.db, principal.accountId, key, hash) : undefined;
      return (stored as { chain_id?: string } | undefined)?.chain_id;
    };
    const before = await earlier();
    if (before) return this.get(principal, before);
    const now = this.now();
    const id = newChainId(now);
    const stored = await this.deps.store.transaction(async (trx) => {
      if (key) {
        const response = JSON.stringify({ chain_id: id });
        if (
          !(await claimIdempotencyKey(trx, { accountId: principal.accountId, key, requestHash: hash, response, now }))
        )
          return false;
      }
      const chain = { id, accountId: principal.accountId, recipient: request.recipient, now };
      await insertChain(trx, { ...chain, leaseUntil: now + STEP_LEASE_MS }, plans);
      return true;
    });
    if (!stored) {
      // A concurrent request with the same key committed first.
      const winner = await earlier();
      if (!winner) throw new GatewayError("conflict", "A request with this Idempotency-Key is in progress.");
      return this.get(principal, winner);
    }
    this.deps.metrics.chainsStarted.inc();
    const chain = (await chainById(this.deps.store.db, id))!;
    const [first] = await stepsOf(this.deps.store.db, id);
    await this.send(chain, first!, principal);
    await this.advanceChain(id);
    return this.get(principal, id);
  }

  async get(principal: Principal, id: string) {
    const chain = isChainId(id) ? await chainOf(this.deps.store.db, principal.accountId, id) : undefined;
    if (!chain) throw new GatewayError("not_found", `No chain ${id.slice(0, 40)} in this account.`);
    return describeChain(chain, await stepsWithStatus(this.deps.store.db, chain.id));
  }

  /**
   * The worker's pass: every chain with a waiting step or a send whose lease ran out moves as far
   * as it can now; chains with nothing left to send complete once their messages are final.
   * Answers how many chains it looked at.
   */
  async advance(): Promise<number> {
    const now = this.now();
    const db = this.deps.store.db;
    const chains = new Set<string>();
    let after: OpenStep | undefined;
    for (;;) {
      const page = await waitingOrStaleSteps(this.deps.store, now, PAGE, after);
      // One read of the watched messages a page; only chains with something to do go further.
      const statuses = await messageStatuses(
        db,
        page.flatMap((s) => (s.previous_message_id ? [s.previous_message_id] : [])),
      );
      for (const step of page) {
        const previous =
          step.previous_status === "refused"
            ? "refused"
            : step.previous_message_id
              ? statuses.get(step.previous_message_id)
              : undefined;
        const due =
          step.status === "sending" ||
          (previous !== undefined && verdictOf(step.after_on ?? "failed", previous, step.due_at, now) !== "wait");
        if (due) chains.add(step.chain_id);
      }
      if (page.length < PAGE) break;
      after = page[page.length - 1];
    }
    for (const id of chains) await this.advanceChain(id);
    // Chains whose last message is still on its way; a page a pass, the oldest first.
    for (const chain of await decidedRunningChains(this.deps.store, PAGE)) {
      chains.add(chain.id);
      await this.completeIfFinal(chain);
    }
    return chains.size;
  }

  /** MESSAGE_RETENTION_DAYS: removes the chains started before its cutoff that are done with. */
  async prune(): Promise<number> {
    if (this.deps.retentionDays <= 0) return 0;
    const cutoff = this.now() - this.deps.retentionDays * 86_400_000;
    let removed = 0;
    for (let i = 0; i < RETENTION_BATCHES_PER_ROUND; i++) {
      const batch = await pruneChains(this.deps.store, cutoff, RETENTION_BATCH);
      removed += batch;
      if (batch < RETENTION_BATCH) break;
    }
    return removed;
  }

  /** Moves one chain: sends or skips its waiting step while its condition is decided. */
  private async advanceChain(id: string): Promise<void> {
    const db = this.deps.store.db;
    for (;;) {
      const chain = await chainById(db, id);
      if (chain?.status !== "running") return;
      const steps = await stepsOf(db, id);
      const now = this.now();
      const open = steps.find(
        (s) => s.status === "waiting" || (s.status === "sending" && s.due_at !== null && s.due_at < now),
      );
      if (!open) {
        await this.completeIfFinal(chain, steps);
        return;
      }
      if (open.status === "waiting") {
        const previous = steps[open.position - 1]!;
        const status = previous.status === "refused" ? "refused" : await this.messageStatus(previous);
        if (status === undefined) return;
        const verdict = verdictOf(open.after_on ?? "failed", status, open.due_at, now);
        if (verdict === "wait") return;
        if (verdict === "skip") {
          await skipFrom(db, open, now);
          continue;
        }
      }
      if (!(await claimStep(db, open, now, now + STEP_LEASE_MS))) return;
      const account = await getAccount(db, chain.account_id);
      if (!account) return;
      // The status it acts with now: a parent blocked since the chain started stops it too (decision 0148).
      const acting = (await accountStatuses(db, [account.id]))[0]?.status ?? account.status;
      const principal: Principal = {
        accountId: account.id,
        username: account.username,
        role: account.role,
        status: acting,
        ...(acting !== account.status ? { statusOfParent: true } : {}),
        timeZone: account.time_zone,
      };
      if (!(await this.send(chain, { ...open, status: "sending" }, principal))) return;
    }
  }

  /**
   * Sends a claimed step and records how it went, then each step after a refused one, which the
   * record claims for this caller; false when a channel asked to try later.
   */
  private async send(chain: ChainRow, step: StepRow, principal: Principal): Promise<boolean> {
    for (let current = step; ; ) {
      const outcome: StepOutcome = await sendStep(this.deps, principal, current, chain.step_count);
      const now = this.now();
      if ("later" in outcome) {
        await extendLease(this.deps.store.db, current, now + STEP_LEASE_MS);
        return false;
      }
      const recorded = await this.deps.store.transaction((trx) =>
        recordSend(trx, current, outcome, now, now + STEP_LEASE_MS),
      );
      if (recorded !== "next_claimed") return true;
      const next = (await stepsOf(this.deps.store.db, chain.id))[current.position + 1];
      if (!next) return true;
      current = next;
    }
  }

  private async messageStatus(step: StepRow): Promise<MessageStatus | undefined> {
    if (step.message_id === null) return undefined;
    return (await messageStatuses(this.deps.store.db, [step.message_id])).get(step.message_id);
  }

  /** Completes a chain with nothing left to send once each of its messages is final, with its event. */
  private async completeIfFinal(chain: ChainRow, known?: StepRow[]): Promise<boolean> {
    const steps = known ?? (await stepsOf(this.deps.store.db, chain.id));
    if (steps.some((s) => s.status === "pending" || s.status === "waiting" || s.status === "sending")) return false;
    const statuses = await messageStatuses(
      this.deps.store.db,
      steps.flatMap((s) => (s.message_id ? [s.message_id] : [])),
    );
    const sent = steps.filter((s) => s.message_id !== null);
    if (sent.some((s) => !FINAL_STATUSES.includes(statuses.get(s.message_id!) ?? "failed"))) return false;
    const outcome = sent.some((s) => reached(statuses.get(s.message_id!))) ? "delivered" : "undelivered";
    const now = this.now();
    let events = 0;
    const done = await this.deps.store.transaction(async (trx) => {
      if (!(await completeChain(trx, chain.id, outcome, now))) return false;
      const view = describeChain(
        { ...chain, status: "completed", outcome, completed_at: now },
        steps.map((s) => ({ ...s, messageStatus: s.message_id ? statuses.get(s.message_id) : undefined })),
      );
      events = await this.deps.webhooks.enqueue(trx, chain.account_id, "chain_completed", chain.id, now, {
        event: "chain_completed",
        chain_id: chain.id,
        recipient: chain.recipient,
        outcome,
        steps: view.steps.map(({ channel, to, message_id, status }) => ({ channel, to, message_id, status })),
        at: isoUtc(new Date(now)),
      });
      return true;
    });
    if (done) this.deps.metrics.chainsCompleted.inc({ outcome });
    if (events > 0) await this.deps.store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
    return done;
  }
}

/**
 * The worker's passes over the chains every `intervalMs`, one at a time, with a retention round a
 * minute of `clock` time; stop() waits for the one running.
 */
export function startChainPasses(chains: Chains, logger: Logger, intervalMs: number, clock: Clock) {
  let running: Promise<unknown> | undefined;
  let prunedAt = Number.NEGATIVE_INFINITY;
  const pass = async () => {
    await chains.advance();
    const now = clock.now().getTime();
    if (now - prunedAt < RETENTION_EVERY_MS) return;
    prunedAt = now;
    const removed = await chains.prune();
    if (removed > 0) logger.info({ removed }, "removed fallback chains past MESSAGE_RETENTION_DAYS");
  };
  const timer = setInterval(() => {
    running ??= pass()
      .catch((error: unknown) => logger.warn({ err: error }, "fallback chains' pass failed"))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
