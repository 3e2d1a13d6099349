// A card's rows from CSV: the file `prices import` reads and the operator API's text/csv body, one
// parser for both. The header channel,route,prefix,price[,effective_from], then a row a line, each
// checked by price-rows.ts; a bad line refuses the whole file, named by its line. Read in one piece
// (the CLI), or a slice per turn of the event loop (the API's thread: csv-parse with line numbers
// takes about 1.5 s for 200,000 lines).
import { Readable } from "node:stream";
import { parse as parseStream } from "csv-parse";
import { type CsvError, parse } from "csv-parse/sync";
import { GatewayError } from "../../base/core/errors.js";
import {
  MAX_CARD_ROWS,
  PRICE_CSV_HEADER,
  type PriceRow,
  PriceRowError,
  priceRow,
  priceRowKey,
  quoted,
  reasonClause,
} from "./price-rows.js";

/** How the file is read, whole or in slices: a BOM, quotes, blank lines and spaces around values are accepted. */
const CSV_OPTIONS = { info: true, skip_empty_lines: true, trim: true, relax_column_count: true, bom: true } as const;
/** Bytes parsed per turn of the event loop: a few milliseconds of csv-parse. */
const SLICE_BYTES = 8 * 1024;

interface CsvRecord {
  record: string[];
  info: { lines: number };
}

/** A card's rows from CSV text; a bad line throws invalid_request with its line number and reason. */
export function parsePriceCsv(text: string): PriceRow[] {
  const file = new PriceCsvLines();
  let records: CsvRecord[];
  try {
    records = parse(text, CSV_OPTIONS) as unknown as CsvRecord[];
  } catch (error) {
    throw malformed(error, text);
  }
  for (const record of records) file.add(record);
  return file.rows();
}

/** parsePriceCsv a slice of the text per turn of the event loop: the same rows, the same refusals. */
export async function parsePriceCsvInTurns(text: string): Promise<PriceRow[]> {
  const file = new PriceCsvLines();
  const source = Readable.from(slicesInTurns(Buffer.from(text)), { objectMode: false });
  try {
    for await (const record of source.pipe(parseStream(CSV_OPTIONS))) file.add(record as CsvRecord);
  } catch (error) {
    throw error instanceof GatewayError ? error : malformed(error, text);
  } finally {
    source.destroy();
  }
  return file.rows();
}

async function* slicesInTurns(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let at = 0; at < bytes.length; at += SLICE_BYTES) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    yield bytes.subarray(at, at + SLICE_BYTES);
  }
}

/**
 * What csv-parse could not read, in words, at the line to fix: a quote never closed is named by
 * the line it opens on (csv-parse names the file's last line, thousands of lines on).
 */
function malformed(error: unknown, text: string): GatewayError {
  const csv = error as CsvError & { lines?: number };
  let line = csv.lines;
  let reason: string;
  switch (csv.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      line = unclosedQuoteLine(text) ?? line;
      reason = 'a value opens a quote (") that is never closed';
      break;
    case "CSV_INVALID_CLOSING_QUOTE":
      reason = 'a quoted value goes on after its closing quote (a quote inside a quoted value is written twice: "")';
      break;
    case "INVALID_OPENING_QUOTE":
      reason =
        'a quote (") inside a value that does not start with one (quote the whole value, and write the quote twice: "")';
      break;
    default:
      reason = csv.message;
  }
  return new GatewayError("invalid_request", `Line ${line ?? "?"}: ${reason}; nothing imported.`, { line });
}

/** The line of the quote still open at the end of the text (a doubled quote inside one closes and reopens it). */
function unclosedQuoteLine(text: string): number | undefined {
  let line = 1;
  let openedAt: number | undefined;
  for (let at = 0; at < text.length; at++) {
    const char = text[at];
    if (char === '"') openedAt = openedAt === undefined ? line : undefined;
    else if (char === "\n" || (char === "\r" && text[at + 1] !== "\n")) line++;
  }
  return openedAt;
}

/** The records of one file in order: the header, then each line checked into a row. */
class PriceCsvLines {
  private header: string[] | undefined;
  private readonly checked: PriceRow[] = [];
  /** Each row's key and the line it came from: a second line with the same key is refused. */
  private readonly seen = new Map<string, number>();

  add({ record, info }: CsvRecord): void {
    if (this.header === undefined) {
      this.header = checkedHeader(record, info.lines);
      return;
    }
    const at = (reason: string, field?: string) =>
      new GatewayError("invalid_request", `Line ${info.lines}: ${reasonClause(reason)}; nothing imported.`, {
        line: info.lines,
        ...(field ? { field } : {}),
      });
    if (this.checked.length === MAX_CARD_ROWS) throw at(`a card has at most ${MAX_CARD_ROWS} rows`);
    if (record.length !== this.header.length) {
      throw at(`${record.length} fields where the header has ${this.header.length}`);
    }
    const [channel, route, prefix, price, effective] = record;
    let row: PriceRow;
    try {
      row = priceRow({ channel, route, prefix, price, effective_from: effective });
    } catch (error) {
      if (error instanceof PriceRowError) throw at(error.message, error.field);
      throw error;
    }
    const key = priceRowKey(row);
    const earlier = this.seen.get(key);
    if (earlier !== undefined) throw at(`the same channel, route, prefix and effective_from as line ${earlier}`);
    this.seen.set(key, info.lines);
    this.checked.push(row);
  }

  /** The rows read; a file without even its header is refused for it. */
  rows(): PriceRow[] {
    if (this.header === undefined) checkedHeader([], 1);
    return this.checked;
  }
}

function checkedHeader(record: string[], line: number): string[] {
  const header = record.map((h) => h.toLowerCase());
  const expected = PRICE_CSV_HEADER.slice(0, header.length);
  if (header.length < 4 || header.length > 5 || header.some((h, i) => h !== expected[i])) {
    // A spreadsheet set to another locale saves its "CSV" with semicolons (or tabs): say so.
    const separator = header.length === 1 ? [";", "\t"].find((s) => header[0]!.includes(s)) : undefined;
    // An .xlsx workbook is a ZIP file: "PK", 3, 4 (lower-cased with the header).
    const hint = header[0]?.startsWith("pk\u0003\u0004")
      ? "; this is an Excel workbook or a ZIP file, not CSV: save the sheet as CSV"
      : separator
        ? `; the file is separated by ${separator === ";" ? "semicolons" : "tabs"}, save it with commas`
        : "";
    throw new GatewayError(
      "invalid_request",
      `Line ${line}: the header must be channel,route,prefix,price[,effective_from] (got ${quoted(header.join(","))})${hint}`,
      { line },
    );
  }
  return header;
}
