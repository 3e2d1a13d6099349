// A card a parent gives its sub-account must not price any unit below what that unit costs the
// parent (decision 0149, audit F2): else the parent pays the operator more for each such send
// than its customer is charged. Both sides are priced by the pricing code itself (price-lookup.ts):
// the candidate card as the sub-account's own, the parent as its sends are priced now (its own
// card, or its parent's price marked up, up the tree). A price is the same for every number
// whose longest prefix among the prefixes either side names is the same, and changes only at an
// effective_from: so every such prefix (and `*`), every route code and the moments from now and
// each later effective_from of a row at one of its prefixes cover every number and every time.
// Routes T, P and PS carry Indian mobiles only (91, 6 to 9, 9 digits): they are compared where one
// can go, never at 44 (a card written with route I rows abroad was refused for route T to 44).
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";
import { priceCardRows } from "./price-cards.js";
import { CompiledCard, loadAccountPrices } from "./price-lookup.js";
import type { PriceChannel, PriceRow } from "./price-rows.js";

/** The route codes a send is priced with, by channel (a card's `*` route is their fallback). */
const ROUTE_CODES: Record<PriceChannel, readonly string[]> = { sms: ["T", "P", "PS", "I"], voice: ["V"] };
/** Route codes whose numbers are Indian mobiles, 91 and then 6 to 9 (internationalDigits). */
const INDIAN_ROUTES = new Set(["T", "P", "PS"]);
/** Prefixes some Indian mobile (91, 6 to 9, then 9 digits) starts with. */
const INDIAN_MOBILE_PREFIX = /^9(1([6-9]\d{0,9})?)?$/;
const PROBES_PER_TURN = 5_000;

/**
 * Whether some Indian mobile's longest prefix among `named` can be `prefix` ("" for `*`: none
 * names it). `*` is out of reach once 9 or 91, or each of 916 to 919, is named.
 */
function indianMobileReaches(prefix: string, named: ReadonlySet<string>): boolean {
  if (prefix !== "") return INDIAN_MOBILE_PREFIX.test(prefix);
  return !(named.has("9") || named.has("91") || ["6", "7", "8", "9"].every((digit) => named.has(`91${digit}`)));
}
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Where a candidate card prices a unit below its parent's price. */
export interface BelowParent {
  channel: PriceChannel;
  route: string;
  /** The prefix compared, `*` for numbers no prefix of either side names. */
  prefix: string;
  /** The moment compared: now, or a later effective_from. */
  at: number;
  /** Milli-credits. */
  card: number;
  parent: number;
}

/** Cards read once for several comparisons (a sweep over many sub-accounts): rows and compiled, by name. */
export type CardCache = Map<string, Promise<{ rows: readonly PriceRow[]; card: CompiledCard }>>;

function cachedCard(db: Db, cards: CardCache, name: string) {
  let hit = cards.get(name);
  if (!hit) {
    hit = priceCardRows(db, name).then((found) => {
      const rows = found ?? [];
      return { rows, card: new CompiledCard(name, rows) };
    });
    cards.set(name, hit);
  }
  return hit;
}

/**
 * The first unit (channel, route code, prefix, moment) the card `rows` prices below what it costs
 * the account `parentId` at `now`; undefined when none does.
 */
export async function belowParent(
  db: Db,
  parentId: number,
  rows: readonly PriceRow[],
  now: number,
): Promise<BelowParent | undefined> {
  return (await unitsBelowParent(db, parentId, rows, now, { stopAtFirst: true })).units[0];
}

/**
 * The units the card `rows` prices below the parent's price: the first `keep` of them, in the
 * order compared, and how many there are (every one compared unless `stopAtFirst`).
 */
