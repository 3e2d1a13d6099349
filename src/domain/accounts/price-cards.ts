// Price cards: what a send costs by (channel, route code, destination prefix), in milli-credits per
// SMS segment or voice call unit, each row from its effective_from. A card is written whole (one
// transaction replaces its rows), from the operator API's rows or a CSV file, which price-rows.ts
// checks: a bad row refuses the whole card with its line (CSV) or index (API) and field. Every
// change bumps a version in `settings` and signals PRICE_CARDS_CHANGED, which price-lookup.ts's
// caches follow.

import type { Clock } from "../../base/core/clock.js";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { moveVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { requireAccount } from "./accounts.js";
import { type PriceRow, storedPriceRow } from "./price-rows.js";

export const PRICE_CARDS_CHANGED = "price_cards_changed";
/** The version every price cache compares: moved by every change of a card or of an account's card. */
export const PRICE_CARDS_VERSION_KEY = "price_cards_version";

/** The built-in card of every account without one: 1 credit per SMS segment and per voice unit. */
export const DEFAULT_CARD = "default";

/**
 * The card an account's sends are priced by, named as GET /api/v2/pricing names it: its own card;
 * for a sub-account without one, `parent+<markup>%` (its parent's price marked up); else `default`.
 */
export function pricedBy(account: { price_card: string | null; parent_id: number | null; markup_bp: number | null }) {
  if (account.price_card !== null) return account.price_card;
  return account.parent_id === null ? DEFAULT_CARD : parentPrice(account.markup_bp ?? 0);
}

/** A sub-account's price without a card of its own: its parent's, marked up (`parent+12.5%`). */
export function parentPrice(markupBp: number): string {
  return `parent+${markupBp / 100}%`;
}
/** Milli-credits of a unit no row prices (the `default` card's one price). */
export const DEFAULT_PRICE = 1000;

const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A card name an operator may give (`default` is built in and cannot be written). */
export function checkCardName(name: string): string {
  const trimmed = name.trim();
  if (!NAME.test(trimmed)) {
    throw new GatewayError(
      "invalid_request",
      `A price card name is 1 to 64 letters, digits, ".", "_" or "-" (got "${name.slice(0, 70)}").`,
      { field: "name" },
    );
  }
  if (trimmed.toLowerCase() === DEFAULT_CARD) {
    throw new GatewayError(
      "invalid_request",
      `The card "${DEFAULT_CARD}" is built in (1 credit a unit) and cannot be changed.`,
      {
        field: "name",
      },
    );
  }
  return trimmed;
}

/** Replaces the card's rows (creating the card) in one transaction, and tells every process. */
export async function replacePriceCard(
  store: Store,
  clock: Clock,
  name: string,
  rows: PriceRow[],
  /** What the caller writes in the same transaction (the audit entry), given the rows the card had. */
  also?: (trx: Db, rowsBefore: PriceRow[]) => Promise<void>,
): Promise<number> {
  const card = checkCardName(name);
  const now = clock.now().getTime();
  await store.transaction(async (trx) => {
    const before = also
      ? (
          await trx
            .selectFrom("price_card_rows")
            .select(["channel", "route", "prefix", "price", "effective_from"])
            .where("card", "=", card)
            .orderBy("id")
            .execute()
        ).map(storedPriceRow)
      : [];
    await trx
      .insertInto("price_cards")
      .values({ name: card, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column("name").doUpdateSet({ updated_at: now }))
      .execute();
    await trx.deleteFrom("price_card_rows").where("card", "=", card).execute();
    if (rows.length > 0) {
      await store.insertMany(
        trx,
        "price_card_rows",
        rows.map((row) => ({ card, ...row })),
      );
    }
    await bumpPriceVersion(trx, now);
    await also?.(trx, before);
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  return rows.length;
}

function bumpPriceVersion(trx: Db, now: number): Promise<void> {
  return moveVersion(trx, PRICE_CARDS_VERSION_KEY, now);
}

export interface PriceCardSummary {
  name: string;
  rows: number;
  accounts: number;
  updated_at: string | null;
}

/** Every card with its row and account counts, `default` first. */
export async function listPriceCards(db: Db): Promise<PriceCardSummary[]> {
  const [cards, rowCounts, accountCounts] = await Promise.all([
    db.selectFrom("price_cards").select(["name", "updated_at"]).orderBy("name").execute(),
    db
      .selectFrom("price_card_rows")
      .select(["card", db.fn.countAll<number>().as("n")])
      .groupBy("card")
      .execute(),
    // A sub-account without a card of its own is priced by its parent, not by default.
    db
      .selectFrom("accounts")
      .select(["price_card", db.fn.countAll<number>().as("n")])
      .where((eb) => eb.or([eb("price_card", "is not", null), eb("parent_id", "is", null)]))
      .groupBy("price_card")
      .execute(),
  ]);
  const rowsOf = new Map(rowCounts.map((r) => [r.card, Number(r.n)]));
  const accountsOf = new Map(accountCounts.map((r) => [r.price_card ?? DEFAULT_CARD, Number(r.n)]));
  return [
    { name: DEFAULT_CARD, rows: 0, accounts: accountsOf.get(DEFAULT_CARD) ?? 0, updated_at: null },
    ...cards.map((card) => ({
      name: card.name,
      rows: rowsOf.get(card.name) ?? 0,
      accounts: accountsOf.get(card.name) ?? 0,
      updated_at: isoUtc(new Date(card.updated_at)),
    })),
  ];
}

/** A card's rows as stored (undefined: no such card; `default` has none). */
export async function priceCardRows(db: Db, name: string): Promise<PriceRow[] | undefined> {
  if (name === DEFAULT_CARD) return [];
  const card = await db.selectFrom("price_cards").select("name").where("name", "=", name).executeTakeFirst();
  if (!card) return undefined;
  const rows = await db
    .selectFrom("price_card_rows")
    .select(["channel", "route", "prefix", "price", "effective_from"])
    .where("card", "=", name)
    .orderBy("id")
    .execute();
  return rows.map(storedPriceRow);
}

/** Sets the account's card (null or `default`: the built-in one); an unknown card is refused. */
export async function setAccountPriceCard(
  store: Store,
  clock: Clock,
  username: string,
  card: string | null,
  /** What the caller writes in the same transaction (the audit entry), given the card before and after. */
  also?: (trx: Db, accountId: number, before: string, after: string) => Promise<void>,
) {
  const account = await requireAccount(store.db, username);
  const name = card === null || card.trim() === "" || card.trim() === DEFAULT_CARD ? null : card.trim();
  if (name !== null) {
    const found = await store.db.selectFrom("price_cards").select("name").where("name", "=", name).executeTakeFirst();
    if (!found) {
      throw new GatewayError(
        "not_found",
        `No price card named "${name.slice(0, 70)}": import it first (prices import).`,
        {
          field: "price_card",
        },
      );
    }
  }
  const now = clock.now().getTime();
  await store.transaction(async (trx) => {
    await trx.updateTable("accounts").set({ price_card: name, updated_at: now }).where("id", "=", account.id).execute();
    await bumpPriceVersion(trx, now);
    await also?.(trx, account.id, account.price_card ?? DEFAULT_CARD, name ?? DEFAULT_CARD);
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  return name ?? DEFAULT_CARD;
}

/** The account's card name (`default` when it has none). */
export async function accountPriceCard(db: Db, accountId: number): Promise<string> {
  const row = await db.selectFrom("accounts").select("price_card").where("id", "=", accountId).executeTakeFirst();
  return row?.price_card ?? DEFAULT_CARD;
}
