// Reads contacts from a CSV stream one record at a time (an upload can have hundreds of
// thousands of lines), with the line number of each, as the DND import does.
import { CsvLines, guardedCsvParser } from "../../base/core/csv-lines.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ContactEntry } from "./contacts.js";

/** Header names (lower case, letters only) of the number column and of the name column. */
const NUMBER_HEADERS = new Set([
  "number",
  "mobile",
  "mobilenumber",
  "mobileno",
  "phone",
  "phonenumber",
  "phoneno",
  "msisdn",
  "contact",
  "contactnumber",
]);
const NAME_HEADERS = new Set(["name", "fullname", "contactname"]);

interface Columns {
  number: number;
  name: number | undefined;
}

/** Without a header the number is column 1 and the name column 2. */
const POSITIONAL: Columns = { number: 0, name: 1 };

/** The columns a header names; positional when it names no number column. */
function columnsOf(header: string[]): Columns {
  const names = header.map((field) => field.toLowerCase().replace(/[^a-z]/g, ""));
  const number = names.findIndex((name) => NUMBER_HEADERS.has(name));
  if (number === -1) return POSITIONAL;
  const name = names.findIndex((field) => NAME_HEADERS.has(field));
  return { number, name: name === -1 ? undefined : name };
}

/**
 * The contacts of a CSV body. Columns: number, then an optional name (other columns are
 * ignored). The first line is a header when it has no digit; a header names its columns
 * (`number`/`mobile`/`phone`…, `name`). A UTF-8 BOM, quotes, CRLF, `;` or tab separators and
 * blank lines are accepted. A body over `maxBytes` stops with `tooLarge()`; an unclosed quote
 * with 400 and its line. The source is never destroyed, so the request can still be answered.
 */
export async function* csvContacts(
  input: NodeJS.ReadableStream | string,
  options: { maxBytes: number; tooLarge: () => Error },
): AsyncGenerator<ContactEntry> {
  const { parser, close } = guardedCsvParser(input, options);
  const lines = new CsvLines();
  let columns: Columns | undefined;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      const start = lines.next(record);
      if (record.every((field) => field.trim() === "")) continue;
      if (!columns) {
        const isHeader = record.every((field) => !/\d/.test(field));
        columns = isHeader ? columnsOf(record) : POSITIONAL;
        if (isHeader) continue;
      }
      const value = (record[columns.number] ?? "").trim();
      const name = columns.name === undefined ? undefined : record[columns.name];
      yield { at: start, value, name };
    }
  } catch (error) {
    const malformed = lines.malformed(error);
    if (!malformed) throw error;
    throw new GatewayError("invalid_request", `The CSV is malformed at line ${malformed.line}: ${malformed.what}.`, {
      line: malformed.line,
    });
  } finally {
    close();
  }
}
