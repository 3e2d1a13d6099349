// The rows of a price card or a carrier's cost card (delivery/carriers/cost-cards.ts): checked one
// by one (an API body's, a bad one named by its index and field; price-csv.ts reads them from CSV);
// read back as stored; described in credits and ISO time. Only base/core: what the CLI's carriers
// group loads to read a cost card's file (test/app/cli/cli-bundle.test.ts bounds it), so no luxon.
import { isoUtc } from "../../base/core/clock.js";
import { CREDIT_DECIMALS, fromMilli, MAX_CREDITS, toMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";

export const PRICE_CHANNELS = ["sms", "voice"] as const;
export type PriceChannel = (typeof PRICE_CHANNELS)[number];
const ROUTES: Record<PriceChannel, readonly string[]> = { sms: ["T", "P", "PS", "I", "*"], voice: ["V", "*"] };
export const PRICE_CSV_HEADER = ["channel", "route", "prefix", "price", "effective_from"] as const;
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

/** Characters of a value a refusal quotes whole: a binary file's first "line" runs to megabytes. */
const QUOTED_MAX = 60;

/** A value as a refusal quotes it: whole, or its start and its length. */
export function quoted(value: unknown): string {
  const text = String(value ?? "");
  return text.length <= QUOTED_MAX ? `"${text}"` : `"${text.slice(0, QUOTED_MAX)}…", ${text.length} characters`;
}

/** Checks one row; throws PriceRowError naming the field. */
export function priceRow(input: PriceRowInput): PriceRow {
  const channel = String(input.channel ?? "")
    .trim()
    .toLowerCase();
  if (!PRICE_CHANNELS.includes(channel as PriceChannel)) {
    throw new PriceRowError("channel", `channel must be sms or voice (got ${quoted(input.channel)})`);
  }
  const route = String(input.route ?? "")
    .trim()
    .toUpperCase();
  const routes = ROUTES[channel as PriceChannel];
  if (!routes.includes(route)) {
    throw new PriceRowError(
      "route",
      `route of a ${channel} row must be one of ${routes.join(", ")} (got ${quoted(input.route)})`,
    );
  }
  const prefix = String(input.prefix ?? "")
    .trim()
    .replace(/^\+/, "");
  if (prefix !== "*" && !PREFIX.test(prefix)) {
    throw new PriceRowError(
      "prefix",
      `prefix must be 1 to 15 digits with the country code, or * (got ${quoted(input.prefix)})`,
    );
  }
  // Numbers are priced in international form (919876543210): a trunk or dialling prefix (0, 00)
  // never matches one, and no country code starts with 0.
  if (prefix.startsWith("0")) {
    const international = prefix.replace(/^0+/, "");
    throw new PriceRowError(
      "prefix",
      `prefix must start with the country code, never with 0 (got ${quoted(input.prefix)}${international ? `: write ${international}` : ""})`,
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
    throw new PriceRowError("price", `price must be a number of credits, at least 0 (got ${quoted(raw)})`);
  }
  const credits = Number(text);
  try {
    return toMilli(credits);
  } catch {
    // Said of the column, with the value as written (toMilli's own words name neither, and echo
    // the number read: 99999999999999999 as 100000000000000000).
    const reason =
      !Number.isFinite(credits) || credits > MAX_CREDITS
        ? `at most ${MAX_CREDITS} credits`
        : `a number of credits with at most ${CREDIT_DECIMALS} decimals (0.001 is the smallest step the ledger keeps)`;
    throw new PriceRowError("price", `price must be ${reason} (got ${quoted(text)})`);
  }
}

/** A date (midnight UTC) or a date-time; without an offset, UTC. */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(Z|([+-])(\d{2}):?(\d{2}))?)?$/;

function effectiveFrom(raw: unknown): number | null {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return null;
  const at = typeof raw === "string" ? isoInstant(raw.trim()) : undefined;
  if (at === undefined) {
    throw new PriceRowError(
      "effective_from",
      `effective_from must be an ISO 8601 date or date-time (got ${quoted(raw)})`,
    );
  }
  return at;
}

/** Milliseconds of an ISO 8601 date or date-time (no offset: UTC), or undefined when it is none. */
export function isoInstant(text: string): number | undefined {
  const match = ISO_INSTANT.exec(text);
  if (!match) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as number[];
  const ms = Number((match[7] ?? "").padEnd(3, "0"));
  const [sign, offsetHours, offsetMinutes] = [match[9], Number(match[10] ?? 0), Number(match[11] ?? 0)];
  if (hour! > 23 || minute! > 59 || second! > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const local = Date.UTC(year!, month! - 1, day!, hour, minute, second, ms);
  // Date.UTC rolls 31 February over into March: a day it moved is not a day.
  const date = new Date(local);
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month! - 1 || date.getUTCDate() !== day)
    return undefined;
  const offset = (sign === "-" ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  return local - offset;
}

/** A reason as a clause before "; nothing …": without its own full stop (toMilli's sentences end in one). */
export const reasonClause = (reason: string) => reason.replace(/\.$/, "");

/** A card's rows from the operator API's body; a bad row throws invalid_request naming its index and field. */
export function priceRowsOf(inputs: PriceRowInput[]): PriceRow[] {
  const rows: PriceRow[] = [];
  for (const _ of checkRows(inputs, rows));
  return rows;
}

/** priceRowsOf with a turn of the event loop every ROWS_PER_TURN rows (a large upload on the API's thread). */
export async function priceRowsInTurns(inputs: PriceRowInput[]): Promise<PriceRow[]> {
  const rows: PriceRow[] = [];
  for (const _ of checkRows(inputs, rows)) await new Promise<void>((resolve) => setImmediate(resolve));
  return rows;
}

/** Rows checked between two turns of priceRowsInTurns and priceCardChangeInTurns. */
export const ROWS_PER_TURN = 5_000;

function* checkRows(inputs: PriceRowInput[], rows: PriceRow[]): Generator<void> {
  if (inputs.length > MAX_CARD_ROWS) {
    throw new GatewayError("invalid_request", `A card has at most ${MAX_CARD_ROWS} rows (got ${inputs.length}).`);
  }
  const seen = new Map<string, number>();
  for (const [index, input] of inputs.entries()) {
    if (index > 0 && index % ROWS_PER_TURN === 0) yield;
    let row: PriceRow;
    try {
      row = priceRow(input);
    } catch (error) {
      if (!(error instanceof PriceRowError)) throw error;
      throw new GatewayError(
        "invalid_request",
        `rows[${index}].${error.field}: ${reasonClause(error.message)}; nothing written.`,
        {
          field: `rows[${index}].${error.field}`,
          index,
        },
      );
    }
    const earlier = seen.get(priceRowKey(row));
    if (earlier !== undefined) {
      throw new GatewayError(
        "invalid_request",
        `rows[${index}]: the same channel, route, prefix and effective_from as rows[${earlier}]; nothing written.`,
        { field: `rows[${index}]`, index },
      );
    }
    seen.set(priceRowKey(row), index);
    rows.push(row);
  }
}

/** What two rows of a card may not share: channel, route, prefix and effective_from. */
export function priceRowKey(row: PriceRow): string {
  return `${row.channel}|${row.route}|${row.prefix}|${row.effective_from ?? ""}`;
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

/** A row as the store gives it back (PostgreSQL's bigints as strings). */
export function storedPriceRow(row: {
  channel: string;
  route: string;
  prefix: string;
  price: number | string;
  effective_from: number | string | null;
}): PriceRow {
  return {
    channel: row.channel as PriceChannel,
    route: row.route,
    prefix: row.prefix,
    price: Number(row.price),
    effective_from: row.effective_from === null ? null : Number(row.effective_from),
  };
}

/** Up to `chunk` stored rows of one generation of a card, by place, after the place `after` (-1: from the first). */
export function generationChunk(db: Db, card: string, generation: number, after: number, chunk: number) {
  return db
    .selectFrom("price_card_rows")
    .select(["position", "channel", "route", "prefix", "price", "effective_from"])
    .where("card", "=", card)
    .where("generation", "=", generation)
    .where("position", ">", after)
    .orderBy("position")
    .limit(chunk)
    .execute();
}
