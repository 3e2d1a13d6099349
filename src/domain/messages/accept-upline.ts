// A sub-account's send in the Acceptor: what each ancestor is charged for it (resellers,
// docs/decisions/0113-resellers.md), and the debits at every level that accept it all or none.
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";
import { accountUsername, type Debit, walletBalance } from "../accounts/index.js";
import type { SendOrder } from "./send-order.js";

/** Each ancestor's charge for all the drafts, parent first. */
export function uplineTotals(upline: readonly number[], drafts: SendOrder["drafts"]): number[] {
  const totals = upline.map(() => 0);
  for (const draft of drafts) {
    for (let level = 0; level < totals.length; level++) totals[level]! += draft.upline?.[level] ?? 0;
  }
  return totals;
}

/**
 * The send's debit at every level, its own first then each ancestor's (a level charged nothing is
 * left out); an ancestor's note names the sub-account by its username, as its ledger reads it.
 */
export function debitsAtEveryLevel(
  own: Debit,
  order: SendOrder,
  uplineCredits: readonly number[],
  subAccount: string,
): Debit[] {
  const levels = [
    own,
    ...(order.upline ?? []).map((accountId, level) => ({
      ...own,
      accountId,
      amount: uplineCredits[level] ?? 0,
      note: `${own.note} of sub-account ${subAccount}`,
    })),
  ];
  return levels.filter((debit) => debit.amount > 0);
}

/** Sends (their indexes) grouped by the levels they charge: the same accounts and wallets, bottom-up. */
export function byLevels(levels: ReadonlyMap<number, Debit[]>): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const [index, debits] of levels) {
    const key = debits.map((d) => `${d.accountId}:${d.wallet}`).join("|");
    const list = groups.get(key) ?? [];
    list.push(index);
    groups.set(key, list);
  }
  return groups;
}

/**
 * The refusal of a send some level of whose tree cannot pay for it: the family's plain "credit not
 * available", whichever level is short. A sub-account is not told that an ancestor pays, nor
 * which, nor the state of its wallet: a white-label reseller's customer may not know its
 * reseller, let alone the operator above it (decision 0150). The short ancestor reads it in its
 * own balance and ledger, the operator in the parent's wallets and its low-balance alerts.
 */
export function insufficient(order: Pick<SendOrder, "wallet">): GatewayError {
  return new GatewayError(
    order.wallet === "international" ? "insufficient_international_credits" : "insufficient_credits",
  );
}

/**
 * Which level of the send's tree was short and by how much, in the words its readers find in the
 * log of refusals (decisions 0158 and 0192): the account's own wallet (level 0: read by everyone
 * who reads the refusal, the account itself included), or an ancestor's, by its place (the
 * parent, or how many levels above), its username, what its wallet holds and what the send
 * needed (read by the operator and the levels at or above it only). Read on a refusal's path only.
 */
export async function shortLevel(
  db: Db,
  upline: readonly number[] | undefined,
  short: Pick<Debit, "accountId" | "wallet" | "amount">,
): Promise<{ level: number; reason: string }> {
  const level = (upline ?? []).indexOf(short.accountId) + 1;
  const balance = fromMilli(await walletBalance(db, short.accountId, short.wallet));
  const needs = fromMilli(short.amount);
  if (level === 0) {
    return {
      level,
      reason: `Credit not available: the ${short.wallet} wallet holds ${balance}, the send needs ${needs}.`,
    };
  }
  const username = await accountUsername(db, short.accountId);
  const who = level === 1 ? "the parent account" : `the account ${level} levels above,`;
  return {
    level,
    reason: `Credit not available at ${who} ${username}: its ${short.wallet} wallet holds ${balance}, the send needs ${needs}.`,
  };
}

/** `insufficient` for a send a level of whose tree was short, with that level's words for the log. */
export async function insufficientAt(db: Db, order: Pick<SendOrder, "wallet" | "upline">, short: Debit) {
  const error = insufficient(order);
  error.upline = await shortLevel(db, order.upline, short);
  return error;
}
