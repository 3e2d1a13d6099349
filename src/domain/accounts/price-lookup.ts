// The price of a unit on the accept path. A card is compiled once into maps by (channel, route
// code) and prefix, each prefix holding its rows by effective_from; a look-up tries the account's
// own route code, then `*`, each from the longest prefix the recipient's digits start with down
// to the `*` row (as routes choose a connector: delivery/dispatch/router.ts), and takes the row
// in force (the latest effective_from not after now). No row: DEFAULT_PRICE (1 credit).
// PriceBook caches the compiled cards and each account's card name; a change signals
// PRICE_CARDS_CHANGED (which PostgreSQL carries to every process) and bumps a version that every
// process also reads at most every VERSION_CHECK_MS (a CLI import into SQLite from another process).
import { BoundedMap } from "../../base/core/bounded-map.js";
import { VersionWatch } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  DEFAULT_CARD,
  DEFAULT_PRICE,
  PRICE_CARDS_CHANGED,
  PRICE_CARDS_VERSION_KEY,
  parentPrice,
  priceCardRows,
} from "./price-cards.js";
import type { PriceChannel, PriceRow } from "./price-rows.js";
import { accountPricing, ancestorsOf, markedUp } from "./resellers.js";

const VERSION_CHECK_MS = 2_000;
const MAX_ACCOUNTS = 100_000;
const ALWAYS = Number.NEGATIVE_INFINITY;

/** What a unit costs, and the row that said so. */
export interface UnitPrice {
  /** Milli-credits per SMS segment or voice unit. */
  price: number;
  /** The prefix of the row applied, `*` for the catch-all row or no row at all. */
  prefix: string;
  /** The route code of the row applied (`*` too when no row applied). */
  route: string;
}

/**
 * What an account's sends cost: its own price, and for a sub-account each ancestor's price of
 * the same unit, charged with it (resellers.ts). An account without parent is priced by its
 * CompiledCard itself, whose upline is empty: the common case costs no more than a look-up.
 */
export interface AccountPrices {
  /** The card that prices the account, or for a sub-account without one `parent+<markup>%`. */
  readonly name: string;
  /** The ancestors charged with the account, parent first; empty for an account without parent. */
  readonly upline: readonly number[];
  price(channel: PriceChannel, route: string, digits: string, now: number): UnitPrice;
  /** Each ancestor's price of the unit, parent first (milli-credits). */
  uplinePrices(channel: PriceChannel, route: string, digits: string, now: number): number[];
}

const NO_UPLINE: readonly number[] = Object.freeze([]);

/** The rows of one prefix, oldest effective_from first. */
type Prices = { from: number[]; price: number[] };

interface RouteTable {
  /** By prefix length (0: the `*` row), the prefixes of that length as numbers. */
  byLength: (Map<number, Prices> | undefined)[];
  /** Prefix lengths present, longest first. */
  lengths: number[];
}

/** Prefixes are at most 15 digits: as numbers they stay exact (below 2^53). */
const MAX_PREFIX = 15;

/** A card compiled for look-ups. */
export class CompiledCard implements AccountPrices {
  readonly upline = NO_UPLINE;
  private readonly tables = new Map<string, RouteTable>();
  /** The recipient's leading digits as numbers, by length (reused: look-ups are synchronous). */
  private readonly leading = new Float64Array(MAX_PREFIX + 1);

  constructor(
    readonly name: string,
    rows: readonly PriceRow[],
  ) {
    const rowsFor = new Map<string, Map<string, { from: number; price: number }[]>>();
    for (const row of rows) {
      const key = `${row.channel}|${row.route}`;
      const prefixes = rowsFor.get(key) ?? new Map();
      rowsFor.set(key, prefixes);
      const prefix = row.prefix === "*" ? "" : row.prefix;
      const list = prefixes.get(prefix) ?? [];
      prefixes.set(prefix, list);
      list.push({ from: row.effective_from ?? ALWAYS, price: row.price });
    }
    for (const [key, prefixes] of rowsFor) {
      const byLength: RouteTable["byLength"] = [];
      for (const [prefix, list] of prefixes) {
        list.sort((a, b) => a.from - b.from);
        const map = byLength[prefix.length] ?? new Map<number, Prices>();
        byLength[prefix.length] = map;
        map.set(prefix === "" ? 0 : Number(prefix), { from: list.map((e) => e.from), price: list.map((e) => e.price) });
      }
      const lengths = byLength.flatMap((map, length) => (map ? [length] : [])).sort((a, b) => b - a);
      this.tables.set(key, { byLength, lengths });
    }
  }

  /** The unit price for `digits` (with country code) on (channel, route) at `now`. */
  price(channel: PriceChannel, route: string, digits: string, now: number): UnitPrice {
    return this.find(channel, route, digits, now) ?? { price: DEFAULT_PRICE, prefix: "*", route: "*" };
  }

  /** The row in force for the unit, or undefined when no row prices it (a carrier's cost card). */
  find(channel: PriceChannel, route: string, digits: string, now: number): UnitPrice | undefined {
    const length = Math.min(digits.length, MAX_PREFIX);
    const leading = this.leading;
    let usable = length;
    for (let i = 0; i < length; i++) {
      const digit = digits.charCodeAt(i) - 48;
      if (digit < 0 || digit > 9) {
        usable = i;
        break;
      }
      leading[i + 1] = leading[i]! * 10 + digit;
    }
    return (
      this.lookUp(`${channel}|${route}`, route, digits, usable, now) ??
      (route === "*" ? undefined : this.lookUp(`${channel}|*`, "*", digits, usable, now))
    );
  }

