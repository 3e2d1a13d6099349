// The audit entries of changes whose transaction a lower folder opens (an account's settings and
// price card, a price card's rows): each a hook the change runs in its own transaction, shared
// by the operator API and the CLI.
import type { Account } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { describeAccount, type PricedBy, type PriceRow, priceCardChangeInTurns } from "../../domain/accounts/index.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";

/** An account's settings as the log keeps them (never the password hash: whether it changed). */
function accountState(account: Account) {
  const { id: _, ...state } = describeAccount(account);
  return state;
}

/** The settings whose values differ, as they were and as they are (keys in the snapshot's order). */
function changedSettings(was: Record<string, unknown>, is: Record<string, unknown>) {
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (JSON.stringify(was[key]) === JSON.stringify(is[key])) continue;
    before[key] = was[key] ?? null;
    after[key] = is[key] ?? null;
  }
  return { before, after };
}

/**
 * updateAccount's hook: `account.status` when the status changed, else `account.update`; nothing
 * when the settings are as they were (a change of price card or SMPP settings alone has its own entry).
 * `before` and `after` hold only the settings that changed (an auditor reads the change, not a
 * snapshot of every setting); a new password is `password_changed: true` in `after`.
 */
export function accountUpdateEntry(who: Audited) {
  return async (trx: Db, before: Account, after: Account) => {
    const changed = changedSettings(accountState(before), accountState(after));
    const passwordChanged = before.password_hash !== after.password_hash;
    if (!passwordChanged && Object.keys(changed.after).length === 0) return;
    await recordChange(trx, who, {
      action: before.status !== after.status ? "account.status" : "account.update",
      target: `account ${after.username}`,
      accountId: after.id,
      before: changed.before,
      after: { ...changed.after, ...(passwordChanged ? { password_changed: true } : {}) },
    });
  };
}

/**
 * setAccountPriceCard's hook: what the account was and is priced by, as its detail names it
 * (`parent+50%` → `tcard`), and a sub-account's markup when it changed too.
 */
export function accountPriceCardEntry(who: Audited, username: string) {
  return (trx: Db, accountId: number, before: PricedBy, after: PricedBy) =>
    recordChange(trx, who, {
      action: "account.price_card",
      target: `account ${username}`,
      accountId,
      before,
      after,
    });
}

/** setSmppSettings's hook (never the SMPP password: whether it changed). */
export function smppSettingsEntry(who: Audited, username: string) {
  return (trx: Db, accountId: number, before: object, after: object) =>
    recordChange(trx, who, { action: "account.smpp", target: `account ${username}`, accountId, before, after });
}

/**
 * replacePriceCard's hook: the rows added, repriced and removed, in credits (priceCardChange),
 * worked out before the switch's transaction, which only writes the entry.
 */
export function priceCardEntry(who: Audited, card: string, rows: readonly PriceRow[]) {
  return async (rowsBefore: PriceRow[]) => {
    const change = await priceCardChangeInTurns(rowsBefore, rows);
    return (trx: Db) =>
      recordChange(trx, who, { action: "price_card.save", target: `price card ${card}`, accountId: null, ...change });
  };
}

/** deletePriceCard's hook: the card and how many rows it had. */
export function priceCardDeleteEntry(who: Audited) {
  return (trx: Db, card: string, rows: number) =>
    recordChange(trx, who, {
      action: "price_card.delete",
      target: `price card ${card}`,
      accountId: null,
      before: { rows },
    });
}
