// Price cards: what a send costs by (channel, route code, destination prefix), in milli-credits per
// SMS segment or voice call unit, each row from its effective_from. A card is written whole, from
// the operator API's rows or a CSV file (price-rows.ts checks them): in chunks under a new
// generation, then switched to in one short transaction (decision 0146). Names compare without
// case. Every change moves a version in `settings` and signals PRICE_CARDS_CHANGED, which
// price-lookup.ts's caches follow.

import { type Expression, type ExpressionBuilder, type SqlBool, sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Database } from "../../base/store/schema.js";
import { moveVersion } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { isUniqueViolation } from "../../base/store/unavailable.js";
import { inCardOrder } from "./price-row-order.js";
import { generationChunk, type PriceRow, storedPriceRow } from "./price-rows.js";

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
  return `parent+${markupPercent(markupBp)}%`;
}

/** A markup in basis points as answers and audit entries show it, in per cent (null: none). */
export function markupPercent<T extends number | null>(markupBp: T): T {
  return (markupBp === null ? null : markupBp / 100) as T;
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

/** Rows written per transaction by an upload (and removed per transaction afterwards). */
export const PRICE_ROWS_PER_CHUNK = 5_000;
/** Rows of a generation no card answers with, this much older than an upload, are a crashed one's. */
const STALE_UPLOAD_MS = 60 * 60 * 1000;

/** What a caller of replacePriceCard writes with the switch: given the rows before, its writer. */
export type PriceCardHook = (rowsBefore: PriceRow[]) => Promise<(trx: Db) => Promise<void>>;

export interface ReplaceOptions {
  /** Rows per transaction (PRICE_ROWS_PER_CHUNK). */
  chunkRows?: number;
  /** Called after each chunk is committed, with the rows written so far (tests stop here). */
  afterChunk?: (written: number) => Promise<void> | void;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Generations an upload draws before it gives up (each a 1 in 1,000 collision with another upload). */
const MAX_DRAWS = 5;

/**
 * Replaces the card's rows (creating the card) and tells every process. The rows are written
 * under a new generation a chunk per transaction with a turn of the event loop between them, so a
 * 200,000-row card does not hold the database or the thread for seconds; then one short
 * transaction makes the card answer with them (readers see the old rows or the new, never part),
 * and the old generation is removed in chunks. A failure before the switch removes what was
 * written and leaves the card as it was; a process that dies leaves rows no reader reads, which
 * a later upload of the card removes. The card changing meanwhile (another upload, a delete)
 * answers 409 conflict and writes nothing.
 */
export async function replacePriceCard(
  store: Store,
  clock: Clock,
  name: string,
  rows: PriceRow[],
  /** The audit entry: given the rows the card had, what the switch's transaction writes. */
  also?: PriceCardHook,
  options: ReplaceOptions = {},
): Promise<number> {
  const chunk = options.chunkRows ?? PRICE_ROWS_PER_CHUNK;
  const card = (await findPriceCard(store.db, name, { hidden: true }))?.name ?? checkCardName(name).toLowerCase();
  const started = clock.now().getTime();
  const before = await store.db
    .selectFrom("price_cards")
    .select("generation")
    .where("name", "=", card)
    .executeTakeFirst();
  const live = before?.generation ?? null;
  await removeRows(store, card, (eb) =>
    eb.and([
      eb("generation", "<", (started - STALE_UPLOAD_MS) * 1000),
      ...(live === null ? [] : [eb("generation", "<>", live)]),
    ]),
  );
  const rowsBefore = also && live !== null ? await generationRows(store.db, card, live, chunk) : [];
  const write = await also?.(rowsBefore);
  // Time-ordered; never the live one, whose rows go once the switch is made (a clock that stood
  // still, one millisecond). Two uploads of the card may draw the same: the one whose first place
  // is written owns it (a place is unique, migration 0071), the other draws again.
  const draw = () => {
    let drawn: number;
    do drawn = started * 1000 + Math.floor(Math.random() * 1000);
    while (live !== null && drawn === Number(live));
    return drawn;
  };
  let generation = draw();
  let owned = false;
  let draws = 1;
  // Each row with its place in the card's order, which the pages read (price-card-pages.ts).
  const ordered = await inCardOrder(rows);
  try {
    for (let from = 0; from === 0 || from < rows.length; from += chunk) {
      try {
        await store.transaction(async (trx) => {
          await trx
            .insertInto("price_cards")
            .values({ name: card, created_at: started, updated_at: started, generation: null })
            .onConflict((oc) => oc.column("name").doNothing())
            .execute();
          const part = ordered
            .slice(from, from + chunk)
            .map((row, i) => ({ card, generation, position: from + i, ...row }));
          if (part.length > 0) await store.insertMany(trx, "price_card_rows", part);
        });
      } catch (error) {
        // Another upload of the card wrote its first places under this generation: nothing of
        // this one is written, so it draws again and starts over.
        if (!owned && isUniqueViolation(error) && draws++ < MAX_DRAWS) {
          generation = draw();
          from -= chunk;
          continue;
        }
        throw error;
      }
      owned = true;
      await options.afterChunk?.(Math.min(rows.length, from + chunk));
      await nextTurn();
    }
    const now = clock.now().getTime();
    await store.transaction(async (trx) => {
      const current = await trx
        .selectFrom("price_cards")
        .select("generation")
        .where("name", "=", card)
        .executeTakeFirst();
      if ((current?.generation ?? null) !== live) {
        throw new GatewayError(
          "conflict",
          `The price card "${card}" changed while this one was written; send it again.`,
        );
      }
      await trx.updateTable("price_cards").set({ generation, updated_at: now }).where("name", "=", card).execute();
      await bumpPriceVersion(trx, now);
      await write?.(trx);
    });
  } catch (error) {
    // Only this upload's own rows: a generation it never owned is another upload's.
    if (owned) await removeRows(store, card, (eb) => eb("generation", "=", generation)).catch(() => undefined);
    throw error;
  }
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  if (live !== null) await removeRows(store, card, (eb) => eb("generation", "=", live));
  return rows.length;
}

type RowFilter = (eb: ExpressionBuilder<Database, "price_card_rows">) => Expression<SqlBool>;

/** Deletes the card's rows that `which` selects, a chunk per transaction. */
async function removeRows(store: Store, card: string, which: RowFilter): Promise<void> {
  for (;;) {
    const removed = await store.transaction(async (trx) => {
      const ids = trx
        .selectFrom("price_card_rows")
        .select("id")
        .where("card", "=", card)
        .where(which)
        .limit(PRICE_ROWS_PER_CHUNK);
      const result = await trx.deleteFrom("price_card_rows").where("id", "in", ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    if (removed < PRICE_ROWS_PER_CHUNK) return;
    await nextTurn();
  }
}

/** The rows of one generation of a card, read a chunk at a time. */
async function generationRows(db: Db, card: string, generation: number, chunk: number): Promise<PriceRow[]> {
  const rows: PriceRow[] = [];
  for (let after = -1; ; ) {
    const part = await generationChunk(db, card, generation, after, chunk);
    for (const row of part) rows.push(storedPriceRow(row));
    if (part.length < chunk) return rows;
    after = Number(part[part.length - 1]!.position);
    await nextTurn();
  }
}

/**
 * The card named `name` in any case (names compare as usernames do): the one card whose name
 * differs from it only in case; undefined when none. Two such cards (made before names were
 * folded) answer the one named exactly, else 409 conflict naming both. `hidden`: also a card no
 * reader sees (its first upload under way, or its delete).
 */
export async function findPriceCard(
  db: Db,
  name: string,
  options: { hidden?: boolean } = {},
): Promise<{ name: string; generation: number | null } | undefined> {
  const trimmed = name.trim();
  if (trimmed.toLowerCase() === DEFAULT_CARD) return undefined;
  let query = db
    .selectFrom("price_cards")
    .select(["name", "generation"])
    .where(sql<string>`lower(name)`, "=", trimmed.toLowerCase());
  if (!options.hidden) query = query.where("generation", "is not", null);
  const found = await query.orderBy("name").execute();
  if (found.length <= 1) return found[0];
  const exact = found.find((card) => card.name === trimmed);
  if (exact) return exact;
  throw new GatewayError(
    "conflict",
    `Price cards ${found.map((c) => `"${c.name}"`).join(" and ")} differ only in case: name one exactly.`,
    { field: "name" },
  );
}

/**
 * Deletes a card no account is priced by (409 conflict saying how many are), with `also` (its
 * audit entry) in the same transaction; its rows are removed afterwards, in chunks. Answers the
 * card's name as stored; not_found for no such card.
 */
export async function deletePriceCard(
  store: Store,
  clock: Clock,
  name: string,
  also?: (trx: Db, card: string, rows: number) => Promise<void>,
): Promise<string> {
  const found = await findPriceCard(store.db, name);
  if (!found) throw new GatewayError("not_found", `No price card named "${name.slice(0, 70)}".`);
  const card = found.name;
  const now = clock.now().getTime();
  const generation = await store.transaction(async (trx) => {
    const current = await trx
      .selectFrom("price_cards")
      .select("generation")
      .where("name", "=", card)
      .executeTakeFirst();
    if (current?.generation == null) throw new GatewayError("not_found", `No price card named "${card}".`);
    const users = await trx
      .selectFrom("accounts")
      .select(trx.fn.countAll<number>().as("n"))
      .where("price_card", "=", card)
      .executeTakeFirstOrThrow();
    const n = Number(users.n);
    if (n > 0) {
      throw new GatewayError(
        "conflict",
        `The price card "${card}" prices ${n} ${n === 1 ? "account" : "accounts"}: move ${n === 1 ? "it" : "them"} to another card first.`,
      );
    }
    const counted = await trx
      .selectFrom("price_card_rows")
      .select(trx.fn.countAll<number>().as("n"))
      .where("card", "=", card)
      .where("generation", "=", current.generation)
      .executeTakeFirstOrThrow();
    await trx.updateTable("price_cards").set({ generation: null, updated_at: now }).where("name", "=", card).execute();
    await bumpPriceVersion(trx, now);
    await also?.(trx, card, Number(counted.n));
    return current.generation;
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  await removeRows(store, card, (eb) => eb("generation", "=", generation));
  // Gone unless an upload of the same name began meanwhile (its rows keep the name).
  await store.transaction(async (trx) => {
    const left = trx.selectFrom("price_card_rows").select("id").where("card", "=", card);
    await trx
      .deleteFrom("price_cards")
      .where("name", "=", card)
      .where("generation", "is", null)
      .where((eb) => eb.not(eb.exists(left)))
      .execute();
  });
  return card;
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
    db
      .selectFrom("price_cards")
      .select(["name", "updated_at"])
      .where("generation", "is not", null)
      .orderBy("name")
      .execute(),
    db
      .selectFrom("price_card_rows as r")
      .innerJoin("price_cards as c", (join) =>
        join.onRef("c.name", "=", "r.card").onRef("c.generation", "=", "r.generation"),
      )
      .select(["r.card", db.fn.countAll<number>().as("n")])
      .groupBy("r.card")
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
  // Accounts without a card and those given `default` by name (a sub-account's) are two groups
  // of the count, both on the built-in card: added, not one written over the other.
  const accountsOf = new Map<string, number>();
  for (const r of accountCounts) {
    const card = r.price_card ?? DEFAULT_CARD;
    accountsOf.set(card, (accountsOf.get(card) ?? 0) + Number(r.n));
  }
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

/**
 * A card's rows as stored, by its exact name (undefined: no such card; `default` has none): the
 * rows of its current generation, in one statement, so never part of an upload or of a delete.
 */
export async function priceCardRows(db: Db, name: string): Promise<PriceRow[] | undefined> {
  if (name === DEFAULT_CARD) return [];
  const rows = await db
    .selectFrom("price_card_rows as r")
    .innerJoin("price_cards as c", (join) =>
      join.onRef("c.name", "=", "r.card").onRef("c.generation", "=", "r.generation"),
    )
    .select(["r.channel", "r.route", "r.prefix", "r.price", "r.effective_from"])
    .where("c.name", "=", name)
    .orderBy("r.position")
    .execute();
  if (rows.length > 0) return rows.map(storedPriceRow);
  const card = await db
    .selectFrom("price_cards")
    .select("name")
    .where("name", "=", name)
    .where("generation", "is not", null)
    .executeTakeFirst();
  return card ? [] : undefined;
}

/** The account's card name (`default` when it has none). */
export async function accountPriceCard(db: Db, accountId: number): Promise<string> {
  const row = await db.selectFrom("accounts").select("price_card").where("id", "=", accountId).executeTakeFirst();
  return row?.price_card ?? DEFAULT_CARD;
}
