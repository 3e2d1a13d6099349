// What the SMPP server owes its receiver binds, written in the transaction of the change it
// reports (like the webhook outbox, which calls this as one of its sinks): a delivery receipt
// when a message submitted over SMPP with registered_delivery reaches its final state, and
// every MO message of an account that has SMPP access. A row stays until a bind's client
// answered its deliver_sm with ESME_ROK (server.ts).

import type { Db, Store } from "../../base/store/store.js";
import { receiptSources } from "../../domain/messages/index.js";
import type { ClientEventSink, InboundEvent, ReportedMessage } from "../../domain/webhooks/events.js";
import { smppStateOf } from "./message-state.js";
import { SMPP_ACCOUNTS_CHANGED } from "./settings.js";

const TTL_MS = 2_000;

/** What a message submitted over SMPP keeps in messages.meta. */
export interface SmppMeta {
  smpp: {
    registered_delivery: number;
    /** Rows written before `receipts`: the submit_sm a long message came in (each got its receipt). */
    parts?: number;
    /** A long message: the registered_delivery of each part that asked for a receipt, one receipt each. */
    receipts?: number[];
    /** Sent by submit_multi: its receipts name the broadcast id, the id of submit_multi_resp. */
    multi?: boolean;
  };
}

export type OutboxPayload =
  | {
      kind: "receipt";
      id: string;
      /** The handset the message went to: the receipt's source_addr. */
      source: string;
      /** The sender ID: the receipt's destination_addr. */
      destination: string;
      text: string;
      /** message_state: 2 DELIVERED, 3 EXPIRED, 4 DELETED, 5 UNDELIVERABLE, 8 REJECTED. */
      state: number;
    }
  | { kind: "mo"; source: string; destination: string; text: string };

/** YYMMDDhhmm in UTC, as receipts write dates. */
function receiptDate(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getUTCFullYear() % 100)}${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())}${two(d.getUTCHours())}${two(d.getUTCMinutes())}`;
}

/** The receipt text of SMPP 3.4 appendix B; the quoted text is ASCII, at most 20 characters. */
export function receiptText(fields: {
  id: string;
  delivered: boolean;
  stat: string;
  err: string;
  submittedAt: number;
  doneAt: number;
  body: string;
}): string {
  const text = fields.body.slice(0, 20).replace(/[^\x20-\x7e]/g, "?");
  return `id:${fields.id} sub:001 dlvrd:${fields.delivered ? "001" : "000"} submit date:${receiptDate(fields.submittedAt)} done date:${receiptDate(fields.doneAt)} stat:${fields.stat} err:${fields.err} text:${text}`;
}

/**
 * How many receipts a message reaching `status` owes its client: none but for a final state
 * (registered_delivery 1: delivered, failed or cancelled; 2: all but delivered), then one per
 * submit_sm it came in, since clients count a receipt per submit_sm_resp. `submitted` is
 * reported to webhooks too, but SMPP 3.4 has no receipt for "handed to the carrier". A
 * cancelled message was not delivered: its receipt says DELETED (decision 0164).
 */
export function receiptsOwed(meta: string | null, status: string): number {
  if (status !== "delivered" && status !== "failed" && status !== "cancelled") return 0;
  if (meta === null || !meta.includes('"smpp"')) return 0;
  try {
    const smpp = (JSON.parse(meta) as Partial<SmppMeta>).smpp;
    const asks = (flag: number) => flag === 1 || (flag === 2 && status !== "delivered");
    if (Array.isArray(smpp?.receipts)) return Math.min(255, smpp.receipts.filter((flag) => asks(flag & 0x03)).length);
    if (!asks((smpp?.registered_delivery ?? 0) & 0x03)) return 0;
    return Math.min(255, Math.max(1, smpp?.parts ?? 1));
  } catch {
    return 0;
  }
}

export class SmppOutbox implements ClientEventSink {
  private accounts: { value: Promise<Set<number>>; expires: number } | undefined;

  constructor(private readonly store: Store) {
    // Every process writes receipts and MO: each forgets its list when an account gains or
    // loses SMPP access anywhere, so a new account's first receipt is not missed.
    store.signals.listen(SMPP_ACCOUNTS_CHANGED, () => this.forget());
  }

  /** Accounts with SMPP access (cached briefly): only theirs can owe anything. */
  private async smppAccounts(db: Db): Promise<Set<number>> {
    const now = Date.now();
    if (this.accounts && this.accounts.expires > now) return this.accounts.value;
    const value = db
      .selectFrom("smpp_accounts")
      .select("account_id")
      .execute()
      .then((rows) => new Set(rows.map((row) => Number(row.account_id))));
    this.accounts = { value, expires: now + TTL_MS };
    value.catch(() => {
      this.accounts = undefined;
    });
    return value;
  }

  /** Drops the cached list (an account was given or denied SMPP access in this process). */
  forget(): void {
    this.accounts = undefined;
  }

  async deliveryReports(trx: Db, messages: readonly ReportedMessage[], now: number): Promise<number> {
    if (messages.length === 0) return 0;
    const accounts = await this.smppAccounts(trx);
    const candidates = messages.filter((m) => accounts.has(m.account_id) && m.channel !== "email");
    return writeReceipts(this.store, trx, candidates, now);
  }

  async inboundSms(trx: Db, event: InboundEvent, _orderKey: string, now: number): Promise<number> {
    if (!(await this.smppAccounts(trx)).has(event.accountId)) return 0;
    const payload: OutboxPayload = { kind: "mo", source: event.from, destination: event.to, text: event.message };
    await this.store.insertMany(trx, "smpp_outbox", [
      {
        account_id: event.accountId,
        kind: "mo",
        message_id: null,
        payload: JSON.stringify(payload),
        lease_until: null,
        attempts: 0,
        created_at: now,
        retry_at: null,
      },
    ]);
    return 1;
  }
}

/**
 * The receipts `messages` (SMS of accounts with SMPP access, in their new state) owe their
 * clients, written to smpp_outbox in `trx`: by the sink above, and by cancel_sm for the
 * messages it cancelled (no webhook reports a cancel). Answers how many rows it wrote.
 */
export async function writeReceipts(
  store: Store,
  trx: Db,
  messages: readonly ReportedMessage[],
  now: number,
): Promise<number> {
  if (messages.length === 0) return 0;
  const rows = await receiptSources(
    trx,
    messages.map((m) => m.id),
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const outbox = [];
  for (const message of messages) {
    const row = byId.get(message.id);
    const owed = row ? receiptsOwed(row.meta, message.status) : 0;
    if (!row || owed === 0) continue;
    const { stat, state, err } = smppStateOf(message);
    // submit_multi answered the broadcast id: its receipts name it (the source_addr tells the recipient).
    const id = row.broadcast_id && /"multi":true/.test(row.meta ?? "") ? row.broadcast_id : message.id;
    const payload: OutboxPayload = {
      kind: "receipt",
      id,
      source: message.recipient,
      destination: row.sender,
      state,
      text: receiptText({
        id,
        delivered: message.status === "delivered",
        stat,
        err,
        submittedAt: row.created_at,
        doneAt: message.at,
        body: row.body,
      }),
    };
    for (let i = 0; i < owed; i++) {
      outbox.push({
        account_id: message.account_id,
        kind: "receipt" as const,
        message_id: message.id,
        payload: JSON.stringify(payload),
        lease_until: null,
        attempts: 0,
        created_at: now,
        retry_at: null,
      });
    }
  }
  await store.insertMany(trx, "smpp_outbox", outbox);
  return outbox.length;
}