export async function unitsBelowParent(
  db: Db,
  parentId: number,
  rows: readonly PriceRow[],
  now: number,
  options: { stopAtFirst?: boolean; keep?: number; cards?: CardCache } = {},
): Promise<{ units: BelowParent[]; count: number }> {
  const cards = options.cards ?? new Map();
  const keep = options.stopAtFirst ? 1 : (options.keep ?? 1);
  // Every card's rows, the candidate's and those of the parent's tree (up to 200,000 each).
  const seen: (readonly PriceRow[])[] = [rows];
  const parent = await loadAccountPrices(db, parentId, async (name) => {
    const read = await cachedCard(db, cards, name);
    seen.push(read.rows);
    return read.card;
  });
  const candidate = new CompiledCard("candidate", rows);
  const units: BelowParent[] = [];
  let count = 0;
  let probes = 0;
  for (const channel of ["sms", "voice"] as const) {
    // By prefix ("" for `*`): the later moments a row of this channel at that prefix starts.
    const later = new Map<string, Set<number>>([["", new Set()]]);
    for (const row of seen.flat()) {
      if (row.channel !== channel) continue;
      const prefix = row.prefix === "*" ? "" : row.prefix;
      const moments = later.get(prefix) ?? new Set<number>();
      later.set(prefix, moments);
      if (row.effective_from !== null && row.effective_from > now) moments.add(row.effective_from);
    }
    const named = new Set(later.keys());
    for (const prefix of [...later.keys()].sort()) {
      const moments = new Set([now]);
      for (let length = 0; length <= prefix.length; length++) {
        for (const at of later.get(prefix.slice(0, length)) ?? []) moments.add(at);
      }
      for (const at of [...moments].sort((a, b) => a - b)) {
        for (const route of ROUTE_CODES[channel]) {
          if (INDIAN_ROUTES.has(route) && !indianMobileReaches(prefix, named)) continue;
          const card = candidate.price(channel, route, prefix, at).price;
          const cost = parent.price(channel, route, prefix, at).price;
          if (card < cost) {
            count++;
            if (units.length < keep) units.push({ channel, route, prefix: prefix || "*", at, card, parent: cost });
            if (options.stopAtFirst) return { units, count };
          }
          if (++probes % PROBES_PER_TURN === 0) await nextTurn();
        }
      }
    }
  }
  return { units, count };
}

/** A unit below as answers show it: in credits, `from` null for now. */
export function describeBelowUnit(unit: BelowParent, now: number) {
  return {
    channel: unit.channel,
    route: unit.route,
    prefix: unit.prefix,
    from: unit.at > now ? isoUtc(new Date(unit.at)) : null,
    price: fromMilli(unit.card),
    parent_price: fromMilli(unit.parent),
  };
}

/** "an SMS segment on route T to prefix 9198 at 0.25" (and " from <time>" for a later moment). */
export function belowUnitWords(unit: BelowParent, now: number): string {
  const where = unit.prefix === "*" ? "numbers no other prefix names (prefix *)" : `prefix ${unit.prefix}`;
  const what = unit.channel === "sms" ? "an SMS segment" : "a voice unit";
  const when = unit.at > now ? ` from ${isoUtc(new Date(unit.at))}` : "";
  return `${what} on route ${unit.route} to ${where} at ${fromMilli(unit.card)}${when}`;
}

/**
 * Refuses (400 naming price_card) a card that prices some unit below its parent's price; the
 * parent is "this account" to a parent choosing, or named (`parent`) to the operator.
 */
export async function assertNotBelowParent(
  db: Db,
  parentId: number,
  card: string,
  now: number,
  parent?: string,
): Promise<void> {
  const rows = (await priceCardRows(db, card)) ?? [];
  const below = await belowParent(db, parentId, rows, now);
  if (!below) return;
  throw new GatewayError(
    "invalid_request",
    `The price card "${card}" prices ${belowUnitWords(below, now)}, below ${parent === undefined ? "this account's own" : `its parent ${parent}'s`} price there (${fromMilli(below.parent)}): a sub-account's card may not price any destination below what it costs its parent.`,
    { field: "price_card" },
  );
}
