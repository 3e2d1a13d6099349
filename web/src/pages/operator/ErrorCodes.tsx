// A connector's carrier codes and the reasons they map to (issue 40, item 5): every code it maps,
// its own over the default table; one code added or changed, or its own entry removed, in place
// (PUT|DELETE /admin/api/carriers/{name}/error-codes/{code}). A refusal is shown in words.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { data } from "../../api.js";
import type { ErrorCodeTable } from "../../operator-types.js";
import { Link } from "../../router.js";
import { StaffReadOnly, useCan } from "../../staff-gate.js";
import { Busy, ConfirmButton, ErrorNotice, Field, Pager, PageTitle, Success, useClientPages } from "../../ui.js";
import { ReasonSelect, reasonText } from "./reason-select.js";

type Entry = { reason: string; description: string };
type Change = { code: string; entry?: Entry };

const EMPTY = { code: "", reason: "dlt_template_mismatch", description: "" };

export default function ErrorCodes({ params }: { params: Record<string, string> }) {
  const name = params.name ?? "";
  const changes = useCan("staff_admin");
  const base = `/admin/api/carriers/${encodeURIComponent(name)}/error-codes`;
  const key = ["operator", "error-codes", name];
  const queryClient = useQueryClient();
  const table = useQuery({ queryKey: key, queryFn: () => data<ErrorCodeTable>(base) });
  const [draft, setDraft] = useState(EMPTY);
  const [done, setDone] = useState<string>();
  const codeField = useRef<HTMLInputElement>(null);
  const change = useMutation({
    mutationFn: ({ code, entry }: Change) =>
      data<ErrorCodeTable>(
        `${base}/${encodeURIComponent(code)}`,
        entry ? { method: "PUT", json: entry } : { method: "DELETE" },
      ),
    onMutate: () => setDone(undefined),
    // Refused (another operator changed it first, say): the list shows what is there now.
    onError: () => void queryClient.invalidateQueries({ queryKey: key }),
    onSuccess: (answer, { code, entry }) => {
      queryClient.setQueryData(key, answer);
      setDone(
        entry ? `Code ${code} now maps to ${entry.reason}.` : `Code ${code} is no longer mapped by ${name} itself.`,
      );
      if (entry) setDraft(EMPTY);
    },
  });
  const save = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ code: draft.code.trim(), entry: { reason: draft.reason, description: draft.description.trim() } });
  };
  const pages = useClientPages(table.data?.codes, 100);
  return (
    <>
      <PageTitle>Error codes of {name}</PageTitle>
      <p>
        What {name}'s carrier means by its failure codes: a code mapped to a reason fails its messages with that reason
        (<code>error.reason</code>), and the <Link to="/operator/refunds">refund policy</Link> decides whether they are
        refunded. The connector's own codes win over the default table.{" "}
        <Link to="/operator/carriers">All carriers</Link>
      </p>
      <ErrorNotice error={table.error} />
      {table.isPending ? <Busy /> : null}
      <StaffReadOnly capability="staff_admin" what="mapping a carrier's codes">
        <form className="columns" onSubmit={save} aria-label="Map a carrier code">
          <Field label="Carrier code" id="code-code" hint="As the carrier sends it: 633, 0x00000455, E:4001.">
            <input
              id="code-code"
              ref={codeField}
              value={draft.code}
              aria-describedby="code-code-hint"
              onChange={(event) => setDraft({ ...draft, code: event.target.value })}
            />
          </Field>
          <Field label="Reason" id="code-reason" hint={reasonText(draft.reason)}>
            <ReasonSelect id="code-reason" value={draft.reason} onChange={(reason) => setDraft({ ...draft, reason })} />
          </Field>
          <Field label="Description" id="code-description">
            <input
              id="code-description"
              value={draft.description}
              placeholder="Template not matched (this carrier)"
              onChange={(event) => setDraft({ ...draft, description: event.target.value })}
            />
          </Field>
          <div className="actions">
            <button type="submit" className="primary" disabled={!draft.code.trim() || change.isPending}>
              Save code
            </button>
          </div>
        </form>
      </StaffReadOnly>
      <ErrorNotice error={change.error} title="Not changed" />
      {done ? <Success>{done}</Success> : null}
      {table.data ? (
        <div className="table-wrap">
          <table data-testid="error-codes">
            <caption>Codes {name} maps, by code</caption>
            <thead>
              <tr>
                <th scope="col">Code</th>
                <th scope="col">Reason</th>
                <th scope="col">Description</th>
                <th scope="col">From</th>
                {changes ? <th scope="col">Change</th> : null}
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((row) => (
                <tr key={row.code} data-testid={`error-code-${row.code}`}>
                  <th scope="row">{row.code}</th>
                  <td>{row.reason}</td>
                  <td>{row.description}</td>
                  <td>{row.source === "connector" ? `${name}'s own` : "default table"}</td>
                  {changes ? (
                    <td className="actions">
                      <button
                        type="button"
                        onClick={() => {
                          setDraft({ code: row.code, reason: row.reason, description: row.description });
                          codeField.current?.focus();
                        }}
                      >
                        Edit {row.code}
                      </button>
                      {row.source === "connector" ? (
                        <ConfirmButton
                          danger
                          label={`Remove ${row.code}`}
                          confirmLabel={`Confirm: remove ${row.code}`}
                          warning={`${name} no longer maps ${row.code} itself; the default table's entry, if any, applies again.`}
                          disabled={change.isPending}
                          onConfirm={() => change.mutate({ code: row.code })}
                        />
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
    </>
  );
}
