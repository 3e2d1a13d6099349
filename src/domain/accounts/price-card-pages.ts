// A price card read in parts (decision 0154): a page of its rows, narrowed by channel and by the
// start of the prefix, in the order channel, prefix, route, effective_from (`always` first), read
// from one index (migration 0067) with its count; and every row, a chunk at a time, for its CSV
// export. Both read the card's current generation only (price-cards.ts), never part of an upload.
import { sql } from "kysely";
import { GatewayError } from "../../base/core/errors.js";
import { type PageRequest, pagedRows } from "../../base/store/paging.js";
import type { Db } from "../../base/store/store.js";
import { DEFAULT_CARD, findPriceCard } from "./price-cards.js";
import { type PriceChannel, type PriceRow, storedPriceRow } from "./price-rows.js";

export interface PriceCardFilter {
  channel?: PriceChannel | undefined;
  /** 1 to 15 digits (a leading + dropped): rows whose prefix starts with them (never the `*` row). */
  prefix?: string | undefined;
}

export interface PriceCardPage {
  /** The card's name as stored. */
  name: string;
  rows: PriceRow[];
  /** Rows the filter matches. */
  total: number;
  /** Rows of the card, whatever the filter. */
  cardRows: number;
}

const PREFIX_START = /^\d{1,15}$/;
/** The character after "9": "starts with 91" is ['91', '91:') for a text of digits compared byte by byte. */
const AFTER_DIGITS = ":";

/** The card's current rows, as a query to narrow further. */
function cardRows(db: Db, name: string) {
  return db
    .selectFrom("price_card_rows")
    .where("card", "=", name)
    .where("generation", "=", (eb) => eb.selectFrom("price_cards").select("generation").where("name", "=", name));
}

/**
 * A page of the card `name` (in any case) matching `filter`, with the counts; undefined for no
 * such card. The built-in `default` has no rows.
 */
export async function priceCardPage(
  db: Db,
  name: string,
  filter: PriceCardFilter,
  page: PageRequest,
): Promise<PriceCardPage | undefined> {
  const start = filter.prefix?.trim().replace(/^\+/, "");
  if (start !== undefined && !PREFIX_START.test(start)) {
    throw new GatewayError(
      "invalid_request",
      `Query parameter "prefix" must be 1 to 15 digits, the start of the prefixes to show (got "${String(filter.prefix).slice(0, 20)}").`,
      { field: "prefix" },
    );
  }
  if (name === DEFAULT_CARD) return { name, rows: [], total: 0, cardRows: 0 };
  const card = (await findPriceCard(db, name))?.name;
  if (card === undefined) return undefined;
  let filtered = cardRows(db, card);
  if (filter.channel !== undefined) filtered = filtered.where("channel", "=", filter.channel);
  if (start !== undefined) filtered = filtered.where("prefix", ">=", start).where("prefix", "<", start + AFTER_DIGITS);
  const narrowed = filter.channel !== undefined || start !== undefined;
  const [{ rows, total }, all] = await Promise.all([
    pagedRows(
      filtered,
      (query) =>
        query
          .select(["channel", "route", "prefix", "price", "effective_from"])
          .orderBy("channel")
          .orderBy("prefix")
          .orderBy("route")
          .orderBy(sql`effective_from asc nulls first`),
      page,
    ),
    narrowed ? countRows(db, card) : undefined,
  ]);
  return { name: card, rows: rows.map(storedPriceRow), total, cardRows: all ?? total };
}

async function countRows(db: Db, card: string): Promise<number> {
  const row = await cardRows(db, card)
    .select((eb) => eb.fn.countAll<number | string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Rows read per statement by an export. */
const EXPORT_CHUNK = 5_000;

/**
 * Every row of the card `name` (as stored; found first by the caller), in the order it was
 * imported, a chunk per statement. A card replaced or deleted while it is read throws conflict
 * (its old rows may be gone): an export is the card at one moment or nothing.
 */
export async function* priceCardExportRows(db: Db, name: string, chunk = EXPORT_CHUNK): AsyncGenerator<PriceRow> {
  if (name === DEFAULT_CARD) return;
  const generation = (await findPriceCard(db, name))?.generation;
  if (generation == null) throw new GatewayError("not_found", `No price card named "${name}".`);
  for (let after = 0; ; ) {
    const part = await db
      .selectFrom("price_card_rows")
      .select(["id", "channel", "route", "prefix", "price", "effective_from"])
      .where("card", "=", name)
      .where("generation", "=", generation)
      .where("id", ">", after)
      .orderBy("id")
      .limit(chunk)
      .execute();
    const still = await db.selectFrom("price_cards").select("generation").where("name", "=", name).executeTakeFirst();
    if (Number(still?.generation ?? Number.NaN) !== Number(generation)) {
      throw new GatewayError("conflict", `The price card "${name}" changed while it was exported; export it again.`);
    }
    for (const row of part) yield storedPriceRow(row);
    if (part.length < chunk) return;
    after = Number(part[part.length - 1]!.id);
  }
}
