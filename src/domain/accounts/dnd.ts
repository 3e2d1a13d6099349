// The DND (do-not-disturb) registry: Indian mobile numbers that promotional routes must not
// reach. Operators import it as CSV, often tens of millions of lines, so the import streams into
// a staging file and then writes it whole, one batch of numbers in memory at a time; a lookup is
// one primary-key probe. Each call that
// changes it is one audit entry (`dnd.add`, `dnd.remove`, `dnd.import`) naming how many numbers
// and the first DND_NUMBERS_NAMED of them (decision 0157).
import { sql } from "kysely";
import { CsvLines, guardedCsvParser } from "../../base/core/csv-lines.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { fileStaging } from "../../base/core/staging.js";
import type { Engine } from "../../base/store/engine.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { DND_SWAP_FROM, registryOf, swapInImport } from "./dnd-swap.js";

export { dropStoppedImports } from "./dnd-swap.js";

/** Numbers written per statement of an import's one transaction, and of an add or remove. */
export const DND_BATCH = 5_000;
/** Invalid lines listed in an import's answer; the rest are only counted. */
export const MAX_REPORTED_INVALID = 1_000;
/** A longer line is not a phone number: cut it in the report. */
const MAX_REPORTED_VALUE = 64;
/** Numbers an audit entry names; the rest are only counted. */
export const DND_NUMBERS_NAMED = 20;
const DND_TARGET = "DND registry";

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

