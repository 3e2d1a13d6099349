// The credit ledger. A wallet's balance is the sum of its ledger entries; the `wallets` row
// keeps that sum ready so a debit is one conditional UPDATE that can never overdraw, and the
// unique (account, kind, ref) index makes charging or refunding the same thing twice impossible.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { fromMilli, WALLETS, type Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { LedgerKind } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";

export interface LedgerMove {
  accountId: number;
  wallet: Wallet;
  /** Milli-credits, always positive; the kind decides the sign. */
  amount: number;
  kind: LedgerKind;
  ref?: string | null;
  note?: string | null;
}

const CREDIT_KINDS: ReadonlySet<LedgerKind> = new Set(["topup", "refund", "transfer_in", "adjustment"]);

function assertAmount(amount: number): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new GatewayError("invalid_request", "Amount must be a positive number of credits.");
  }
}

/** Adds credits to a wallet and records the entry. Returns the new balance. */
export async function creditWallet(trx: Db, clock: Clock, move: LedgerMove): Promise<number> {
  assertAmount(move.amount);
  if (!CREDIT_KINDS.has(move.kind)) throw new Error(`ledger kind ${move.kind} does not add credits`);
  const row = await trx
    .insertInto("wallets")
    .values({ account_id: move.accountId, wallet: move.wallet, balance: move.amount })
    .onConflict((oc) =>
      oc.columns(["account_id", "wallet"]).doUpdateSet({ balance: sql`wallets.balance + ${move.amount}` }),
    )
    .returning("balance")
    .executeTakeFirstOrThrow();
  await recordEntry(trx, clock, move, move.amount, row.balance);
  return row.balance;
}

/**
 * Takes credits from a wallet if, and only if, the balance covers them. Returns the new
 * balance, or undefined when the wallet is short (nothing is written then).
 */
export async function tryDebitWallet(trx: Db, clock: Clock, move: LedgerMove): Promise<number | undefined> {
  assertAmount(move.amount);
  if (CREDIT_KINDS.has(move.kind)) throw new Error(`ledger kind ${move.kind} does not take credits`);
  const row = await trx
    .updateTable("wallets")
    .set({ balance: sql`balance - ${move.amount}` })
    .where("account_id", "=", move.accountId)
    .where("wallet", "=", move.wallet)
    .where(sql<boolean>`balance - held >= ${move.amount}`)
    .returning("balance")
    .executeTakeFirst();
  if (!row) return undefined;
  await recordEntry(trx, clock, move, -move.amount, row.balance);
  return row.balance;
}

/**
 * Corrects a wallet by `amount` milli-credits, either way (a top-up entered wrong, a goodwill
 * credit): one `adjustment` entry with its reason. Taking credits never overdraws: answers
 * undefined (nothing written) when the spendable balance is short.
 */
export async function adjustWallet(
  trx: Db,
  clock: Clock,
  move: Omit<LedgerMove, "kind" | "amount"> & { amount: number; note: string },
): Promise<number | undefined> {
  if (!Number.isSafeInteger(move.amount) || move.amount === 0) {
    throw new GatewayError("invalid_request", "Amount must be a number of credits other than 0, positive or negative.");
  }
  if (move.amount > 0) return creditWallet(trx, clock, { ...move, kind: "adjustment" });
  const taken = -move.amount;
  const row = await trx
    .updateTable("wallets")
    .set({ balance: sql`balance - ${taken}` })
    .where("account_id", "=", move.accountId)
    .where("wallet", "=", move.wallet)
    .where(sql<boolean>`balance - held >= ${taken}`)
    .returning("balance")
    .executeTakeFirst();
  if (!row) return undefined;
  await recordEntry(trx, clock, { ...move, amount: taken, kind: "adjustment" }, move.amount, row.balance);
  return row.balance;
}

/**
 * Holds credits for a send that waits on a synchronous upstream (WhatsApp): they stop being
 * spendable, but nothing enters the ledger. Returns false (nothing written) when the spendable
 * balance is short. Settle the hold when the upstream accepted, release it when it did not.
 */
export async function holdCredits(trx: Db, hold: { accountId: number; wallet: Wallet; amount: number }) {
  assertAmount(hold.amount);
  const row = await trx
    .updateTable("wallets")
    .set({ held: sql`held + ${hold.amount}` })
    .where("account_id", "=", hold.accountId)
    .where("wallet", "=", hold.wallet)
    .where(sql<boolean>`balance - held >= ${hold.amount}`)
    .returning("held")
    .executeTakeFirst();
  return row !== undefined;
}

/** Turns a hold into a debit: the ledger entry is written now, and the balance drops by the held amount. */
export async function settleHold(trx: Db, clock: Clock, move: LedgerMove): Promise<number> {
  assertAmount(move.amount);
  if (move.kind !== "debit") throw new Error(`a hold settles as a debit, not ${move.kind}`);
  const row = await trx
    .updateTable("wallets")
    .set({ balance: sql`balance - ${move.amount}`, held: sql`held - ${move.amount}` })
    .where("account_id", "=", move.accountId)
    .where("wallet", "=", move.wallet)
    .where("held", ">=", move.amount)
    .returning("balance")
    .executeTakeFirst();
  if (!row) throw new Error(`no hold of ${move.amount} on ${move.wallet} of account ${move.accountId}`);
  await recordEntry(trx, clock, move, -move.amount, row.balance);
  return row.balance;
}

/** Gives held credits back (the upstream refused, or its answer never came): no ledger entry, nothing was charged. */
export async function releaseHold(trx: Db, hold: { accountId: number; wallet: Wallet; amount: number }) {
  assertAmount(hold.amount);
  const row = await trx
    .updateTable("wallets")
    .set({ held: sql`held - ${hold.amount}` })
    .where("account_id", "=", hold.accountId)
    .where("wallet", "=", hold.wallet)
    .where("held", ">=", hold.amount)
    .returning("held")
    .executeTakeFirst();
  if (!row) throw new Error(`no hold of ${hold.amount} on ${hold.wallet} of account ${hold.accountId}`);
}