  uplinePrices(): number[] {
    return [];
  }

  private lookUp(key: string, route: string, digits: string, usable: number, now: number): UnitPrice | undefined {
    const table = this.tables.get(key);
    if (!table) return undefined;
    for (const length of table.lengths) {
      if (length > usable) continue;
      const prices = table.byLength[length]!.get(this.leading[length]!);
      if (!prices) continue;
      const { from, price } = prices;
      for (let i = from.length - 1; i >= 0; i--) {
        if (from[i]! <= now) return { price: price[i]!, prefix: length === 0 ? "*" : digits.slice(0, length), route };
      }
    }
    return undefined;
  }
}

const DEFAULT = new CompiledCard(DEFAULT_CARD, []);

/** A level of a reseller tree: its own card, or (card undefined) its parent's price marked up. */
interface Level {
  card: CompiledCard | undefined;
  markupBp: number;
}

/**
 * A sub-account's prices: from the top of its tree down, each level at its own card's price
 * when it has one, else at the level above's price marked up (rounded up to a milli-credit).
 */
class TreePrices implements AccountPrices {
  readonly name: string;

  constructor(
    readonly upline: readonly number[],
    /** Top first; the last level is the account's own. */
    private readonly levels: readonly Level[],
  ) {
    const own = levels[levels.length - 1]!;
    this.name = own.card?.name ?? parentPrice(own.markupBp);
  }

  price(channel: PriceChannel, route: string, digits: string, now: number): UnitPrice {
    let unit: UnitPrice = { price: DEFAULT_PRICE, prefix: "*", route: "*" };
    for (const level of this.levels) {
      unit = level.card
        ? level.card.price(channel, route, digits, now)
        : { ...unit, price: markedUp(unit.price, level.markupBp) };
    }
    return unit;
  }

  uplinePrices(channel: PriceChannel, route: string, digits: string, now: number): number[] {
    const prices: number[] = [];
    let price = DEFAULT_PRICE;
    for (const level of this.levels) {
      price = level.card ? level.card.price(channel, route, digits, now).price : markedUp(price, level.markupBp);
      prices.push(price);
    }
    prices.pop();
    return prices.reverse();
  }
}

/**
 * What an account's sends cost, its cards read with `card`: its own card, or for a sub-account
 * the prices of its tree (PriceBook's, cached; a sub-account's card checked against its parent's
 * price, uncached: subaccount-prices.ts).
 */
export async function loadAccountPrices(
  db: Db,
  accountId: number,
  card: (name: string) => Promise<CompiledCard>,
): Promise<AccountPrices> {
  const row = await accountPricing(db, accountId);
  if (!row?.parent_id) return card(row?.price_card ?? DEFAULT_CARD);
  const ancestors = await ancestorsOf(db, row.parent_id);
  const levels: Level[] = [];
  // Top first; the top of the tree pays its own card (the default one when it has none).
  for (const [depth, level] of [...[...ancestors].reverse(), row].entries()) {
    const own = level.price_card ?? (depth === 0 ? DEFAULT_CARD : undefined);
    levels.push({ card: own === undefined ? undefined : await card(own), markupBp: level.markup_bp ?? 0 });
  }
  return new TreePrices(
    ancestors.map((a) => a.id),
    levels,
  );
}

/** Compiled cards and each account's card, shared by every send family of a process. */
export class PriceBook {
  private readonly cards = new Map<string, Promise<CompiledCard>>();
  private readonly accountCards = new BoundedMap<number, Promise<AccountPrices>>(MAX_ACCOUNTS);
  /** Read at most every VERSION_CHECK_MS; everything forgotten when it moved. */
  private readonly version: VersionWatch;

  constructor(private readonly store: Store) {
    this.version = new VersionWatch(store, PRICE_CARDS_VERSION_KEY, VERSION_CHECK_MS, () => this.forget());
    store.signals.listen(PRICE_CARDS_CHANGED, () => this.forget());
  }

  /** What the account's sends cost: its card, or for a sub-account the prices of its tree. */
  async cardFor(accountId: number): Promise<AccountPrices> {
    await this.version.fresh();
    let prices = this.accountCards.get(accountId);
    if (prices === undefined) {
      prices = this.load(accountId);
      this.accountCards.set(accountId, prices);
      prices.catch(() => this.accountCards.delete(accountId));
    }
    return prices;
  }

  private load(accountId: number): Promise<AccountPrices> {
    return loadAccountPrices(this.store.db, accountId, (name) => this.card(name));
  }

  /** A card by name (`default` or one without rows: every unit at DEFAULT_PRICE). */
  card(name: string): Promise<CompiledCard> {
    if (name === DEFAULT_CARD) return Promise.resolve(DEFAULT);
    let hit = this.cards.get(name);
    if (!hit) {
      hit = priceCardRows(this.store.db, name).then((rows) => new CompiledCard(name, rows ?? []));
      this.cards.set(name, hit);
      hit.catch(() => this.cards.delete(name));
    }
    return hit;
  }

  private forget(): void {
    this.cards.clear();
    this.accountCards.clear();
    this.version.recheck();
  }
}
