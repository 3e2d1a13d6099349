// A CSV file uploaded into a contact group with its progress (bytes sent, then the gateway's
// reading), and what happened to each line: added, duplicates, and the lines refused with why.
import { useState } from "react";
import { upload } from "./api.js";
import { formatNumber, plural } from "./format.js";
import type { ContactUpload } from "./types.js";
import { ErrorNotice, Field, Pager, Progress, Success, useClientPages } from "./ui.js";

const REASONS: Record<string, string> = {
  invalid_number: "not an Indian mobile number",
  invalid_name: "the name is too long or has a NUL character",
};

/** Bytes of a file sent so far, of its size. */
export interface Sent {
  loaded: number;
  total: number;
}

/** How much of an upload is sent, in words: "40% of 512 KB sent". */
export function sentWords(sent: Sent): string {
  return `${formatNumber(Math.round((sent.loaded / Math.max(sent.total, 1)) * 100))}% of ${formatNumber(Math.ceil(sent.total / 1024))} KB sent`;
}

/**
 * One file's upload and what came of it: the bytes sent, busy until the answer, the refusal or
 * the answer. `run(file, send)` starts it; `send` reports progress and answers the result, which
 * `run` also answers (undefined when refused).
 */
export function useFileUpload<T>() {
  const [sent, setSent] = useState<Sent>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [result, setResult] = useState<T>();
  const run = async (file: File, send: (progress: (loaded: number, total: number) => void) => Promise<T>) => {
    setBusy(true);
    setError(undefined);
    setResult(undefined);
    setSent({ loaded: 0, total: file.size });
    try {
      const answer = await send((loaded, total) => setSent({ loaded, total }));
      setResult(answer);
      return answer;
    } catch (caught) {
      setError(caught);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  const done = sent !== undefined && sent.loaded >= sent.total;
  return { sent, busy, done, error, result, run };
}

/** A line a file's upload refused: where, what it held and, when the gateway says, why. */
export interface RefusedLine {
  line: number;
  value: string;
  why?: string;
}

/** The lines an upload refused, 20 a page; `total` counts them all when the answer listed only the first. */
export function RefusedLines({ rows, total, testId }: { rows: readonly RefusedLine[]; total: number; testId: string }) {
  const pages = useClientPages(rows, 20);
  const why = rows.some((row) => row.why !== undefined);
  return (
    <>
      <div className="table-wrap">
        <table data-testid={testId}>
          <caption>
            Refused lines
            {total > rows.length ? ` (the first ${formatNumber(rows.length)})` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Line</th>
              <th scope="col">Value</th>
              {why ? <th scope="col">Why</th> : null}
            </tr>
          </thead>
          <tbody>
            {pages.rows.map((row) => (
              <tr key={`${row.line}-${row.value}`}>
                <td>{formatNumber(row.line)}</td>
                <td>
                  <code>{row.value}</code>
                </td>
                {why ? <td>{row.why}</td> : null}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager meta={pages.meta} onPage={pages.setPage} />
    </>
  );
}

/** What an upload reported, in words (the per-line errors listed a page at a time). */
export function UploadReport({ report }: { report: ContactUpload }) {
  return (
    <div data-testid="upload-report">
      <Success>
        {plural(report.received, "line")} read: {formatNumber(report.added)} added,{" "}
        {plural(report.duplicates, "duplicate")}, {formatNumber(report.invalid)} refused.
      </Success>
      {report.invalid > 0 ? (
        <RefusedLines
          testId="upload-errors"
          total={report.invalid}
          rows={report.invalid_entries.map((entry) => ({
            line: "line" in entry ? entry.line : entry.index + 1,
            value: entry.value,
            why: REASONS[entry.reason] ?? entry.reason,
          }))}
        />
      ) : null}
    </div>
  );
}

/**
 * The file input and the upload into the group `target` names (it may make the group first);
 * `onUploaded` runs once the gateway has read the whole file.
 */
export function CsvUpload({
  target,
  id,
  label = "Upload contacts",
  onUploaded,
}: {
  target: (file: File) => Promise<number>;
  id: string;
  label?: string;
  onUploaded?: (report: ContactUpload) => void;
}) {
  const [file, setFile] = useState<File>();
  const { sent, busy, done, error, result: report, run } = useFileUpload<ContactUpload>();

  const start = async () => {
    if (!file) return;
    const answer = await run(file, async (progress) => {
      const groupId = await target(file);
      return (await upload<{ data: ContactUpload }>(`/api/v2/groups/${groupId}/contacts`, file, "text/csv", progress))
        .data;
    });
    if (answer) onUploaded?.(answer);
  };
  return (
    <div className="upload">
      <Field
        label="CSV file"
        id={id}
        hint="One contact per line: the number, then the name. A header line is optional."
      >
        <input
          id={id}
          type="file"
          accept=".csv,text/csv"
          aria-describedby={`${id}-hint`}
          onChange={(event) => setFile(event.target.files?.[0])}
        />
      </Field>
      <button type="button" className="primary" disabled={!file || busy} onClick={() => void start()}>
        {label}
      </button>
      {sent ? (
        <Progress id={`${id}-progress`} label="Upload" value={sent.loaded} max={sent.total}>
          <span data-testid="upload-progress">
            {busy && done ? "Sent; the gateway is reading the file…" : sentWords(sent)}
          </span>
        </Progress>
      ) : null}
      <ErrorNotice error={error} title="Upload refused" />
      {report ? <UploadReport report={report} /> : null}
    </div>
  );
}
