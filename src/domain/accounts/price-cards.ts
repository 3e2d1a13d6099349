// Price cards: what a send costs by (channel, route code, destination prefix), in milli-credits per
// SMS segment or voice call unit, each row from its effective_from. A card is written whole (one
// transaction replaces its rows), from the operator API's rows or a CSV file; a bad row refuses the
// whole card with its line (CSV) or index (API) and field. Every change bumps a version in
// `settings` and signals PRICE_CARDS_CHANGED, which price-lookup.ts's caches follow.
import { type CsvError, parse } from "csv-parse/sync";
import { DateTime } from "luxon";
import type { Clock } from "../../base/core/clock.js";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli, toMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { requireAccount } from "./accounts.js";

export const PRICE_CARDS_CHANGED = "price_cards_changed";
const VERSION_KEY = "price_cards_version";

/** The built-in card of every account without one: 1 credit per SMS segment and per voice unit. */
export const DEFAULT_CARD = "default";
/** Milli-credits of a unit no row prices (the `default` card's one price). */
export const DEFAULT_PRICE = 1000;

export const PRICE_CHANNELS = ["sms", "voice"] as const;
export type PriceChannel = (typeof PRICE_CHANNELS)[number];
const ROUTES: Record<PriceChannel, readonly string[]> = { sms: ["T", "P", "PS", "I", "*"], voice: ["V", "*"] };
export const PRICE_CSV_HEADER = ["channel", "route", "prefix", "price", "effective_from"] as const;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
const PREFIX = /^\d{1,15}$/;
/** Rows a card may have (a whole-world card by operator and number range is tens of thousands). */
export const MAX_CARD_ROWS = 200_000;

/** One row of a card, as stored: price in milli-credits, effective_from in ms (null: always). */
export interface PriceRow {
  channel: PriceChannel;
  /** T, P, PS, I, V or *. */
  route: string;
  /** Digits with the country code, or * for every number. */
  prefix: string;
  price: number;
  effective_from: number | null;
}

/** A row as a person writes it (API body or CSV line): strings or numbers, checked by priceRow. */
export interface PriceRowInput {
  channel?: unknown;
  route?: unknown;
  prefix?: unknown;
  price?: unknown;
  effective_from?: unknown;
}

/** A row that cannot be: which field, and why. */
export class PriceRowError extends Error {
  constructor(
    readonly field: keyof PriceRowInput,
    reason: string,
  ) {
    super(reason);
  }
}

/** Checks one row; throws PriceRowError naming the field. */
export function priceRow(input: PriceRowInput): PriceRow {
  const channel = String(input.channel ?? "")
    .trim()
    .toLowerCase();
  if (!PRICE_CHANNELS.includes(channel as PriceChannel)) {
    throw new PriceRowError("channel", `channel must be sms or voice (got "${String(input.channel ?? "")}")`);
  }
  const route = String(input.route ?? "")
    .trim()
    .toUpperCase();
  const routes = ROUTES[channel as PriceChannel];
  if (!routes.includes(route)) {
    throw new PriceRowError(
      "route",
      `route of a ${channel} row must be one of ${routes.join(", ")} (got "${String(input.route ?? "")}")`,
    );
  }
  const prefix = String(input.prefix ?? "")
    .trim()
    .replace(/^\+/, "");
  if (prefix !== "*" && !PREFIX.test(prefix)) {
    throw new PriceRowError(
      "prefix",
      `prefix must be 1 to 15 digits with the country code, or * (got "${String(input.prefix ?? "")}")`,
    );
  }
  return {
    channel: channel as PriceChannel,
    route,
    prefix,
    price: priceOf(input.price),
    effective_from: effectiveFrom(input.effective_from),
  };
}

function priceOf(raw: unknown): number {
  const text = typeof raw === "number" ? String(raw) : typeof raw === "string" ? raw.trim() : "";
  if (!/^\d+(\.\d+)?$/.test(text) && !(typeof raw === "number" && Number.isFinite(raw) && raw >= 0)) {
    throw new PriceRowError("price", `price must be a number of credits, at least 0 (got "${String(raw ?? "")}")`);
  }
  try {
    return toMilli(Number(text));
  } catch (error) {
    throw new PriceRowError("price", error instanceof Error ? error.message : String(error));
  }
}

function effectiveFrom(raw: unknown): number | null {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return null;
  const text = typeof raw === "string" ? raw.trim() : "";
  // A date (midnight UTC) or a date-time; without an offset, UTC.
  const parsed = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)
    ? DateTime.fromISO(text.replace(" ", "T"), { zone: "utc" })
    : undefined;
  if (!parsed?.isValid) {
    throw new PriceRowError(
      "effective_from",
      `effective_from must be an ISO 8601 date or date-time (got "${String(raw)}")`,
    );
  }
  return parsed.toMillis();
}

