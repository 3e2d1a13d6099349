// What an account spent in a window of its own days, and its current row: read by the account
// status and credit routes, which count what it sent through AccountTraffic.
import { sql } from "kysely";
import { DateTime } from "luxon";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";
import { getAccount } from "./accounts.js";

/**
 * What the account routes read of the tables messages/ owns (messages, flood_counters). That
 * folder sits above this one, so app/ hands its functions in.
 */
export interface AccountTraffic {
  /**
   * The account's SMS accepted in [from, until) that went out or are on their way (not still
   * scheduled, not cancelled): how many, and how many are delivered and failed by now. What they
   * cost is not counted here: credits used are the ledger's (creditsUsed).
   */
  smsSent(
    db: Db,
    accountId: number,
    from: number,
    until: number,
  ): Promise<{ sent: number; delivered: number; failed: number }>;
  /** Messages the account accepted in [from, until). */
  messageCount(db: Db, accountId: number, from: number, until: number): Promise<number>;
  /** The account's flood counter for one of its days (as localDay writes it). */
  floodCount(db: Db, accountId: number, day: string): Promise<number>;
  /** The broadcast each refund ref (a message's queue id, `bulk_part:N`) gave back: a ledger export's `charged_ref`. */
  refundedBroadcasts(db: Db, refs: readonly string[]): Promise<Map<string, string>>;
}

/** Wallets whose spending counts as "credits used" for SMS (debits net of refunds). */
const SPENDING_WALLETS = ["sms", "international"];

/** The calling account's current row (status and limits can change after the key was cached). */
export async function currentAccount(db: Db, accountId: number) {
  const account = await getAccount(db, accountId);
  if (!account) throw new GatewayError("unauthorized");
  return account;
}

/** Today in the account's zone: its start, and [from, until) in milliseconds. */
export function today(clock: Clock, zone: string) {
  const local = DateTime.fromJSDate(clock.now(), { zone }).startOf("day");
  return { start: local, from: local.toMillis(), until: local.plus({ days: 1 }).toMillis() };
}

/**
 * Milli-credits used in [from, until): the debits of the SMS wallets (sms, international) made
 * then, net of the refunds made then, as the ledger holds them, whatever the messages' state
 * (held, scheduled, sent, failed). The one figure of "credits used": the account status's
 * `today.credits_used`, the credit detail's `today_used` and `month_used`, the history's days.
 */
export async function creditsUsed(db: Db, accountId: number, from: number, until: number): Promise<number> {
  const row = await db
    .selectFrom("ledger_entries")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), sql<number>`0`).as("total"))
    .where("account_id", "=", accountId)
    .where("wallet", "in", SPENDING_WALLETS)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .where("kind", "in", ["debit", "refund"])
    .executeTakeFirstOrThrow();
  return Math.max(0, -Number(row.total));
}

/** Every active customer account's balance (milli-credits) in one wallet: what the low-balance alert compares. */
export async function customerBalances(
  db: Db,
  wallet: string,
): Promise<{ account_id: number; username: string; balance: number }[]> {
  const rows = await db
    .selectFrom("wallets")
    .innerJoin("accounts", "accounts.id", "wallets.account_id")
    .select(["wallets.account_id", "accounts.username", "wallets.balance"])
    .where("wallets.wallet", "=", wallet)
    .where("accounts.role", "=", "customer")
    .where("accounts.status", "=", "active")
    .execute();
  return rows.map((row) => ({
    account_id: Number(row.account_id),
    username: row.username,
    balance: Number(row.balance),
  }));
}
