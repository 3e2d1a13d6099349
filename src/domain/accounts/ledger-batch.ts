// Ledger operations for many items at once, on the hot paths: debits for a group of sends
// (one conditional UPDATE per account and wallet, one multi-row insert of entries) and refunds
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
 * Debits a group of items of ONE account and wallet, all or nothing: returns false (and writes
 * nothing) when the balance does not cover the total.
 */
export async function debitAllOrNothing(
  store: Pick<Store, "statement" | "insertMany">,
  trx: Db,
  clock: Clock,
  debits: Debit[],
): Promise<boolean> {
  const first = debits[0];
  if (!first) return true;
  const total = debits.reduce((sum, d) => sum + d.amount, 0);
  // Credits held for in-flight synchronous sends (WhatsApp) are not spendable.
  const [row] = await store
    .statement(
      "update wallets set balance = balance - ? where account_id = ? and wallet = ? and balance - held >= ? returning balance",
    )
    .all<{ balance: number }>(trx, [total, first.accountId, first.wallet, total]);
  if (!row) return false;
  let balance = row.balance + total;
  await store.insertMany(
    trx,
    "ledger_entries",
    debits.map((d) => {
      balance -= d.amount;
      return entry(d, "debit", -d.amount, balance, clock);
    }),
  );
  return true;
}

/**
 * Debits one send at every level of a reseller tree (the sub-account and each ancestor, each
 * its own amount), all or nothing: a level whose balance does not cover its amount puts back
 * what the levels before it took (no entry was written yet) and answers false. Levels are
 * taken bottom-up, the order every such debit locks wallets in.
 */
export async function debitEveryLevel(
  store: Pick<Store, "statement" | "insertMany">,
  trx: Db,
  clock: Clock,
  debits: Debit[],
): Promise<boolean> {
  const balances: number[] = [];
  const take = store.statement(
    "update wallets set balance = balance - ? where account_id = ? and wallet = ? and balance - held >= ? returning balance",
  );
  for (const [level, debit] of debits.entries()) {
    const [row] = await take.all<{ balance: number }>(trx, [debit.amount, debit.accountId, debit.wallet, debit.amount]);
    if (row) {
      balances.push(row.balance);
      continue;
    }
    const putBack = store.statement("update wallets set balance = balance + ? where account_id = ? and wallet = ?");
    for (const taken of debits.slice(0, level)) await putBack.run(trx, [taken.amount, taken.accountId, taken.wallet]);
    return false;
  }
  await store.insertMany(
    trx,
    "ledger_entries",
    debits.map((d, level) => entry(d, "debit", -d.amount, balances[level]!, clock)),
  );
  return true;
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