/** What an import wrote; `replaced`: what a `replace` import emptied, when it held any. */
interface ImportTotals {
  added: number;
  duplicates: number;
  numbers: string[];
  replaced?: { count: number; numbers: string[] };
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

/**
 * Inserts numbers, skipping those already there; answers how many were new and, while fewer than
 * `naming` are wanted, which (in the order given).
 */
async function insertKeys(trx: Db, engine: Engine, keys: number[], naming: number, table = "dnd_numbers") {
  // One statement with one parameter per batch, whatever its size: SQLite reads a JSON array,
  // PostgreSQL an int8 array. Both engines cache one plan instead of one per batch length.
  const into = sql.table(table);
  const rows =
    engine === "sqlite"
      ? sql`insert into ${into} (number) select value from json_each(${JSON.stringify(keys)}) where true on conflict do nothing`
      : sql`insert into ${into} (number) select unnest(${keys}::bigint[]) on conflict do nothing`;
  if (naming <= 0) return { added: Number((await rows.execute(trx)).numAffectedRows ?? 0), named: [] };
  const returned = await sql<{ number: number | string }>`${rows} returning number`.execute(trx);
  return { added: returned.rows.length, named: inOrder(keys, returned.rows, naming) };
}

/** The first `naming` of `keys` that `rows` hold, in the order of `keys`, as the registry reports them. */
function inOrder(keys: readonly number[], rows: readonly { number: number | string }[], naming: number): string[] {
  const hit = new Set(rows.map((row) => Number(row.number)));
  return keys
    .filter((key) => hit.has(key))
    .slice(0, naming)
    .map(String);
}

/** Empties the registry; answers what it held, as the audit entry names it. */
async function clearRegistry(trx: Db, engine: Engine) {
  const held = await registryOf(trx, DND_NUMBERS_NAMED);
  // TRUNCATE frees a large PostgreSQL table at once; SQLite's unqualified DELETE is its truncate.
  if (engine === "postgres") await sql`truncate dnd_numbers`.execute(trx);
  else await trx.deleteFrom("dnd_numbers").execute();
  return held;
}

/** Adds numbers in one transaction with its audit entry (none when every number was there already). */
export async function addDnd(
  store: Store,
  who: Audited,
  mobiles: readonly string[],
): Promise<{ added: number; duplicates: number }> {
  const keys = dndKeys(mobiles);
  const added = await store.transaction(async (trx) => {
    let added = 0;
    const named: string[] = [];
    for (let i = 0; i < keys.length; i += DND_BATCH) {
      const batch = await insertKeys(trx, store.engine, keys.slice(i, i + DND_BATCH), DND_NUMBERS_NAMED - named.length);
      added += batch.added;
      named.push(...batch.named);
    }
    if (added > 0) {
      await recordChange(trx, who, {
        action: "dnd.add",
        target: DND_TARGET,
        accountId: null,
        after: { added, numbers: named },
      });
    }
    return added;
  });
  return { added, duplicates: keys.length - added };
}

/** Removes numbers from the registry with its audit entry (none when no number was in it); answers how many were in it. */
export async function removeDnd(store: Store, who: Audited, mobiles: string[]): Promise<number> {
  const keys = dndKeys(mobiles);
  return store.transaction(async (trx) => {
    let removed = 0;
    const named: string[] = [];
    for (let i = 0; i < keys.length; i += DND_BATCH) {
      const batch = keys.slice(i, i + DND_BATCH);
      const rows = await trx.deleteFrom("dnd_numbers").where("number", "in", batch).returning("number").execute();
      removed += rows.length;
      named.push(...inOrder(batch, rows, DND_NUMBERS_NAMED - named.length));
    }
    if (removed > 0) {
      await recordChange(trx, who, {
        action: "dnd.remove",
        target: DND_TARGET,
        accountId: null,
        before: { removed, numbers: named },
      });
    }
    return removed;
  });
}

/** A refusal of the file (malformed, too large, cut off): nothing was written, and the answer says so. */
function nothingAdded(error: unknown): unknown {
  if (!(error instanceof GatewayError) || error.httpStatus >= 500) return error;
  return new GatewayError(error.code, `${error.message} No number was added.`, { ...error.details, added: 0 });
}

/**
 * Imports CSV whose first column is a mobile number (`9876543210`, `+91…`, `91…`, `0…`; other
 * columns are ignored), whole or not at all. `input` is a stream of the file, or its whole text.
 * A first line without digits is taken as a header; blank lines are skipped. The file is read to
 * its end first, its numbers into a staging file (never held in memory); only then are they
 * written, in one transaction (DND_BATCH a statement) with the audit entry (`dnd.import`, none
 * when nothing changed); `replace` empties the registry in that transaction. A file that fails
 * part-way (an unclosed quote, a line too long, over `maxBytes`, a client that stalls or hangs
 * up) writes nothing, and its error says so (`added: 0`).
 */
export async function importDnd(
  store: Store,
  who: Audited,
  input: NodeJS.ReadableStream | string,
  options: { replace?: boolean; maxBytes?: number; tooLarge?: () => Error } = {},
): Promise<DndImportResult> {
  const result: DndImportResult = { added: 0, duplicates: 0, invalid: [], invalidCount: 0 };
  const replace = options.replace === true;
  const staging = await fileStaging();
  try {
    let staged = 0;
    try {
      for await (const entry of dndLines(input, options)) {
        const mobile = normalizeIndianMobile(entry.value);
        if (mobile) {
          staged += 1;
          const wait = staging.add({ at: entry.at, number: mobile, name: null });
          if (wait) await wait;
        } else if (!(entry.first && /^[^\d]+$/.test(entry.value))) {
          result.invalidCount += 1;
          if (result.invalid.length < MAX_REPORTED_INVALID) {
            result.invalid.push({ line: entry.at, value: entry.value.slice(0, MAX_REPORTED_VALUE) });
          }
        }
      }
    } catch (error) {
      throw nothingAdded(error);
    }
    if (staged === 0 && !replace) return result;
    const audit = (trx: Db, written: ImportTotals) =>
      recordChange(trx, who, {
        action: "dnd.import",
        target: DND_TARGET,
        accountId: null,
        ...(written.replaced ? { before: written.replaced } : {}),
        after: {
          replace,
          added: written.added,
          duplicates: written.duplicates,
          invalid: result.invalidCount,
          numbers: written.numbers,
        },
      });
    /** Writes the staged numbers, each batch through `batch` (a transaction of its own, or the one the import is). */
    const writeStaged = async (batch: <T>(write: (trx: Db) => Promise<T>) => Promise<T>, table?: string) => {
      const written: ImportTotals = { added: 0, duplicates: 0, numbers: [] };
      for await (const chunk of staging.chunks(DND_BATCH)) {
        const keys = chunk.map((entry) => Number(entry.number));
        const naming = DND_NUMBERS_NAMED - written.numbers.length;
        const inserted = await batch((trx) => insertKeys(trx, store.engine, keys, naming, table));
        written.added += inserted.added;
        written.duplicates += keys.length - inserted.added;
        written.numbers.push(...inserted.named);
      }
      return written;
    };
    const totals =
      store.engine === "sqlite" && staged >= DND_SWAP_FROM
        ? await swapInImport(
            store,
            { replace, named: DND_NUMBERS_NAMED },
            (writer) => writeStaged(writer.batch, writer.table),
            async (trx, written, replaced) => {
              if (replaced && replaced.count > 0) written.replaced = replaced;
              if (written.added > 0 || written.replaced) await audit(trx, written);
            },
          )
        : await store.transaction(async (trx) => {
            const emptied = replace ? await clearRegistry(trx, store.engine) : undefined;
            const written = await writeStaged((write) => write(trx));
            if (emptied && emptied.count > 0) written.replaced = emptied;
            if (written.added > 0 || written.replaced) await audit(trx, written);
            return written;
          });
    result.added = totals.added;
    result.duplicates = totals.duplicates;
    return result;
  } finally {
    await staging.discard();
  }
}

/**
 * The first field of each record of a CSV, with its line and whether it is the file's first
 * record (blank lines skipped). A body over `maxBytes` stops with `tooLarge()`, an unclosed quote
 * or a line too long with 400 and its line, a stream that closes before its end with an error.
 * The source is never destroyed, so the request can still be answered.
 */
async function* dndLines(
  input: NodeJS.ReadableStream | string,
  options: { maxBytes?: number; tooLarge?: () => Error },
): AsyncGenerator<{ at: number; value: string; first: boolean }> {
  const { parser, close } = guardedCsvParser(input, options);
  const lines = new CsvLines();
  let first = true;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const at = lines.next(record);
      const value = (record[0] ?? "").trim();
      if (value === "" && record.every((field) => field.trim() === "")) continue;
      yield { at, value, first };
      first = false;
    }
  } catch (error) {
    const malformed = lines.malformed(error);
    if (!malformed) throw error;
    throw new GatewayError(
      "invalid_request",
      `The CSV is malformed at line ${malformed.line}: ${malformed.what}; fix the line and import the file again.`,
      { line: malformed.line },
    );
  } finally {
    close();
  }
}
