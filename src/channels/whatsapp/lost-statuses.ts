// The simulator's statuses wait on timers of the process that took the send: a process that
// stops (SIGTERM clears them, kill -9 loses them) leaves its messages `sent` for good. Upkeep
// finds the simulator's messages still `sent` (or `delivered`, awaiting `read`) past the time
// their last status was due and reports what the simulator would have, at the times it would
// have: the same rules (simulatedStatuses) through the same path as Meta's webhook
// (WhatsAppEvents.applyStatuses), whose conditional UPDATEs move each status forward once, so
// two processes doing it, or a late timer of a live one, give one delivered and one read webhook.
// (A send the process stopped before it was `sent` is upkeep.ts' releaseStaleSends': failed,
// not charged, since its client never got an answer.)
import type { Clock } from "../../base/core/clock.js";
import type { Store } from "../../base/store/store.js";
import { type SentCursor, unfinishedWhatsAppSends } from "../../domain/messages/index.js";
import type { WhatsAppEvents } from "./events.js";
import type { StatusEvent } from "./meta-webhook.js";
import { SIMULATED_UPSTREAM, simulatedStatuses } from "./upstream.js";

/** Past the last status's due time: a live process has reported it by then. */
export const LOST_AFTER_MS = 5_000;
/** How far back the first look after a start goes. */
const LOOKBACK_MS = 7 * 86_400_000;
const BATCH = 200;

export interface LostStatusesDeps {
  store: Store;
  clock: Clock;
  events: Pick<WhatsAppEvents, "applyStatuses">;
  /** WHATSAPP_SIMULATOR_LATENCY_MS: the time between sent, delivered and read. */
  latencyMs: number;
}

export class LostSimulatedStatuses {
  /** Where the next look starts: messages up to it were looked at (each is looked at once). */
  private cursor: SentCursor | undefined;

  constructor(private readonly deps: LostStatusesDeps) {}

  /** Reports the statuses of the messages left behind since the last look; resolves with how many it found. */
  async runOnce(): Promise<number> {
    const { store, clock, events, latencyMs } = this.deps;
    const now = clock.now().getTime();
    const before = now - 2 * latencyMs - LOST_AFTER_MS;
    let cursor = this.cursor ?? { submittedAt: now - LOOKBACK_MS, id: null };
    let found = 0;
    while (before > cursor.submittedAt || cursor.id !== null) {
      const rows = await unfinishedWhatsAppSends(store, {
        connector: SIMULATED_UPSTREAM,
        after: cursor,
        before,
        limit: BATCH,
      });
      const statuses = rows.flatMap((row) => {
        const left = simulatedStatuses(row.recipient, latencyMs).filter(
          (next) => row.status === "sent" || next.status === "read",
        );
        if (!row.upstream_id || left.length === 0) return [];
        found++;
        return left.map(
          (next): StatusEvent => ({
            // What applyStatuses reads is the wamid; the phone number id is not stored with the message.
            phoneNumberId: "",
            messageId: row.upstream_id!,
            status: next.status,
            at: Number(row.submitted_at) + next.after,
            recipientId: row.recipient,
            errors: next.errors,
          }),
        );
      });
      // A failure (a busy database) leaves the cursor where it was: the next look tries them again.
      if (statuses.length > 0) await events.applyStatuses(statuses);
      const last = rows.at(-1);
      cursor =
        rows.length < BATCH || !last
          ? { submittedAt: before, id: null }
          : { submittedAt: Number(last.submitted_at), id: last.id };
      this.cursor = cursor;
      if (rows.length < BATCH) break;
    }
    return found;
  }
}
