// The failed receipts of long messages that never came to be (M1 of the ch audit): every part
// answered ESME_ROK that asked for a receipt gets one, though its message was refused on its last
// part, its parts' time ran out or its bind closed first. Written to smpp_outbox like every
// receipt (through the pump's writer: on SQLite in `start`, the worker thread), so they wait for
// a receiver bind and survive reconnection. Parts are held in memory: a process that dies
// (not stopped) loses them and owes nothing for them.
import type { Logger } from "pino";
import type { Clock } from "../../base/core/clock.js";
import type { DroppedMessage } from "./held-parts.js";
import { type OutboxPayload, receiptText } from "./outbox.js";
import type { OutboxWriter } from "./outbox-writes.js";

/** Why parts answered ESME_ROK never became a message (submit.ts, held-parts.ts). */
export type Abandon = { status: number } | { reason: "expired" | "closed" };

/**
 * The failed receipts owed for the parts of a long message answered ESME_ROK whose message will
 * never exist, one per part that asked for one: refused when its last part came (`stat:REJECTD`,
 * message_state 8, err the last part's command_status in three hex digits), its 60 s up
 * (`stat:EXPIRED`, 3, err 000) or its bind gone first (`stat:UNDELIV`, 5, err 000).
 */
function abandonedReceipts(
  message: DroppedMessage,
  why: Abandon,
  now: number,
): Array<{ account_id: number; message_id: string; payload: string; created_at: number }> {
  const [stat, state, err] =
    "status" in why
      ? ["REJECTD", 8, (why.status & 0xfff).toString(16).padStart(3, "0")]
      : why.reason === "expired"
        ? ["EXPIRED", 3, "000"]
        : ["UNDELIV", 5, "000"];
  const payload: OutboxPayload = {
    kind: "receipt",
    id: message.id,
    source: message.destination,
    destination: message.source,
    state,
    text: receiptText({
      id: message.id,
      delivered: false,
      stat,
      err,
      submittedAt: message.since,
      doneAt: now,
      body: message.text,
    }),
  };
  const row = {
    account_id: message.accountId,
    message_id: message.id,
    payload: JSON.stringify(payload),
    created_at: now,
  };
  return message.receipts.map(() => row);
}

export class AbandonedReceipts {
  /** Receipts being written: awaited by settled(). */
  private readonly writing = new Set<Promise<unknown>>();

  constructor(
    private readonly write: OutboxWriter,
    private readonly deps: { clock: Clock; logger: Pick<Logger, "error"> },
    private readonly pump: (accountId: number) => void,
  ) {}

  add(message: DroppedMessage, why: Abandon): void {
    const rows = abandonedReceipts(message, why, this.deps.clock.now().getTime());
    if (rows.length === 0) return;
    const written: Promise<unknown> = this.write({ op: "insert", rows })
      .then(() => this.pump(message.accountId))
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, message: message.id }, "failed receipts of a long message not written"),
      )
      .finally(() => this.writing.delete(written));
    this.writing.add(written);
  }

  /** Resolves when every receipt added so far is written (the server stopping). */
  async settled(): Promise<void> {
    await Promise.all([...this.writing]);
  }
}
