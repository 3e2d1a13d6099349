// Resellers: an account may have a parent account (any depth). A parent creates, lists, keys and
// funds its direct sub-accounts, and takes back credits it issued (decision 0150); a sub-account's
// send is charged at every level above it too, each ancestor's share kept on the message as its
// `upline` ("id:milli,…", parent first) so a refund gives back at every level what was taken
// (docs/decisions/0113-resellers.md).
import { randomUUID } from "node:crypto";
import { fromMilli, toMilli, WALLETS, type Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { usernameIs } from "../../base/core/usernames.js";
import { type PageRequest, pagedRows } from "../../base/store/paging.js";
import type { Account } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { findAccountByUsername } from "./accounts.js";
import { adjustWallet, creditWallet } from "./ledger.js";
import type { Refund } from "./ledger-batch.js";

/**
 * The price card a sub-account is told it has (`card` of GET /api/v2/pricing, `price_card` of GET
 * /api/v2/credits): never the operator's card name nor its parent's markup, which a white-label
 * reseller's customer should not see (decision 0150). No card is named so: a name has no space.
 */
export const SUB_ACCOUNT_CARD = "your price";

/** The card name an account is shown of its own prices: a sub-account's is SUB_ACCOUNT_CARD. */
export function shownCardName(hasParent: boolean, name: string): string {
  return hasParent ? SUB_ACCOUNT_CARD : name;
}

/** The largest markup a reseller may set on its sub-accounts, in per cent. */
export const MAX_MARKUP_PERCENT = 1000;
/** Levels above an account, at most: a guard against a cycle the schema cannot rule out. */
const MAX_DEPTH = 64;

/** markup_percent (up to 2 decimals, 0..MAX_MARKUP_PERCENT) as hundredths of a per cent. */
export function markupBasisPoints(percent: number): number {
  const bp = Math.round(percent * 100);
  if (!Number.isFinite(percent) || percent < 0 || percent > MAX_MARKUP_PERCENT || Math.abs(bp - percent * 100) > 1e-6) {
    throw new GatewayError(
      "invalid_request",
      `markup_percent must be a number from 0 to ${MAX_MARKUP_PERCENT} with at most 2 decimals (got ${percent}).`,
      { field: "markup_percent" },
    );
  }
  return bp;
}

/**
 * The parent's unit price with the markup, rounded UP to the next milli-credit: a reseller never
 * sells below the markup it asked for, and integers keep it exact.
 */
export function markedUp(parentPrice: number, markupBp: number): number {
  return Math.floor((parentPrice * (10_000 + markupBp) + 9_999) / 10_000);
}

/** The account's pricing row: its own card, its parent, its markup (and its username, for the levels a read names). */
export async function accountPricing(db: Db, accountId: number) {
  return db
    .selectFrom("accounts")
    .select(["id", "username", "price_card", "parent_id", "markup_bp"])
    .where("id", "=", accountId)
    .executeTakeFirst();
}

/** The account's ancestors' pricing rows, parent first; throws on a cycle. */
export async function ancestorsOf(db: Db, parentId: number | null) {
  const chain: NonNullable<Awaited<ReturnType<typeof accountPricing>>>[] = [];
  for (let id = parentId; id !== null; ) {
    if (chain.length >= MAX_DEPTH || chain.some((row) => row.id === id)) {
      throw new Error(`the parents of account ${id} make a cycle or are deeper than ${MAX_DEPTH}`);
    }
    const row = await accountPricing(db, id);
    if (!row) break;
    chain.push(row);
    id = row.parent_id;
  }
  return chain;
}

/**
 * Where an account sits in a reader's tree: how many levels below it (0: the reader itself), and
 * the usernames of the accounts between them, top first (none for the reader and a direct
 * sub-account): `subaccount_via` of the reads that answer for it. Never a name above the reader.
 */
export interface TreePlace {
  levels: number;
  via: string[];
  /** The account's own username, read with its place when it is below the reader (levels > 0). */
  username?: string;
}

/** Where `accountId` is below `readerId`, from one walk up its parents; undefined when it is not in its tree. */
export async function placeBelow(db: Db, readerId: number, accountId: number): Promise<TreePlace | undefined> {
  if (accountId === readerId) return { levels: 0, via: [] };
  const account = await accountPricing(db, accountId);
  if (!account || account.parent_id === null) return undefined;
  const parents = await ancestorsOf(db, account.parent_id);
  const above = parents.findIndex((row) => row.id === readerId);
  if (above < 0) return undefined;
  return {
    levels: above + 1,
    username: account.username,
    via: parents
      .slice(0, above)
      .map((row) => row.username)
      .reverse(),
  };
}

/** How many levels `accountId` is below `readerId` (0: the same); undefined when it is not in its tree. */
export async function levelsBelow(db: Db, readerId: number, accountId: number): Promise<number | undefined> {
  return (await placeBelow(db, readerId, accountId))?.levels;
}

/** An account of the reader's tree: its id and its place below the reader (levels 0: the reader's own). */
export interface TreeAccount extends TreePlace {
  id: number;
}

/**
 * The account a read answers for: the reader's own, or with `?subaccount=` an account below it at
 * any depth. Any other name (the reader's own, its parent's, a sibling's, another tree's) is the
 * same 404 as an unknown one, so a name of another tree tells nothing.
 */
export async function readableAccount(db: Db, readerId: number, subaccount: string | undefined): Promise<TreeAccount> {
  const name = subaccount?.trim();
  if (!name) return { id: readerId, levels: 0, via: [] };
  if (name.includes("\u0000")) {
    throw new GatewayError("invalid_request", 'Query parameter "subaccount" holds a NUL character.', {
      field: "subaccount",
    });
  }
  const account = await findAccountByUsername(db, name);
  const place = account ? await placeBelow(db, readerId, account.id) : undefined;
  if (!account || !place?.levels) {
    throw new GatewayError("not_found", `No sub-account named "${name}" under this account.`);
  }
  return { id: account.id, ...place };
}

/** `subaccount_via` of an answer for `account` (SubAccountVia): none for the reader's own. */
export function subaccountVia(account: TreePlace): { subaccount_via?: string[] } {
  return account.levels === 0 ? {} : { subaccount_via: account.via };
}

/** The parent named at creation, checked: it exists (operators cannot resell). */
export async function parentFor(db: Db, parent: string, username: string): Promise<Account> {
  if (usernameMatches(parent, username)) {
    throw new GatewayError("invalid_request", `An account cannot be its own parent ("${parent}").`, {
      field: "parent",
    });
  }
  const account = await findAccountByUsername(db, parent);
  if (!account) {
    throw new GatewayError("invalid_request", `No account named "${parent}" to be the parent.`, { field: "parent" });
  }
  if (account.role !== "customer") {
    throw new GatewayError("invalid_request", `"${parent}" is an operator account; only customers have sub-accounts.`, {
      field: "parent",
    });
  }
  return account;
}

function usernameMatches(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/** The parent's direct sub-account of that name; not_found for any other account (a sibling, itself, its parent). */
export async function requireSubAccount(db: Db, parentId: number, username: string): Promise<Account> {
  const account = await db
    .selectFrom("accounts")
    .selectAll()
    .where(usernameIs(username))
    .where("parent_id", "=", parentId)
    .executeTakeFirst();
  if (!account) throw new GatewayError("not_found", `No sub-account named "${username}" under this account.`);
  return account;
}

/**
 * A page of the parent's direct sub-accounts (or the one `onlyId`), oldest first, with their
 * balances and how many sub-accounts of their own each has.
 */
export async function listSubAccounts(db: Db, parentId: number, page: PageRequest, onlyId?: number) {
  let filtered = db.selectFrom("accounts").where("parent_id", "=", parentId);
  if (onlyId !== undefined) filtered = filtered.where("id", "=", onlyId);
  const { rows, total } = await pagedRows(
    filtered,
    (q) => q.select(["id", "username", "status", "price_card", "markup_bp", "created_at"]).orderBy("id"),
    page,
  );
  const ids = rows.map((row) => row.id);
  const [wallets, children] =
    ids.length === 0
      ? [[], []]
      : await Promise.all([
          db.selectFrom("wallets").select(["account_id", "wallet", "balance"]).where("account_id", "in", ids).execute(),
          db
            .selectFrom("accounts")
            .select((eb) => ["parent_id", eb.fn.countAll<number | string>().as("count")])
            .where("parent_id", "in", ids)
            .groupBy("parent_id")
            .execute(),
        ]);
  return {
    total,
    rows: rows.map((row) => ({
      ...row,
      subaccounts: Number(children.find((c) => c.parent_id === row.id)?.count ?? 0),
      balances: Object.fromEntries(
        WALLETS.map((wallet) => [
          wallet,
          Number(wallets.find((w) => w.account_id === row.id && w.wallet === wallet)?.balance ?? 0),
        ]),
      ) as Record<Wallet, number>,
    })),
  };
}

/** Credits issued by a parent into its sub-account's wallet: a `topup` noting the parent, not taken from it. */
export async function fundSubAccount(
  store: Store,
  who: Audited,
  parentUsername: string,
  sub: Pick<Account, "id" | "username">,
  wallet: string,
  amount: number,
): Promise<number> {
  const milli = issuedAmount(wallet, amount);
  const note = `from parent ${parentUsername}`;
  return store.transaction(async (trx) => {
    const move = { accountId: sub.id, wallet: wallet as Wallet, amount: milli, kind: "topup" as const, note };
    const balance = await creditWallet(trx, who.clock, move);
    await recordChange(trx, who, {
      action: "credits.topup",
      target: `${wallet} wallet of ${sub.username}`,
      accountId: sub.id,
      before: { balance: fromMilli(balance - milli) },
      after: { balance: fromMilli(balance), amount, note },
    });
    return balance;
  });
}

/**
 * Credits a parent takes back from its sub-account (issued by mistake): the reverse of
 * fundSubAccount (decision 0150). Issued credits were not taken from the parent, so they are only
 * removed from the sub-account's wallet (one `adjustment` entry; the parent's wallet is not
 * touched), never below its spendable balance: more is 400 naming `amount`, nothing taken.
 */
export async function reclaimFromSubAccount(
  store: Store,
  who: Audited,
  parentUsername: string,
  sub: Pick<Account, "id" | "username">,
  wallet: string,
  amount: number,
): Promise<{ balance: number; ref: string }> {
  const milli = issuedAmount(wallet, amount);
  const ref = `reclaim_${randomUUID()}`;
  const note = `reclaimed by parent ${parentUsername}`;
  const move = { accountId: sub.id, wallet: wallet as Wallet, amount: -milli, ref, note };
  const balance = await store.transaction(async (trx) => {
    const after = await adjustWallet(trx, who.clock, move);
    if (after === undefined) return undefined;
    await recordChange(trx, who, {
      action: "credits.reclaim",
      target: `${wallet} wallet of ${sub.username}`,
      accountId: sub.id,
      before: { balance: fromMilli(after + milli) },
      after: { balance: fromMilli(after), amount, ref, note },
    });
    return after;
  });
  if (balance === undefined) {
    const row = await store.db
      .selectFrom("wallets")
      .select(["balance", "held"])
      .where("account_id", "=", sub.id)
      .where("wallet", "=", wallet as Wallet)
      .executeTakeFirst();
    const spendable = Math.max(0, Number(row?.balance ?? 0) - Number(row?.held ?? 0));
    throw new GatewayError(
      "invalid_request",
      `${sub.username}'s ${wallet} wallet holds ${fromMilli(spendable)} credits that can be taken back, fewer than ${amount}; nothing was taken.`,
      { field: "amount" },
    );
  }
  return { balance, ref };
}

/** The wallet and amount of credits issued or taken back, checked: milli-credits. */
function issuedAmount(wallet: string, amount: number): number {
  if (!(WALLETS as readonly string[]).includes(wallet)) {
    throw new GatewayError("invalid_request", `Unknown wallet "${wallet}"; use ${WALLETS.join(", ")}.`, {
      field: "wallet",
    });
  }
  if (!(amount > 0))
    throw new GatewayError("invalid_request", "amount must be a positive number of credits.", { field: "amount" });
  return toMilli(amount, "amount");
}

/** A message's upline column: each ancestor's charge, parent first. */
export function encodeUpline(ancestors: readonly number[], credits: readonly number[]): string {
  return ancestors.map((id, level) => `${id}:${credits[level] ?? 0}`).join(",");
}

/** A message's upline column read back: each ancestor and its charge in milli-credits, parent first. */
export function decodeUpline(upline: string | null): { accountId: number; amount: number }[] {
  if (!upline) return [];
  return upline.split(",").map((level) => {
    const [id, milli] = level.split(":");
    return { accountId: Number(id), amount: Number(milli) };
  });
}

/**
 * The refunds at every level above a sub-account of `times` messages charged `upline` each
 * (none for a message of an account without parent).
 */
export function uplineRefunds(
  upline: string | null,
  refund: Pick<Refund, "wallet" | "ref" | "note">,
  times = 1,
): Refund[] {
  return decodeUpline(upline).map(({ accountId, amount }) => ({ ...refund, accountId, amount: amount * times }));
}