/** A card's rows from CSV text; a bad line throws invalid_request with its line number and reason. */
export function parsePriceCsv(text: string): PriceRow[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      info: true,
      skip_empty_lines: true,
      trim: true,
      relax_column_count: true,
      bom: true,
    }) as unknown as typeof records;
  } catch (error) {
    const csv = error as CsvError & { lines?: number };
    throw new GatewayError("invalid_request", `Line ${csv.lines ?? "?"}: ${csv.message}`, { line: csv.lines });
  }
  const [head, ...lines] = records;
  const header = head?.record.map((h) => h.toLowerCase()) ?? [];
  const expected = PRICE_CSV_HEADER.slice(0, header.length);
  if (header.length < 4 || header.length > 5 || header.some((h, i) => h !== expected[i])) {
    throw new GatewayError(
      "invalid_request",
      `Line ${head?.info.lines ?? 1}: the header must be channel,route,prefix,price[,effective_from] (got "${header.join(",")}")`,
      { line: head?.info.lines ?? 1 },
    );
  }
  if (lines.length > MAX_CARD_ROWS) {
    throw new GatewayError("invalid_request", `A card has at most ${MAX_CARD_ROWS} rows (got ${lines.length}).`);
  }
  const rows: PriceRow[] = [];
  const seen = new Map<string, number>();
  for (const { record, info } of lines) {
    const at = (reason: string, field?: string) =>
      new GatewayError("invalid_request", `Line ${info.lines}: ${reason}; nothing imported.`, {
        line: info.lines,
        ...(field ? { field } : {}),
      });
    if (record.length !== header.length) throw at(`${record.length} fields where the header has ${header.length}`);
    const [channel, route, prefix, price, effective] = record;
    let row: PriceRow;
    try {
      row = priceRow({ channel, route, prefix, price, effective_from: effective });
    } catch (error) {
      if (error instanceof PriceRowError) throw at(error.message, error.field);
      throw error;
    }
    const key = rowKey(row);
    const earlier = seen.get(key);
    if (earlier !== undefined) throw at(`the same channel, route, prefix and effective_from as line ${earlier}`);
    seen.set(key, info.lines);
    rows.push(row);
  }
  return rows;
}

/** A card's rows from the operator API's body; a bad row throws invalid_request naming its index and field. */
export function priceRowsOf(inputs: PriceRowInput[]): PriceRow[] {
  if (inputs.length > MAX_CARD_ROWS) {
    throw new GatewayError("invalid_request", `A card has at most ${MAX_CARD_ROWS} rows (got ${inputs.length}).`);
  }
  const seen = new Map<string, number>();
  return inputs.map((input, index) => {
    let row: PriceRow;
    try {
      row = priceRow(input);
    } catch (error) {
      if (!(error instanceof PriceRowError)) throw error;
      throw new GatewayError("invalid_request", `rows[${index}].${error.field}: ${error.message}; nothing written.`, {
        field: `rows[${index}].${error.field}`,
        index,
      });
    }
    const earlier = seen.get(rowKey(row));
    if (earlier !== undefined) {
      throw new GatewayError(
        "invalid_request",
        `rows[${index}]: the same channel, route, prefix and effective_from as rows[${earlier}]; nothing written.`,
        { field: `rows[${index}]`, index },
      );
    }
    seen.set(rowKey(row), index);
    return row;
  });
}

function rowKey(row: PriceRow): string {
  return `${row.channel}|${row.route}|${row.prefix}|${row.effective_from ?? ""}`;
}

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
export async function replacePriceCard(store: Store, clock: Clock, name: string, rows: PriceRow[]): Promise<number> {
  const card = checkCardName(name);
  const now = clock.now().getTime();
  await store.transaction(async (trx) => {
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
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  return rows.length;
}

/** The version every cache compares: moved by every change of a card or of an account's card. */
export async function priceCardsVersion(db: Db): Promise<string> {
  const row = await db.selectFrom("settings").select("value").where("key", "=", VERSION_KEY).executeTakeFirst();
  return row?.value ?? "0";
}

async function bumpPriceVersion(trx: Db, now: number): Promise<void> {
  const value = `${now}-${Math.random().toString(36).slice(2, 10)}`;
  await trx
    .insertInto("settings")
    .values({ key: VERSION_KEY, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
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
    db
      .selectFrom("accounts")
      .select(["price_card", db.fn.countAll<number>().as("n")])
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
  return rows.map((r) => ({
    channel: r.channel as PriceChannel,
    route: r.route,
    prefix: r.prefix,
    price: Number(r.price),
    effective_from: r.effective_from === null ? null : Number(r.effective_from),
  }));
}

/** A row as the operator API and `prices show --json` answer it (credits, ISO time). */
export function describePriceRow(row: PriceRow) {
  return {
    channel: row.channel,
    route: row.route,
    prefix: row.prefix,
    price: fromMilli(row.price),
    effective_from: row.effective_from === null ? null : isoUtc(new Date(row.effective_from)),
  };
}

/** Sets the account's card (null or `default`: the built-in one); an unknown card is refused. */
export async function setAccountPriceCard(store: Store, clock: Clock, username: string, card: string | null) {
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
  });
  await store.signals.notify(PRICE_CARDS_CHANGED).catch(() => undefined);
  return name ?? DEFAULT_CARD;
}

/** The account's card name (`default` when it has none). */
export async function accountPriceCard(db: Db, accountId: number): Promise<string> {
  const row = await db.selectFrom("accounts").select("price_card").where("id", "=", accountId).executeTakeFirst();
  return row?.price_card ?? DEFAULT_CARD;
}
