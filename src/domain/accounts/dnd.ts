// The DND (do-not-disturb) registry: Indian mobile numbers that promotional routes must not
// reach. Operators import it as CSV, often tens of millions of lines, so the import streams:
// it holds one batch of numbers at a time, and a lookup is one primary-key probe.
import { Readable } from "node:stream";
import { sql } from "kysely";
import { CsvLines, csvLineGuard, csvLineParser } from "../../base/core/csv-lines.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import type { Engine } from "../../base/store/engine.js";
import type { Db, Store } from "../../base/store/store.js";

/** Numbers written per transaction: large enough to amortise a commit, small enough not to stall other writers. */
export const DND_BATCH = 5_000;
/** Invalid lines listed in an import's answer; the rest are only counted. */
export const MAX_REPORTED_INVALID = 1_000;
/** A longer line is not a phone number: cut it in the report. */
const MAX_REPORTED_VALUE = 64;

export interface DndImportResult {
  added: number;
  /** Numbers already in the registry, or repeated in the file. */
  duplicates: number;
  /** The first MAX_REPORTED_INVALID invalid lines, by line number (1 = first line of the file). */
  invalid: { line: number; value: string }[];
  /** Every invalid line, including those beyond the list. */
  invalidCount: number;
}

export async function isDnd(db: Db, mobile: string): Promise<boolean> {
  if (!/^\d{10}$/.test(mobile)) return false;
  const row = await db
    .selectFrom("dnd_numbers")
    .select("number")
    .where("number", "=", Number(mobile))
    .executeTakeFirst();
  return row !== undefined;
}

/** Which of these 10-digit numbers are on the DND registry (one indexed query per 500). */
export async function dndListed(db: Db, mobiles: string[]): Promise<Set<string>> {
  const listed = new Set<string>();
  const unique = [...new Set(mobiles)];
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db
      .selectFrom("dnd_numbers")
      .select("number")
      .where(
        "number",
        "in",
        unique.slice(i, i + 500).map((m) => Number(m)),
      )
      .execute();
    for (const row of rows) listed.add(String(row.number));
  }
  return listed;
}

