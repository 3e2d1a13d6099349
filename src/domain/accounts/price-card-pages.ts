// A price card read in parts (decision 0154): a page of its rows, narrowed by channel and by the
// start of the prefix, in the order channel, prefix, route, effective_from (`always` first); and
// every row, a chunk at a time, for its CSV export. An upload stores each row's place in that order
// (price-row-order.ts, migration 0067), so a filter's rows are one run of places (a run a channel
// for a prefix alone): its count is its ends, and a page at any depth is read where it starts.
// Both read one generation of the card (price-cards.ts), never part of an upload.
import { GatewayError } from "../../base/core/errors.js";
import type { PageRequest } from "../../base/store/paging.js";
import type { Db } from "../../base/store/store.js";
import { DEFAULT_CARD, findPriceCard } from "./price-cards.js";
import { generationChunk, PRICE_CHANNELS, type PriceChannel, type PriceRow, storedPriceRow } from "./price-rows.js";

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

/** A run of places (price_card_rows.position), both ends included. */
interface Run {
  first: number;
  last: number;
}

/**
 * The run of places of the rows on `channel` whose prefix starts with `start` (neither: every
 * row): the rows are stored in that order, so the first and the last in the index's order end it.
 */
async function runOf(db: Db, card: string, generation: number, channel?: string, start?: string) {
  let rows = db
    .selectFrom("price_card_rows")
    .select("position")
    .where("card", "=", card)
    .where("generation", "=", generation);
  if (channel !== undefined) rows = rows.where("channel", "=", channel);
  if (start !== undefined) rows = rows.where("prefix", ">=", start).where("prefix", "<", start + AFTER_DIGITS);
  const end = (way: "asc" | "desc") => {
    const ordered =
      channel === undefined && start === undefined
        ? rows.orderBy("position", way)
        : rows.orderBy("channel", way).orderBy("prefix", way).orderBy("position", way);
    return ordered.limit(1).executeTakeFirst();
  };
  const [first, last] = await Promise.all([end("asc"), end("desc")]);
  return first && last ? { first: Number(first.position), last: Number(last.position) } : undefined;
}

const size = (run: Run) => run.last - run.first + 1;

/**
 * A page of the card `name` (in any case) matching `filter`, with the counts; undefined for no
 * such card. The built-in `default` has no rows. Each read is a few index look-ups, at any page.
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
  const found = await findPriceCard(db, name);
  if (found?.generation == null) return undefined;
  const card = found.name;
  const generation = Number(found.generation);
  const narrowed = filter.channel !== undefined || start !== undefined;
  // Without a channel, a prefix's rows are a run on each channel.
  const channels = filter.channel !== undefined ? [filter.channel] : start !== undefined ? PRICE_CHANNELS : [undefined];
  const [whole, ...narrowRuns] = await Promise.all([
    runOf(db, card, generation),
    ...(narrowed ? channels.map((channel) => runOf(db, card, generation, channel, start)) : []),
  ]);
  const runs = (narrowed ? narrowRuns : [whole]).filter((run): run is Run => run !== undefined);
  const total = runs.reduce((sum, run) => sum + size(run), 0);
  // The page's places: skip (page - 1) × per_page places of the runs, then take per_page.
  let skip = (page.page - 1) * page.perPage;
  let wanted = page.perPage;
  const parts: Run[] = [];
  for (const run of runs) {
    if (wanted === 0) break;
    if (skip >= size(run)) {
      skip -= size(run);
      continue;
    }
    const first = run.first + skip;
    const last = Math.min(run.last, first + wanted - 1);
    parts.push({ first, last });
    wanted -= last - first + 1;
    skip = 0;
  }
  const read = await Promise.all(
    parts.map((part) =>
      db
        .selectFrom("price_card_rows")
        .select(["channel", "route", "prefix", "price", "effective_from"])
        .where("card", "=", card)
        .where("generation", "=", generation)
        .where("position", ">=", part.first)
        .where("position", "<=", part.last)
        .orderBy("position")
        .execute(),
    ),
  );
  const rows = read.flat().map(storedPriceRow);
  return { name: card, rows, total, cardRows: whole ? size(whole) : 0 };
}

/** Rows read per statement by an export. */
const EXPORT_CHUNK = 5_000;

/**
 * Every row of the card `name` (as stored; found first by the caller), in the pages' order, a
 * chunk per statement. A card replaced or deleted while it is read throws conflict
 * (its old rows may be gone): an export is the card at one moment or nothing.
 */
export async function* priceCardExportRows(db: Db, name: string, chunk = EXPORT_CHUNK): AsyncGenerator<PriceRow> {
  if (name === DEFAULT_CARD) return;
  const generation = (await findPriceCard(db, name))?.generation;
  if (generation == null) throw new GatewayError("not_found", `No price card named "${name}".`);
  for (let after = -1; ; ) {
    const part = await generationChunk(db, name, generation, after, chunk);
    const still = await db.selectFrom("price_cards").select("generation").where("name", "=", name).executeTakeFirst();
    if (Number(still?.generation ?? Number.NaN) !== Number(generation)) {
      throw new GatewayError("conflict", `The price card "${name}" changed while it was exported; export it again.`);
    }
    for (const row of part) yield storedPriceRow(row);
    if (part.length < chunk) return;
    after = Number(part[part.length - 1]!.position);
  }
}
