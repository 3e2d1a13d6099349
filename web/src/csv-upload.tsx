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

/** What an upload reported, in words (the per-line errors listed a page at a time). */
export function UploadReport({ report }: { report: ContactUpload }) {
  const invalid = useClientPages(report.invalid_entries, 20);
  return (
    <div data-testid="upload-report">
      <Success>
        {plural(report.received, "line")} read: {formatNumber(report.added)} added,{" "}
        {plural(report.duplicates, "duplicate")}, {formatNumber(report.invalid)} refused.
      </Success>
      {report.invalid > 0 ? (
        <>
          <div className="table-wrap">
            <table data-testid="upload-errors">
              <caption>
                Refused lines
                {report.invalid > report.invalid_entries.length ? ` (the first ${report.invalid_entries.length})` : ""}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Line</th>
                  <th scope="col">Value</th>
                  <th scope="col">Why</th>
                </tr>
              </thead>
              <tbody>
                {invalid.rows.map((entry) => (
                  <tr key={`${"line" in entry ? entry.line : entry.index}-${entry.value}`}>
                    <td>{"line" in entry ? entry.line : entry.index + 1}</td>
                    <td>
                      <code>{entry.value}</code>
                    </td>
                    <td>{REASONS[entry.reason] ?? entry.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager meta={invalid.meta} onPage={invalid.setPage} />
        </>
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
  const [sent, setSent] = useState<{ loaded: number; total: number }>();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const [report, setReport] = useState<ContactUpload>();

  const start = async () => {
    if (!file) return;
    setBusy(true);
    setError(undefined);
    setReport(undefined);
    setSent({ loaded: 0, total: file.size });
    try {
      const groupId = await target(file);
      const answer = await upload<{ data: ContactUpload }>(
        `/api/v2/groups/${groupId}/contacts`,
        file,
        "text/csv",
        (loaded, total) => setSent({ loaded, total }),
      );
      setReport(answer.data);
      onUploaded?.(answer.data);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  const done = sent && sent.loaded >= sent.total;
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
            {busy && done
              ? "Sent; the gateway is reading the file…"
              : `${formatNumber(Math.round((sent.loaded / Math.max(sent.total, 1)) * 100))}% of ${formatNumber(Math.ceil(sent.total / 1024))} KB sent`}
          </span>
        </Progress>
      ) : null}
      <ErrorNotice error={error} title="Upload refused" />
      {report ? <UploadReport report={report} /> : null}
    </div>
  );
}
