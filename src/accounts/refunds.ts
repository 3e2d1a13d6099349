// Refunds for messages that never reached a carrier, many at a time: one wallet update per
// account and wallet, one ledger entry per message. The unique (account, kind, ref) index
// refuses a second refund of the same message.
import { sql } from "kysely";
import type { Clock } from "../core/clock.js";
import type { Wallet } from "../core/credits.js";
import type { Db } from "../store/store.js";

export interface Refund {
  accountId: number;
  wallet: Wallet;
  /** Milli-credits. */
  amount: number;
  /** The message refunded. */
  ref: string;
  note?: string;
}

export async function refundMany(trx: Db, clock: Clock, refunds: Refund[]): Promise<void> {
  const groups = new Map<string, Refund[]>();
  for (const refund of refunds) {
    if (refund.amount <= 0) continue;
    const key = `${refund.accountId}:${refund.wallet}`;
    const list = groups.get(key) ?? [];
    list.push(refund);
    groups.set(key, list);
  }
  const now = clock.now().getTime();
  for (const list of groups.values()) {
    const first = list[0]!;
    const total = list.reduce((sum, r) => sum + r.amount, 0);
    const row = await trx
      .updateTable("wallets")
      .set({ balance: sql`balance + ${total}` })
      .where("account_id", "=", first.accountId)
      .where("wallet", "=", first.wallet)
      .returning("balance")
      .executeTakeFirstOrThrow();
    let balance = row.balance - total;
    const entries = list.map((r) => {
      balance += r.amount;
      return {
        account_id: r.accountId,
        wallet: r.wallet,
        amount: r.amount,
        balance_after: balance,
        kind: "refund" as const,
        ref: r.ref,
        note: r.note ?? null,
        created_at: now,
      };
    });
    for (let i = 0; i < entries.length; i += 500) {
      await trx
        .insertInto("ledger_entries")
        .values(entries.slice(i, i + 500))
        .execute();
    }
  }
}
