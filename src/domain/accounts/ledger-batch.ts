// Ledger operations for many items at once, on the hot paths: debits for a group of sends
// (one conditional UPDATE per account and wallet, at every level of a reseller tree, and one
// multi-row insert of entries) and refunds
// for messages that never reached a carrier. The unique (account, kind, ref) index refuses a
// second debit or refund of the same thing.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import type { Wallet } from "../../base/core/credits.js";
import type { Db, Store } from "../../base/store/store.js";

export interface Refund {
  accountId: number;
  wallet: Wallet;
  /** Milli-credits. */
  amount: number;
  /** The message refunded. */
  ref: string;
  note?: string;
}

export interface Debit {
  accountId: number;
  wallet: Wallet;
  /** Milli-credits, positive. */
  amount: number;
  /** The broadcast charged. */
  ref: string;
  note?: string;
}

/**
 * Debits sends at every level of a reseller tree (the sub-account and each ancestor, each its
 * own amount), all or nothing. Every send of `sends` charges the same levels (account and
 * wallet, bottom-up) with its own amounts: one conditional UPDATE per level takes the group's
 * total there. A level whose balance does not cover it puts back what the levels before it took
 * (no entry was written yet) and answers that level's index (0: the sub-account's own wallet,
 * 1: its parent's, …); null when every level paid. Levels are taken bottom-up, the order every
 * such debit locks wallets in.
 */
export async function debitEveryLevel(
  store: Pick<Store, "statement" | "insertMany">,
  trx: Db,
  clock: Clock,
  sends: Debit[][],
): Promise<number | null> {
  const levels = sends[0];
  if (!levels) return null;
  const totals = levels.map((_, level) => sends.reduce((sum, debits) => sum + debits[level]!.amount, 0));
  const before: number[] = [];
  const take = store.statement(
    "update wallets set balance = balance - ? where account_id = ? and wallet = ? and balance - held >= ? returning balance",
  );
  for (const [level, debit] of levels.entries()) {
    const total = totals[level]!;
    const [row] = await take.all<{ balance: number }>(trx, [total, debit.accountId, debit.wallet, total]);
    if (row) {
      before.push(row.balance + total);
      continue;
    }
    const putBack = store.statement("update wallets set balance = balance + ? where account_id = ? and wallet = ?");
    for (const [taken, amount] of totals.slice(0, level).entries()) {
      await putBack.run(trx, [amount, levels[taken]!.accountId, levels[taken]!.wallet]);
    }
    return level;
  }
  // Entries in send order, each level's balance walking down from before the group.
  const entries = sends.flatMap((debits) =>
    debits.map((d, level) => {
      before[level]! -= d.amount;
      return entry(d, "debit", -d.amount, before[level]!, clock);
    }),
  );
  await store.insertMany(trx, "ledger_entries", entries);
  return null;
}

function entry(item: Debit | Refund, kind: "debit" | "refund", amount: number, balanceAfter: number, clock: Clock) {
  return {
    account_id: item.accountId,
    wallet: item.wallet,
    amount,
    balance_after: balanceAfter,
    kind,
    ref: item.ref,
    note: item.note ?? null,
    created_at: clock.now().getTime(),
  };
}

async function insertEntries(trx: Db, entries: ReturnType<typeof entry>[]): Promise<void> {
  for (let i = 0; i < entries.length; i += 500) {
    await trx
      .insertInto("ledger_entries")
      .values(entries.slice(i, i + 500))
      .execute();
  }
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
    await insertEntries(
      trx,
      list.map((r) => {
        balance += r.amount;
        return entry(r, "refund", r.amount, balance, clock);
      }),
    );
  }
}
