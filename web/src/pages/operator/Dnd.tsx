// The operator's DND registry (docs/api.md, "DND registry"): how many numbers it holds, whether
// one number is on it, numbers added or removed by hand, and a CSV file imported into it (merged,
// or replacing it whole) with its upload's progress and the lines it refused. Reading is for
// every operator staff role; changing it is for operator_admin.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, upload } from "../../api.js";
import { RefusedLines, sentWords, useFileUpload } from "../../csv-upload.js";
import { formatNumber, plural } from "../../format.js";
import type { DndImport } from "../../operator-types.js";
import { Link } from "../../router.js";
import { StaffReadOnly } from "../../staff-gate.js";
import { Busy, ConfirmButton, ErrorNotice, Field, PageTitle, Progress, Success } from "../../ui.js";

const KEY = ["operator", "dnd"];

/** The numbers typed in a box, one or many, split at commas, spaces or lines. */
function numbersOf(text: string): string[] {
  return text.split(/[\s,;]+/).filter(Boolean);
}

export default function Dnd() {
  const queryClient = useQueryClient();
  const count = useQuery({ queryKey: KEY, queryFn: () => data<{ count: number }>("/admin/api/dnd") });
  const changed = () => void queryClient.invalidateQueries({ queryKey: KEY });
  return (
    <>
      <PageTitle>DND registry</PageTitle>
      <p>
        Numbers on the do-not-disturb registry are left out of promotional sends (routes P and PS, answered{" "}
        <code>dnd_blocked</code> or -11); transactional and service traffic is not checked against it. Every change is
        in the <Link to="/operator/audit?action=dnd">audit log</Link>.
      </p>
      <ErrorNotice error={count.error} />
      {count.isPending ? (
        <Busy />
      ) : count.data ? (
        <p data-testid="dnd-count">
          <strong>{formatNumber(count.data.count)}</strong> {count.data.count === 1 ? "number" : "numbers"} on the
          registry.
        </p>
      ) : null}
      <Lookup />
      <StaffReadOnly capability="staff_admin" what="changing the registry">
        <Edit onChanged={changed} />
        <Import onChanged={changed} />
      </StaffReadOnly>
    </>
  );
}

function Lookup() {
  const [number, setNumber] = useState("");
  const [asked, setAsked] = useState("");
  // Under the registry's key: a change made on this page asks again, so the answer is never stale.
  const check = useQuery({
    queryKey: [...KEY, "lookup", asked],
    queryFn: () => data<{ number: string; dnd: boolean }>(`/admin/api/dnd/${encodeURIComponent(asked)}`),
    enabled: asked !== "",
    retry: false,
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const mobile = number.trim();
    if (mobile === asked) void check.refetch();
    else setAsked(mobile);
  };
  return (
    <form onSubmit={submit} aria-label="Look up a number">
      <h2>Look up a number</h2>
      <div className="columns">
        <Field label="Mobile number" id="dnd-lookup" hint="10 digits, or with +91, 91 or 0 in front.">
          <input
            id="dnd-lookup"
            inputMode="tel"
            aria-describedby="dnd-lookup-hint"
            value={number}
            onChange={(event) => setNumber(event.target.value)}
          />
        </Field>
      </div>
      <div className="actions">
        <button type="submit" disabled={!number.trim() || check.isFetching}>
          Look up
        </button>
      </div>
      <ErrorNotice error={check.error} title="Not looked up" />
      {check.data ? (
        <p role="status" data-testid="dnd-lookup-answer">
          {check.data.number} is {check.data.dnd ? "on the registry" : "not on the registry"}.
        </p>
      ) : null}
    </form>
  );
}

function Edit({ onChanged }: { onChanged: () => void }) {
  const [text, setText] = useState("");
  const [done, setDone] = useState<string>();
  const change = useMutation({
    mutationFn: async ({
      remove,
    }: {
      remove: boolean;
    }): Promise<{ removed: number } | { added: number; duplicates: number }> =>
      remove
        ? data<{ removed: number }>("/admin/api/dnd", { method: "DELETE", json: { numbers: numbersOf(text) } })
        : data<{ added: number; duplicates: number }>("/admin/api/dnd", { json: { numbers: numbersOf(text) } }),
    onMutate: () => setDone(undefined),
    onSuccess: (answer) => {
      setDone(
        "removed" in answer
          ? `${plural(answer.removed, "number")} removed.`
          : `${plural(answer.added, "number")} added${answer.duplicates > 0 ? `, ${formatNumber(answer.duplicates)} already there` : ""}.`,
      );
      setText("");
      onChanged();
    },
  });
  const numbers = numbersOf(text);
  const add = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ remove: false });
  };
  return (
    <form onSubmit={add} aria-label="Add or remove numbers">
      <h2>Add or remove numbers</h2>
      <Field label="Numbers" id="dnd-numbers" hint="Up to 10,000, separated by commas, spaces or lines.">
        <textarea
          id="dnd-numbers"
          rows={3}
          aria-describedby="dnd-numbers-hint"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
      </Field>
      <div className="actions">
        <button type="submit" className="primary" disabled={numbers.length === 0 || change.isPending}>
          Add to the registry
        </button>
        <ConfirmButton
          danger
          label="Remove from the registry"
          confirmLabel={`Confirm: remove ${plural(numbers.length, "number")}`}
          warning="Promotional sends reach these numbers again once they are removed."
          disabled={numbers.length === 0 || change.isPending}
          onConfirm={() => change.mutate({ remove: true })}
        />
      </div>
      <ErrorNotice error={change.error} title="Not changed" />
      {done ? <Success>{done}</Success> : null}
    </form>
  );
}

