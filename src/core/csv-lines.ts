// Reading CSV uploads line by line with exact line numbers (the DND import, contact uploads):
// the parser settings, the line a record starts on, and where a malformed record is.
import { type Parser, parse } from "csv-parse";

/**
 * A stray quote makes the parser read on to the next quote; this bounds the memory such a
 * "record" can take before the read stops with the line number.
 */
const MAX_RECORD_BYTES = 64 * 1024;
const UNCLOSED_QUOTE = new Set(["CSV_QUOTE_NOT_CLOSED", "CSV_MAX_RECORD_SIZE"]);

/** A parser for `,`, `;` or tab separated files, with a BOM or not, tolerant of ragged rows. */
export function csvLineParser(): Parser {
  return parse({
    bom: true,
    delimiter: [",", ";", "\t"],
    relax_column_count: true,
    relax_quotes: true,
    // Blank lines stay records: one record per line keeps the line count exact without the
    // parser's per-record info objects, which triple the parsing time.
    skip_empty_lines: false,
    max_record_size: MAX_RECORD_BYTES,
  });
}

function newlines(text: string): number {
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return count;
}

/** Line numbers of the records of a csvLineParser(), read in order. */
export class CsvLines {
  private line = 0;
  /** Line breaks inside quoted values read so far: the lines beyond one per record. */
  private spanned = 0;

  /** The line `record` starts on; a quoted value with line breaks moves later records down. */
  next(record: readonly string[]): number {
    this.line += 1;
    const start = this.line;
    for (const field of record) {
      if (!field.includes("\n")) continue;
      const extra = newlines(field);
      this.line += extra;
      this.spanned += extra;
    }
    return start;
  }

  /** For a parser error: the line of the record it could not read, and why; undefined for other errors. */
  malformed(error: unknown): { line: number; what: string } | undefined {
    const csv = error as { code?: unknown; records?: unknown; message?: string };
    if (typeof csv.code !== "string" || !csv.code.startsWith("CSV_")) return undefined;
    // The parser runs ahead of the reader; it counts the records it completed (one per line,
    // blank ones too), so the one it could not finish starts on the line after them.
    const line = typeof csv.records === "number" ? csv.records + 1 + this.spanned : this.line + 1;
    const what = UNCLOSED_QUOTE.has(csv.code) ? "a quote opens a value and is never closed" : String(csv.message);
    return { line, what };
  }
}
