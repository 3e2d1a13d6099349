// The deliver_sm pump of the SMPP server: the receipts and MO each account is owed (smpp_outbox),
// sent oldest first over its receiver and transceiver binds within their windows, and deleted
// only when the client answered ESME_ROK.

import type { Runtime } from "../../base/runtime/runtime.js";
import { type DeliverSm, encodeGsm7, TLV } from "../../base/smpp/index.js";
import type { Bind } from "./bind.js";
import type { OutboxPayload } from "./outbox.js";
import type { OutboxWriter } from "./outbox-writes.js";
import type { RequestOutcome } from "./outgoing-requests.js";
import { STATUS } from "./status.js";

export class DeliverPump {
  private readonly pumping = new Set<number>();
  private readonly again = new Set<number>();
  /** Outbox rows on their way to a bind of this process. */
  private readonly sending = new Set<number>();
  /** Outbox rows the clients took (ESME_ROK), deleted together in the next turn of the event loop. */
  private taken: number[] = [];
  private deleting: Promise<void> | undefined;
  /** How long a deliver_sm handed to a bind is kept from other processes' binds. */
  private readonly leaseMs: number;

  constructor(
    private readonly deps: Pick<Runtime, "store" | "clock" | "logger" | "metrics" | "config">,
    /** Where the writes to smpp_outbox go (SmppServerDeps.outboxWriter). */
    private readonly write: OutboxWriter,
    /** The account's binds in this process. */
    private readonly bindsOf: (accountId: number) => Iterable<Bind>,
    private readonly stopping: () => boolean,
  ) {
    this.leaseMs = Math.max(60_000, deps.config.smppServer.responseTimeoutMs + 10_000);
  }

  /** Sends what the account is owed over its receiving binds, oldest first, within their windows. */
  pump(accountId: number): void {
    if (this.stopping()) return;
    if (this.pumping.has(accountId)) {
      this.again.add(accountId);
      return;
    }
    this.pumping.add(accountId);
    void this.pumpOnce(accountId)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, "SMPP deliver_sm pump failed"))
      .finally(() => {
        this.pumping.delete(accountId);
        if (this.again.delete(accountId)) this.pump(accountId);
      });
  }

  private async pumpOnce(accountId: number): Promise<void> {
    const receivers = [...this.bindsOf(accountId)].filter((b) => b.canReceive);
    const free = receivers.reduce((sum, b) => sum + b.freeSlots, 0);
    if (free === 0) return;
    const now = this.deps.clock.now().getTime();
    const db = this.deps.store.db;
    const due = await db
      .selectFrom("smpp_outbox")
      .select(["id", "retry_at"])
      .where("account_id", "=", accountId)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("id")
      .limit(free + this.sending.size)
      .execute();
    const ids: number[] = [];
    for (const row of due) {
      const id = Number(row.id);
      if (this.sending.has(id)) continue;
      // A row the client refused or left unanswered goes again before anything after it.
      if (row.retry_at !== null && row.retry_at > now) break;
      ids.push(id);
      if (ids.length === free) break;
    }
    if (ids.length === 0) return;
    const claimed = (await this.write({ op: "claim", ids, now, leaseUntil: now + this.leaseMs })) ?? [];
    let turn = 0;
    for (const row of claimed) {
      const id = row.id;
      let bind: Bind | undefined;
      for (let i = 0; i < receivers.length && !bind; i++) {
        const candidate = receivers[(turn + i) % receivers.length]!;
        if (candidate.freeSlots > 0) bind = candidate;
      }
      turn++;
      if (!bind) {
        await this.write({ op: "release", id });
        continue;
      }
      const payload = JSON.parse(row.payload) as OutboxPayload;
      this.sending.add(id);
      void bind
        .deliver(deliverSmOf(payload))
        .then((outcome) => this.settle(id, payload.kind, outcome))
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, "SMPP deliver_sm failed"))
        .finally(() => this.sending.delete(id));
    }
  }

  /**
   * ESME_ROK: the client has it, the row goes. Refused or unanswered: it is tried again after
   * SMPP_SERVER_DELIVER_RETRY_MS, and nothing after it goes first. The connection gone before the answer: it is
   * free at once for the account's next receiver bind.
   */
  private async settle(id: number, kind: OutboxPayload["kind"], outcome: RequestOutcome): Promise<void> {
    const result = outcome === STATUS.ESME_ROK ? "ok" : typeof outcome === "number" ? "refused" : outcome;
    this.deps.metrics.smppDeliveries.inc({ kind, result });
    if (outcome === STATUS.ESME_ROK) {
      await this.remove(id);
      return;
    }
    const retryAt =
      outcome === "closed" ? null : this.deps.clock.now().getTime() + this.deps.config.smppServer.deliverRetryMs;
    await this.write({ op: "retry", id, retryAt });
  }

  /** Deletes a row the client took, with the others taken in this turn: one statement, not one each. */
  private remove(id: number): Promise<void> {
    this.taken.push(id);
    this.deleting ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
      const ids = this.taken;
      this.taken = [];
      this.deleting = undefined;
      return this.write({ op: "remove", ids }).then(() => undefined);
    });
    return this.deleting;
  }
}

/**
 * The deliver_sm of an outbox row: a receipt (esm_class 0x04, with its TLVs) or an MO message.
 * A receipt's text is printable ASCII (receiptText), as SMSCs write receipts and clients parse
 * them, so it says data_coding 1 (IA5/ASCII): labelled 0 (GSM 03.38 here), a strict reader saw
 * `_` as `§` and `@` as `¡`. An MO message is GSM 03.38 (0) or UCS-2 (8).
 */
export function deliverSmOf(payload: OutboxPayload): DeliverSm {
  if (payload.kind === "receipt") {
    return {
      source: payload.source,
      destination: payload.destination,
      esmClass: 0x04,
      dataCoding: 1,
      message: Buffer.from(payload.text, "latin1"),
      tlvs: [
        [TLV.receipted_message_id, Buffer.from(`${payload.id}\0`, "latin1")],
        [TLV.message_state, Buffer.from([payload.state])],
      ],
    };
  }
  let message: Buffer;
  let dataCoding = 0;
  try {
    message = encodeGsm7(payload.text);
  } catch {
    message = Buffer.from(payload.text, "utf16le").swap16();
    dataCoding = 8;
  }
  return { source: payload.source, destination: payload.destination, esmClass: 0, dataCoding, message, tlvs: [] };
}