function Import({ onChanged }: { onChanged: () => void }) {
  const [file, setFile] = useState<File>();
  const [replace, setReplace] = useState(false);
  const { sent, busy, done, error, result, run } = useFileUpload<DndImport & { replaced: boolean }>();
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!file) return;
    const path = `/admin/api/dnd/import${replace ? "?replace=true" : ""}`;
    const answer = await run(file, async (progress) => ({
      ...(await upload<{ data: DndImport }>(path, file, "text/csv", progress)).data,
      replaced: replace,
    }));
    if (answer) onChanged();
  };
  return (
    <form onSubmit={(event) => void submit(event)} aria-label="Import a CSV file">
      <h2>Import a CSV file</h2>
      <Field
        label="CSV file"
        id="dnd-file"
        hint="The first column is the number; other columns and a header line are ignored. Added whole or not at all."
      >
        <input
          id="dnd-file"
          type="file"
          required
          accept=".csv,.txt,text/csv,text/plain"
          aria-describedby="dnd-file-hint"
          onChange={(event) => setFile(event.target.files?.[0])}
        />
      </Field>
      <div className="check">
        <input
          id="dnd-replace"
          type="checkbox"
          checked={replace}
          onChange={(event) => setReplace(event.target.checked)}
        />
        <label htmlFor="dnd-replace">
          Replace the whole registry with this file (every number not in it is removed)
        </label>
      </div>
      <div className="actions">
        <button type="submit" className={replace ? "danger" : "primary"} disabled={!file || busy}>
          {replace ? "Replace the registry" : "Import the file"}
        </button>
      </div>
      {sent && busy ? (
        <Progress id="dnd-progress" label="Upload" value={sent.loaded} max={sent.total}>
          {done ? "Sent; the gateway is writing the numbers…" : sentWords(sent)}
        </Progress>
      ) : null}
      <ErrorNotice error={error} title="Not imported" />
      {result ? <ImportReport report={result} /> : null}
    </form>
  );
}

function ImportReport({ report }: { report: DndImport & { replaced: boolean } }) {
  return (
    <div data-testid="dnd-import-report">
      <Success>
        {report.replaced ? "The registry was replaced: " : ""}
        {plural(report.added, "number")} added, {formatNumber(report.duplicates)} already there or repeated,{" "}
        {plural(report.invalid_count, "line")} refused.
      </Success>
      {report.invalid_count > 0 ? (
        <RefusedLines testId="dnd-import-errors" total={report.invalid_count} rows={report.invalid} />
      ) : null}
    </div>
  );
}