export async function dndCount(db: Db): Promise<number> {
  const row = await db
    .selectFrom("dnd_numbers")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** A number as the registry reports it (the bare 10 digits); refuses anything else. */
export function parseDndNumber(raw: string): string {
  const mobile = normalizeIndianMobile(raw);
  if (!mobile) {
    throw new GatewayError(
      "invalid_request",
      `"${raw.slice(0, MAX_REPORTED_VALUE)}" is not a 10-digit Indian mobile number.`,
    );
  }
  return mobile;
}

/** Numbers as the registry keys them; refuses the whole list when any is not an Indian mobile number. */
export function dndKeys(mobiles: readonly string[]): number[] {
  const keys: number[] = [];
  const invalid: string[] = [];
  for (const raw of mobiles) {
    const mobile = typeof raw === "string" ? normalizeIndianMobile(raw) : undefined;
    if (mobile) keys.push(Number(mobile));
    else invalid.push(String(raw).slice(0, MAX_REPORTED_VALUE));
  }
  if (invalid.length > 0) {
    throw new GatewayError(
      "invalid_request",
      `Not a 10-digit Indian mobile number: ${invalid.slice(0, 5).join(", ")}${invalid.length > 5 ? ", …" : ""}.`,
      { invalid: invalid.slice(0, MAX_REPORTED_INVALID) },
    );
  }
  return keys;
}

/** Inserts numbers, skipping those already there; answers how many were new. */
async function insertKeys(trx: Db, engine: Engine, keys: number[]): Promise<number> {
  // One statement with one parameter per batch, whatever its size: SQLite reads a JSON array,
  // PostgreSQL an int8 array. Both engines cache one plan instead of one per batch length.
  const result =
    engine === "sqlite"
      ? await sql`insert into dnd_numbers (number) select value from json_each(${JSON.stringify(keys)}) where true on conflict do nothing`.execute(
          trx,
        )
      : await sql`insert into dnd_numbers (number) select unnest(${keys}::bigint[]) on conflict do nothing`.execute(
          trx,
        );
  return Number(result.numAffectedRows ?? 0);
}

async function clearRegistry(trx: Db, engine: Engine): Promise<void> {
  // TRUNCATE frees a large PostgreSQL table at once; SQLite's unqualified DELETE is its truncate.
  if (engine === "postgres") await sql`truncate dnd_numbers`.execute(trx);
  else await trx.deleteFrom("dnd_numbers").execute();
}

export async function addDnd(store: Store, mobiles: readonly string[]): Promise<{ added: number; duplicates: number }> {
  const keys = dndKeys(mobiles);
  let added = 0;
  for (let i = 0; i < keys.length; i += DND_BATCH) {
    const chunk = keys.slice(i, i + DND_BATCH);
    added += await store.transaction((trx) => insertKeys(trx, store.engine, chunk));
  }
  return { added, duplicates: keys.length - added };
}

/** Removes numbers from the registry; answers how many were in it. */
export async function removeDnd(db: Db, mobiles: string[]): Promise<number> {
  const keys = dndKeys(mobiles);
  let removed = 0;
  for (let i = 0; i < keys.length; i += DND_BATCH) {
    const result = await db
      .deleteFrom("dnd_numbers")
      .where("number", "in", keys.slice(i, i + DND_BATCH))
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}

/**
 * Imports CSV whose first column is a mobile number (`9876543210`, `+91…`, `91…`, `0…`; other
 * columns are ignored). `input` is a stream of the file, or its whole text. A first line
 * without digits is taken as a header; blank lines are skipped. `replace` empties the registry
 * in the transaction of the first batch. Batches already written stay when the import stops
 * on a malformed line (an unclosed quote): import the corrected file again, since numbers
 * already there count as duplicates.
 */
export async function importDnd(
  store: Store,
  input: NodeJS.ReadableStream | string,
  options: { replace?: boolean } = {},
): Promise<DndImportResult> {
  const result: DndImportResult = { added: 0, duplicates: 0, invalid: [], invalidCount: 0 };
  let pendingClear = options.replace === true;
  let batch: number[] = [];

  const flush = async () => {
    const keys = batch;
    const clear = pendingClear;
    batch = [];
    pendingClear = false;
    const added = await store.transaction(async (trx) => {
      if (clear) await clearRegistry(trx, store.engine);
      return keys.length > 0 ? insertKeys(trx, store.engine, keys) : 0;
    });
    result.added += added;
    result.duplicates += keys.length - added;
  };

  const parser = csvLineParser();
  const lines = new CsvLines();
  let seenRecord = false;
  const source = typeof input === "string" ? Readable.from([input]) : input;
  // Piped by hand rather than with pipeline(), which destroys the source on an error: a line
  // the guard stops would take the request (and its answer) down with it.
  const guard = csvLineGuard();
  const fail = (error: unknown) => parser.destroy(error instanceof Error ? error : new Error(String(error)));
  source.on("error", fail);
  guard.on("error", fail);
  source.pipe(guard).pipe(parser);
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const start = lines.next(record);
      const value = (record[0] ?? "").trim();
      if (value === "" && record.every((field) => field.trim() === "")) continue;
      const mobile = normalizeIndianMobile(value);
      const first = !seenRecord;
      seenRecord = true;
      if (mobile) {
        batch.push(Number(mobile));
        if (batch.length >= DND_BATCH) await flush();
      } else if (!(first && /^[^\d]+$/.test(value))) {
        result.invalidCount += 1;
        if (result.invalid.length < MAX_REPORTED_INVALID) {
          result.invalid.push({ line: start, value: value.slice(0, MAX_REPORTED_VALUE) });
        }
      }
    }
  } catch (error) {
    const malformed = lines.malformed(error);
    if (!malformed) throw error;
    throw new GatewayError(
      "invalid_request",
      `The CSV is malformed at line ${malformed.line}: ${malformed.what}. ${result.added} numbers were added before the import ` +
        "stopped; fix the line and import the file again (numbers already there count as duplicates).",
    );
  } finally {
    source.off("error", fail);
    source.unpipe(guard);
    guard.destroy();
    parser.destroy();
  }
  if (batch.length > 0 || pendingClear) await flush();
  return result;
}
