// The dispatcher: claims due messages, hands them to connectors through the router, and
// records each outcome (submitted, retry later, or failed and refunded) in one transaction per
// batch. Several dispatchers (processes) can run against PostgreSQL: there the claim, the
// submits and the record are one transaction whose row locks (FOR NO KEY UPDATE SKIP LOCKED)
// give each message to exactly one of them, and return it at once if its worker dies.

import { sql } from "kysely";
import { ACCOUNT_HOLD } from "../../base/core/message-status.js";
import { WorkerLoop } from "../../base/core/worker-loop.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import { claimDueMessages } from "../../domain/messages/index.js";
import { type WebhookOutbox, withHandoff } from "../../domain/webhooks/outbox.js";
import { type CarrierReasons, classifyFailures } from "./carrier-reasons.js";
import { type Routing, submitAll } from "./failover.js";
import type { PromotionalRelease } from "./promotional-release.js";
import { Router } from "./router.js";
import { ACCOUNT_WAIT, afterCommit, hold, type Outcomes, recordOutcomes } from "./submit-outcomes.js";
import { UnrecordedSubmits } from "./unrecorded-submits.js";

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
  /** The connectors' error_codes: a refused submit's code mapped to its reason. */
  reasons?: CarrierReasons;
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
  /**
   * The rows as the connectors get them: a message whose stored text is masked (a verification
   * code, channels/verify/reveal.ts, handed in by app/) gets its clear text here, only in the
   * copy handed to the connector; one whose text can no longer be made (its code is gone) is
   * withheld, failed and refunded instead of sent.
   */
  revealBodies?: BodyRevealer;
  /**
   * The accounts whose messages are held, not sent (decision 0155: not active, or below one that
   * is not): held-accounts.ts, kept in memory, so the batch costs a set look-up per message.
   */
  heldAccounts?: AccountsHeld;
  /**
   * Promotional messages taken a while after their acceptance, checked again before they are sent
   * (promotional-release.ts): hours closed, scheduled again; DND or opted out since, failed.
   */
  promotionalRelease?: PromotionalRelease;
}

/** Which accounts' messages are held at dispatch. */
export interface AccountsHeld {
  readonly size: number;
  has(accountId: number): boolean;
}

/** Why a message of an account that is not active waits (its error while held, decision 0155). */
const ACCOUNT_NOT_ACTIVE = {
  code: ACCOUNT_HOLD,
  message:
    "Its account, or an account above it, is not active (blocked or inactive): the message is held, not sent, until the account is active again.",
};

/** A claimed batch as it goes to the connectors: the rows to send, and those withheld with why. */
export interface RevealedBatch {
  send: MessageRow[];
  withheld: { id: string; code: string; message: string }[];
}

export type BodyRevealer = (rows: MessageRow[]) => Promise<RevealedBatch>;

export const DEFAULT_DISPATCHER_OPTIONS: DispatcherOptions = {
  batchSize: 500,
  idleMs: 1_000,
  // 1+2+4+…+256 s: a carrier may be down for about eight and a half minutes before messages fail.
  maxAttempts: 10,
};

export const QUEUED_SIGNAL = "messages_queued";
const CLAIM_LINGER_MS = 10;
const FAILED_ROUND_MAX_PAUSE_MS = 15_000;
const RECORD_AGAIN_MAX_PAUSE_MS = 1_000;
/** Twice the longest pause between another worker's attempts to record again (above). */
const CLAIM_AFTER_OUTAGE_MS = 2 * RECORD_AGAIN_MAX_PAUSE_MS;

type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { webhooks?: WebhookOutbox };

export class Dispatcher extends WorkerLoop {
  private readonly routing: Routing;
  /** Rounds failed in a row, for the pause before the next claim. */
  private failedRounds = 0;
  /** Batches whose submits the carriers took but whose record failed (unrecorded-submits.ts). */
  private readonly unrecorded: UnrecordedSubmits;
  /** Attempts in a row to record them again that failed, for the pause before the next. */
  private recordAgainFailures = 0;

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
    this.unrecorded = new UnrecordedSubmits(deps, options.unrecordedGiveUpMs);
  }

  protected async round(): Promise<boolean> {
    if (this.unrecorded.waiting) {
      try {
        await this.unrecorded.recordAgain();
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
      await this.pause(this.unrecorded.waiting ? 100 : pause);
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
      return { claimed, outcomes, ...(await recordOutcomes(this.deps, trx, handoff, claimed, outcomes)) };
    }).catch((error: unknown) => {
      if (taken) this.unrecorded.keep(taken.claimed, taken.outcomes);
      throw error;
    });
    if (!batch) return 0;
    await afterCommit(this.deps, batch.claimed, batch.outcomes, batch.failed, batch.events);
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
      recordOutcomes(this.deps, trx, handoff, claimed, outcomes),
    ).catch((error: unknown) => {
      this.unrecorded.keep(claimed, outcomes);
      throw error;
    });
    await afterCommit(this.deps, claimed, outcomes, failed, events);
  }

  private now(): number {
    return this.deps.clock.now().getTime();
  }

  /**
   * Hands the batch to its connectors (failover.ts); what revealBodies withheld fails, refunded,
   * unsent; a message of an account that is not active is held (decision 0155).
   */
  private async submitAll(claimed: MessageRow[]): Promise<Outcomes> {
    const accounts = this.options.heldAccounts;
    const held = accounts && accounts.size > 0 ? claimed.filter((m) => accounts.has(m.account_id)) : [];
    const free = held.length > 0 ? claimed.filter((m) => !accounts!.has(m.account_id)) : claimed;
    const released = this.options.promotionalRelease
      ? await this.options.promotionalRelease(free, this.now())
      : undefined;
    const ready = released ? released.send : free;
    const batch = this.options.revealBodies ? await this.options.revealBodies(ready) : { send: ready, withheld: [] };
    const outcomes = await submitAll(batch.send, {
      routing: this.routing,
      metrics: this.deps.metrics,
      maxAttempts: this.options.maxAttempts,
      holdForMs: this.options.holdForMs,
      now: () => this.now(),
    });
    await classifyFailures(this.options.reasons, outcomes.failures);
    for (const item of batch.withheld) outcomes.failures.push({ ...item, at: this.now() });
    for (const item of released?.refused ?? []) outcomes.failures.push({ ...item, at: this.now() });
    if (released && released.scheduledAgain.length > 0) outcomes.scheduledAgain = released.scheduledAgain;
    for (const message of held) {
      hold(message, ACCOUNT_NOT_ACTIVE, outcomes, this.now(), this.options.holdForMs, ACCOUNT_WAIT);
    }
    return outcomes;
  }
}
