// Sub-accounts priced below their parent (decision 0168). A card given to a sub-account is held to
// its parent's price when it is given (subaccount-prices.ts, decision 0149); a later change (a
// card's rows, a parent's card or markup) is made, since a reseller's cost may rise, and may leave
// a sub-account's card below its parent's price. These find such sub-accounts: those a change
// reaches (a card's save, an account's new price), and an account's own, for the answers that
// name them at the change and the views that show them afterwards.
import { fromMilli } from "../../base/core/credits.js";
import type { Db } from "../../base/store/store.js";
import { priceCardRows } from "./price-cards.js";
import { accountPricing, ancestorsOf } from "./resellers.js";
import {
  type BelowParent,
  belowUnitWords,
  type CardCache,
  describeBelowUnit,
  unitsBelowParent,
} from "./subaccount-prices.js";

/** Units below listed per sub-account (the count says how many there are). */
export const BELOW_UNITS_SHOWN = 5;

/** A sub-account whose own card prices some unit below its parent's price now or later. */
export interface SubAccountBelow {
  username: string;
  /** Its parent's username. */
  parent: string;
  /** Its own card (`default`: the built-in one). */
  price_card: string;
  /** How many units (channel, route code, prefix, moment compared) are below. */
  units_below: number;
  /** The first of them, in credits (`from` null: now). */
  units: ReturnType<typeof describeBelowUnit>[];
  /** In words: which sub-account, its card, the first unit below and its parent's price there. */
  message: string;
}

interface Candidate {
  id: number;
  username: string;
  parent_id: number;
  price_card: string;
}

/** Which sub-accounts to look at: a card's (its own, or its parent's price read from it), or an account's tree. */
export type BelowScope = { card: string } | { under: number } | { ids: readonly number[] };

/**
 * The sub-accounts of `scope` with a card of their own that prices a unit below their parent's
 * price, by username: `card`, those on it or whose parent's price is read from it; `under`, those
 * anywhere below the account whose parent's price is read from its own (a markup takes it down);
 * `ids`, those accounts.
 */
export async function subAccountsBelowParent(db: Db, now: number, scope: BelowScope): Promise<SubAccountBelow[]> {
  const candidates = await candidatesOf(db, scope);
  const cards: CardCache = new Map();
  const found: SubAccountBelow[] = [];
  const parents = new Map<number, string>();
  for (const sub of candidates) {
    if ("card" in scope || "under" in scope) {
      const reads = await priceReadFrom(db, sub.parent_id);
      const hit =
        "card" in scope
          ? sub.price_card === scope.card || reads.card === scope.card
          : reads.accounts.includes(scope.under);
      if (!hit) continue;
    }
    const rows = (await priceCardRows(db, sub.price_card)) ?? [];
    const below = await unitsBelowParent(db, sub.parent_id, rows, now, { keep: BELOW_UNITS_SHOWN, cards });
    if (below.count === 0) continue;
    const parent = parents.get(sub.parent_id) ?? (await usernameOf(db, sub.parent_id));
    parents.set(sub.parent_id, parent);
    found.push({
      username: sub.username,
      parent,
      price_card: sub.price_card,
      units_below: below.count,
      units: below.units.map((unit) => describeBelowUnit(unit, now)),
      message: belowWords(sub.username, parent, sub.price_card, below.units[0]!, below.count, now),
    });
  }
  return found.sort((a, b) => (a.username < b.username ? -1 : a.username > b.username ? 1 : 0));
}

function belowWords(username: string, parent: string, card: string, first: BelowParent, count: number, now: number) {
  const others = count > 1 ? ` (and ${count - 1} other ${count === 2 ? "unit" : "units"})` : "";
  return `The sub-account ${username}'s card "${card}" prices ${belowUnitWords(first, now)}, below its parent ${parent}'s price there (${fromMilli(first.parent)})${others}: ${parent} pays more for each such send than ${username} is charged.`;
}

async function candidatesOf(db: Db, scope: BelowScope): Promise<Candidate[]> {
  let query = db
    .selectFrom("accounts")
    .select(["id", "username", "parent_id", "price_card"])
    .where("parent_id", "is not", null)
    .where("price_card", "is not", null);
  if ("ids" in scope) {
    if (scope.ids.length === 0) return [];
    query = query.where("id", "in", [...scope.ids]);
  } else if ("under" in scope) {
    const below = await descendantsOf(db, scope.under);
    if (below.length === 0) return [];
    query = query.where("id", "in", below);
  }
  return (await query.orderBy("id").execute()) as Candidate[];
}

/** Every account below `accountId`, level by level. */
async function descendantsOf(db: Db, accountId: number): Promise<number[]> {
  const all = new Set<number>([accountId]);
  for (let level = [accountId]; level.length > 0; ) {
    const rows = await db.selectFrom("accounts").select("id").where("parent_id", "in", level).execute();
    level = rows.map((row) => row.id).filter((id) => !all.has(id));
    for (const id of level) all.add(id);
  }
  all.delete(accountId);
  return [...all];
}

/**
 * Where an account's price is read from: the accounts from it up to the first with a card of its
 * own (a markup reads the level above), and that card (`default` at the top without one).
 */
async function priceReadFrom(db: Db, accountId: number): Promise<{ accounts: number[]; card: string }> {
  const own = await accountPricing(db, accountId);
  const chain = own ? [own, ...(await ancestorsOf(db, own.parent_id))] : [];
  const accounts: number[] = [];
  for (const level of chain) {
    accounts.push(level.id);
    if (level.price_card !== null) return { accounts, card: level.price_card };
  }
  return { accounts, card: "default" };
}

async function usernameOf(db: Db, id: number): Promise<string> {
  const row = await db.selectFrom("accounts").select("username").where("id", "=", id).executeTakeFirst();
  return row?.username ?? `account ${id}`;
}
