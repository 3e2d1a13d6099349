// Reading CSV uploads line by line with exact line numbers (the DND import, contact uploads):
// the parser settings, the line a record starts on, and where a malformed record is.
import { Readable, Transform, type TransformCallback } from "node:stream";
import { type Parser, parse } from "csv-parse";

/**
 * A stray quote makes the parser read on to the next quote; this bounds the memory such a
 * "record" can take before the read stops with the line number.
 */
const MAX_RECORD_BYTES = 64 * 1024;
const UNCLOSED_QUOTE = new Set(["CSV_QUOTE_NOT_CLOSED", "CSV_MAX_RECORD_SIZE"]);
/**
 * A line of these files is a number and a few columns. The parser's work grows with a line's
 * fields (a line of 10 MiB of commas took seconds of one event loop turn), so a longer line,
 * or one with more separators, stops the read before the parser sees it.
 */
export const MAX_LINE_BYTES = 16 * 1024;
export const MAX_FIELDS = 1_000;
const LF = 0x0a;
const SEPARATORS = new Set([0x2c, 0x3b, 0x09]);

/** A line the guard stopped: the parser's `code` convention, with the line number. */
export class CsvLineError extends Error {
  constructor(
    readonly code: "CSV_LINE_TOO_LONG" | "CSV_TOO_MANY_FIELDS",
    readonly line: number,
    readonly what: string,
  ) {
    super(what);
  }
}

/**
 * The parser works through what it is given in one turn of the event loop: a 64 KiB chunk of
 * short fields is ~60 ms of it. Slices of this size, one per turn, keep each turn short.
 */
const SLICE_BYTES = 8 * 1024;

/**
 * Passes bytes through in slices, one per turn of the event loop, counting each line's length
 * and separators (a few ns a byte).
 */
class CsvLineGuard extends Transform {
  private line = 1;
  private length = 0;
  private separators = 0;

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const problem = this.check(chunk);
    if (problem) {
      done(problem);
      return;
    }
    const pushFrom = (from: number) => {
      if (!this.destroyed) this.push(chunk.subarray(from, from + SLICE_BYTES));
      if (this.destroyed || from + SLICE_BYTES >= chunk.length) done();
      else setImmediate(pushFrom, from + SLICE_BYTES);
    };
    pushFrom(0);
  }

  private check(chunk: Buffer): CsvLineError | undefined {
    for (let at = 0; at < chunk.length; at++) {
      const byte = chunk[at] as number;
      if (byte === LF) {
        this.line += 1;
        this.length = 0;
        this.separators = 0;
        continue;
      }
      this.length += 1;
      if (SEPARATORS.has(byte)) this.separators += 1;
      if (this.length > MAX_LINE_BYTES) {
        return new CsvLineError("CSV_LINE_TOO_LONG", this.line, `the line is longer than ${MAX_LINE_BYTES} bytes`);
      }
      if (this.separators >= MAX_FIELDS) {
        return new CsvLineError("CSV_TOO_MANY_FIELDS", this.line, `the line has more than ${MAX_FIELDS} fields`);
      }
    }
    return undefined;
  }
}

/** The guard goes between the bytes and csvLineParser(): source → guard → parser. */
export function csvLineGuard(): Transform {
  return new CsvLineGuard();
}

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
    if (error instanceof CsvLineError) return { line: error.line, what: error.what };
    const csv = error as { code?: unknown; records?: unknown; message?: string };
    if (typeof csv.code !== "string" || !csv.code.startsWith("CSV_")) return undefined;
    // The parser runs ahead of the reader; it counts the records it completed (one per line,
    // blank ones too), so the one it could not finish starts on the line after them.
    const line = typeof csv.records === "number" ? csv.records + 1 + this.spanned : this.line + 1;
    const what = UNCLOSED_QUOTE.has(csv.code) ? "a quote opens a value and is never closed" : String(csv.message);
    return { line, what };
  }
}

/**
 * A csvLineParser() reading `input` through csvLineGuard(): source → guard → parser. A body over
 * `maxBytes` stops the parser with `tooLarge()`; a source that errs, or closes before its end (a
 * client gone, the request timeout), stops it with an error. Piped by hand rather than with
 * pipeline(), which destroys the source on an error: a line the guard stops would take the
 * request (and its answer) down with it. The source is never destroyed; `close()` (in a
 * `finally`) takes this off it and ends the guard and the parser.
 */
export function guardedCsvParser(
  input: NodeJS.ReadableStream | string,
  options: { maxBytes?: number | undefined; tooLarge?: (() => Error) | undefined },
): { parser: Parser; close: () => void } {
  const parser = csvLineParser();
  const guard = csvLineGuard();
  const source = typeof input === "string" ? Readable.from([input]) : input;
  const fail = (error: unknown) => parser.destroy(error instanceof Error ? error : new Error(String(error)));
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  let bytes = 0;
  let ended = false;
  const count = (chunk: Buffer | string) => {
    bytes += chunk.length;
    if (bytes > maxBytes) fail(options.tooLarge?.() ?? new Error("The CSV is too large."));
  };
  const end = () => {
    ended = true;
  };
  const closed = () => {
    if (!ended) fail(new Error("The CSV stream closed before its end."));
  };
  source.on("data", count);
  source.on("end", end);
  source.on("error", fail);
  source.on("close", closed);
  guard.on("error", fail);
  if ((source as Readable).destroyed) closed();
  else source.pipe(guard).pipe(parser);
  const close = () => {
    source.off("data", count);
    source.off("end", end);
    source.off("error", fail);
    source.off("close", closed);
    source.unpipe(guard);
    guard.destroy();
    parser.destroy();
  };
  return { parser, close };
}
