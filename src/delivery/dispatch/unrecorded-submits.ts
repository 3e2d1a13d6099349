// Submits the carriers took whose record failed (the database away): kept, and recorded again
// before the dispatcher claims anything more, so that they are not claimed and sent again.

import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import { stillWaiting } from "../../domain/messages/index.js";
import { withHandoff } from "../../domain/webhooks/outbox.js";
import type { Connector } from "./connector.js";
import { afterCommit, type Outcomes, type RecordDeps, recordOutcomes } from "./submit-outcomes.js";

/** Submits the carriers took whose record failed: recorded again before anything is claimed. */
type Unrecorded = Pick<Outcomes, "submitted" | "takenBy"> & { claimed: MessageRow[] };

/** Unrecorded submits kept at most; past it the oldest batches are given up (and logged). */
const MAX_UNRECORDED = 50_000;
const UNRECORDED_GIVE_UP_MS = 10 * 60_000;

export class UnrecordedSubmits {
  /** Batches whose submits the carriers took but whose record failed (recordAgain). */
  private unrecorded: Unrecorded[] = [];
  /** When the oldest of them failed to be recorded. */
  private unrecordedSince: number | undefined;

  constructor(
    private readonly deps: RecordDeps & Pick<Runtime, "logger">,
    /** DispatcherOptions.unrecordedGiveUpMs. */
    private readonly giveUpAfterMs: number | undefined,
  ) {}

  /** Whether submits wait to be recorded again. */
  get waiting(): boolean {
    return this.unrecorded.length > 0;
  }

  /** Keeps the submits of a batch whose record failed, to be recorded before the next claim. */
  keep(claimed: MessageRow[], { submitted, takenBy }: Outcomes): void {
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
  async recordAgain(): Promise<void> {
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
      const { events } = await recordOutcomes(this.deps, trx, handoff, claimed, outcomes);
      return { outcomes, events };
    }).catch((error: unknown) => {
      const giveUpMs = this.giveUpAfterMs ?? UNRECORDED_GIVE_UP_MS;
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
    await afterCommit(this.deps, claimed, recorded.outcomes, [], recorded.events);
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
}
