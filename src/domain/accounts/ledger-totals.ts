// A ledger added up over a window, wallet by wallet (an auditor's reconciliation): the balance
// before the window (opening), what each kind of entry moved in it, and the balance at its end
// (closing = opening + the moves). Beside it the wallet's balance now: with no end to the window,
// closing and balance are the same figure read two ways (the entries' sum, the kept balance).
import { sql } from "kysely";
import { fromMilli, WALLETS, type Wallet } from "../../base/core/credits.js";
import type { LedgerKind } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { walletBalances } from "./ledger.js";

export const LEDGER_KINDS: readonly LedgerKind[] = [
  "topup",
  "debit",
  "refund",
  "transfer_in",
  "transfer_out",
  "adjustment",
];

export type WalletTotals = {
  wallet: Wallet;
  opening: number;
  closing: number;
  entries: number;
  balance: number;
} & Record<LedgerKind, number>;

/** Every wallet's totals over [from, to) (epoch ms; either end open), in credits. */
export async function ledgerTotals(
  db: Db,
  accountId: number,
  window: { from?: number; to?: number },
): Promise<WalletTotals[]> {
  const { from, to } = window;
  let moved = db
    .selectFrom("ledger_entries")
    .select((eb) => [
      "wallet",
      "kind",
      eb.fn.sum<number | string>("amount").as("total"),
      eb.fn.countAll<number | string>().as("entries"),
    ])
    .where("account_id", "=", accountId);
  if (from !== undefined) moved = moved.where("created_at", ">=", from);
  if (to !== undefined) moved = moved.where("created_at", "<", to);
  const [moves, before, balances] = await Promise.all([
    moved.groupBy(["wallet", "kind"]).execute(),
    from === undefined
      ? Promise.resolve([])
      : db
          .selectFrom("ledger_entries")
          .select((eb) => ["wallet", eb.fn.coalesce(eb.fn.sum<number | string>("amount"), sql<number>`0`).as("total")])
          .where("account_id", "=", accountId)
          .where("created_at", "<", from)
          .groupBy("wallet")
          .execute(),
    walletBalances(db, accountId),
  ]);
  return WALLETS.map((wallet) => {
    const openingMilli = Number(before.find((row) => row.wallet === wallet)?.total ?? 0);
    let closingMilli = openingMilli;
    let entries = 0;
    const kinds = Object.fromEntries(LEDGER_KINDS.map((kind) => [kind, 0])) as Record<LedgerKind, number>;
    for (const row of moves) {
      if (row.wallet !== wallet) continue;
      const milli = Number(row.total);
      closingMilli += milli;
      entries += Number(row.entries);
      if ((LEDGER_KINDS as readonly string[]).includes(row.kind)) kinds[row.kind as LedgerKind] = fromMilli(milli);
    }
    return {
      wallet,
      opening: fromMilli(openingMilli),
      ...kinds,
      closing: fromMilli(closingMilli),
      entries,
      balance: fromMilli(balances[wallet] ?? 0),
    };
  });
}
