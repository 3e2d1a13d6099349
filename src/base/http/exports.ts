// Downloads of long lists (messages, ledger entries) as CSV or JSON Lines, streamed: rows are
// read a page at a time and written as the client takes them, so a million rows cost the
// memory of a page. CSV is RFC 4180 with a header row (csv-stringify); a text cell that a
// spreadsheet would read as a formula (starting with =, +, -, @, a tab or a carriage return) is
// written behind an apostrophe (OWASP's CSV injection advice), while numbers, negative ledger
// amounts among them, stay numbers.
import { Readable } from "node:stream";
import { stringify as stringifySync } from "csv-stringify/sync";
import type { FastifyReply } from "fastify";
import { GatewayError } from "../core/errors.js";

export const EXPORT_FORMATS = ["csv", "jsonl"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** An export's success answer in a route schema (and the OpenAPI document): a CSV or JSON Lines file. */
export function exportAnswer(description: string) {
  const file = { type: "string", description };
  return {
    description,
    content: { "text/csv": { schema: file }, "application/x-ndjson": { schema: file } },
  };
}

/** The `format` query parameter of an export; CSV when left out. */
export function exportFormatOf(value: string | undefined): ExportFormat {
  const format = (value?.trim() || "csv").toLowerCase();
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
    throw new GatewayError("invalid_request", `Query parameter "format" takes csv or jsonl (got "${value}").`, {
      field: "format",
    });
  }
  return format as ExportFormat;
}

// OWASP's CSV injection list: a cell a spreadsheet may run begins with = + - @, a tab, CR or LF.
const FORMULA_START = /^[=+\-@\t\r\n]/;
/** Rows written to the client in one piece: fewer, larger writes than one a row. */
const CHUNK_ROWS = 200;

/** A text cell as a spreadsheet will take it as text, never as a formula. */
export function spreadsheetText(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/**
 * `rows` written as CSV (each read into `columns`; a missing field is an empty cell) or JSON
 * Lines (each row whole), as a stream that reads a row when its reader wants more.
 */
/** A CSV column: a field of the row by name, or a value read from it (a nested field). */
export type ExportColumn = string | { name: string; value: (row: Record<string, unknown>) => unknown };

export function exportStream(
  format: ExportFormat,
  columns: readonly ExportColumn[],
  rows: AsyncIterable<Record<string, unknown>>,
): Readable {
  return Readable.from(format === "jsonl" ? jsonLines(rows) : csvLines(columns, rows), { objectMode: false });
}

const CSV_OPTIONS = {
  cast: {
    string: spreadsheetText,
    boolean: (value: boolean) => (value ? "true" : "false"),
    object: (value: object) => JSON.stringify(value),
  },
};

/** The header row, then the rows, a chunk of up to CHUNK_ROWS at a time (one string each). */
async function* csvLines(columns: readonly ExportColumn[], rows: AsyncIterable<Record<string, unknown>>) {
  yield stringifySync([columns.map((column) => (typeof column === "string" ? column : column.name))]);
  // Read by column, not by copying the row into a flat one: spreading a row of some twenty
  // fields made objects V8 keeps large, and a million of them grew the process by 100 MB.
  const readers = columns.map((column) =>
    typeof column === "string" ? (row: Record<string, unknown>) => row[column] : column.value,
  );
  let chunk: unknown[][] = [];
  for await (const row of rows) {
    chunk.push(readers.map((read) => read(row) ?? null));
    if (chunk.length === CHUNK_ROWS) {
      yield stringifySync(chunk, CSV_OPTIONS);
      chunk = [];
    }
  }
  if (chunk.length > 0) yield stringifySync(chunk, CSV_OPTIONS);
}

/** Sends `rows` as a download named `name`.csv or `name`.jsonl (exportStream). */
export function sendExport(
  reply: FastifyReply,
  format: ExportFormat,
  name: string,
  columns: readonly ExportColumn[],
  rows: AsyncIterable<Record<string, unknown>>,
): FastifyReply {
  reply.header("content-disposition", `attachment; filename="${name}.${format}"`);
  reply.header("cache-control", "no-store");
  reply.type(format === "jsonl" ? "application/x-ndjson; charset=utf-8" : "text/csv; charset=utf-8");
  return reply.send(exportStream(format, columns, rows));
}

async function* jsonLines(rows: AsyncIterable<Record<string, unknown>>): AsyncGenerator<string> {
  let chunk = "";
  let count = 0;
  for await (const row of rows) {
    chunk += `${JSON.stringify(row)}\n`;
    if (++count === CHUNK_ROWS) {
      yield chunk;
      chunk = "";
      count = 0;
    }
  }
  if (chunk !== "") yield chunk;
}
