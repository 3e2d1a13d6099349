// Export buttons: links to an export route (GET, the session cookie) with the page's filters,
// which the gateway answers as an attachment (Content-Disposition), so the browser downloads the
// file itself, streamed, whatever its size: CSV with a header row, or JSON Lines.
import { withQuery } from "./api.js";

type Filters = Record<string, string | number | undefined | null>;

/** The address of an export in `format` with `filters` (empty ones left out). */
export function exportHref(path: string, format: "csv" | "jsonl", filters: Filters = {}): string {
  return withQuery(path, { ...filters, format });
}

/** "<what>: CSV, JSON Lines": two download links (`what` says what they export). */
export function ExportLinks({ path, filters, what }: { path: string; filters?: Filters; what: string }) {
  return (
    <p className="actions export-links">
      <span>{what}:</span>
      <a className="button" href={exportHref(path, "csv", filters)} download>
        CSV
      </a>
      <a className="button" href={exportHref(path, "jsonl", filters)} download>
        JSON Lines
      </a>
    </p>
  );
}