async function recordEntry(trx: Db, clock: Clock, move: LedgerMove, signed: number, balanceAfter: number) {
  await trx
    .insertInto("ledger_entries")
    .values({
      account_id: move.accountId,
      wallet: move.wallet,
      amount: signed,
      balance_after: balanceAfter,
      kind: move.kind,
      ref: move.ref ?? null,
      note: move.note ?? null,
      created_at: clock.now().getTime(),
    })
    .execute();
}

/** Current balance of one wallet in milli-credits (0 when the wallet was never funded). */
export async function walletBalance(db: Db, accountId: number, wallet: Wallet): Promise<number> {
  const row = await db
    .selectFrom("wallets")
    .select("balance")
    .where("account_id", "=", accountId)
    .where("wallet", "=", wallet)
    .executeTakeFirst();
  return row?.balance ?? 0;
}

export async function walletBalances(db: Db, accountId: number): Promise<Record<string, number>> {
  const rows = await db
    .selectFrom("wallets")
    .select(["wallet", "balance"])
    .where("account_id", "=", accountId)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.wallet, r.balance]));
}

/** Every wallet's balance in credits, each wallet named even when it holds nothing (as clients read them). */
export async function walletCredits(db: Db, accountId: number): Promise<Record<Wallet, number>> {
  const balances = await walletBalances(db, accountId);
  return Object.fromEntries(WALLETS.map((wallet) => [wallet, fromMilli(balances[wallet] ?? 0)])) as Record<
    Wallet,
    number
  >;
}

/** When the account's last ledger entry on the wallet was written; undefined when it has none. */
export async function lastLedgerEntry(db: Db, accountId: number, wallet: Wallet) {
  return db
    .selectFrom("ledger_entries")
    .select("created_at")
    .where("account_id", "=", accountId)
    .where("wallet", "=", wallet)
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}

/** When the message's refund was written to the account's ledger; undefined when it was not refunded. */
export async function refundTime(db: Db, accountId: number, messageId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("ledger_entries")
    .select(["created_at"])
    .where("account_id", "=", accountId)
    .where("kind", "=", "refund")
    .where("ref", "=", messageId)
    .executeTakeFirst();
  return row?.created_at;
}

/** The account's last `limit` ledger entries, newest first. */
export async function recentLedgerEntries(db: Db, accountId: number, limit: number) {
  return db
    .selectFrom("ledger_entries")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
}

/**
 * Every ledger entry of the account, wallet by wallet (WALLETS' order), oldest first, read
 * `batch` at a time from the (account, wallet, created_at) index (an export).
 */
export async function* eachLedgerEntry(db: Db, accountId: number, batch = 1_000) {
  for (const wallet of WALLETS) {
    let after: { createdAt: number; id: number } | undefined;
    for (;;) {
      let query = db
        .selectFrom("ledger_entries")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("wallet", "=", wallet);
      if (after) {
        const { createdAt, id } = after;
        query = query
          .where("created_at", ">=", createdAt)
          .where((eb) => eb.or([eb("created_at", ">", createdAt), eb("id", ">", id)]));
      }
      const rows = await query.orderBy("created_at").orderBy("id").limit(batch).execute();
      yield* rows;
      if (rows.length < batch) break;
      const last = rows[rows.length - 1]!;
      after = { createdAt: Number(last.created_at), id: Number(last.id) };
    }
  }
}

/** The audit figure: the sum of all ledger entries of a wallet, independent of the cached balance. */
export async function ledgerSum(db: Db, accountId: number, wallet: Wallet): Promise<number> {
  const row = await db
    .selectFrom("ledger_entries")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), sql<number>`0`).as("total"))
    .where("account_id", "=", accountId)
    .where("wallet", "=", wallet)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

export interface Transfer {
  fromAccountId: number;
  toAccountId: number;
  wallet: Wallet;
  amount: number;
  ref: string;
  note?: string | null;
}

/** Moves credits between accounts as two entries in one transaction. */
export async function transferCredits(
  store: Store,
  clock: Clock,
  transfer: Transfer,
  /** What the caller writes in the same transaction (the audit entries), given both balances after. */
  also?: (trx: Db, balance: number, recipientBalance: number) => Promise<void>,
): Promise<number> {
  if (transfer.fromAccountId === transfer.toAccountId) {
    throw new GatewayError("invalid_request", "Credits cannot be transferred to the same account.");
  }
  const note = transfer.note ?? null;
  const out = {
    accountId: transfer.fromAccountId,
    wallet: transfer.wallet,
    amount: transfer.amount,
    ref: transfer.ref,
  };
  const debit = async (trx: Db) => {
    const after = await tryDebitWallet(trx, clock, { ...out, kind: "transfer_out", note });
    if (after === undefined) throw new GatewayError("insufficient_credits");
    return after;
  };
  const credit = (trx: Db) =>
    creditWallet(trx, clock, { ...out, accountId: transfer.toAccountId, kind: "transfer_in", note });
  return store.transaction(async (trx) => {
    // Both wallet rows are locked in account-id order: A→B and B→A at the same moment would
    // otherwise each hold one row and wait for the other (a PostgreSQL deadlock).
    let after: number;
    let received: number;
    if (transfer.fromAccountId < transfer.toAccountId) {
      after = await debit(trx);
      received = await credit(trx);
    } else {
      received = await credit(trx);
      after = await debit(trx);
    }
    await also?.(trx, after, received);
    return after;
  });
}
