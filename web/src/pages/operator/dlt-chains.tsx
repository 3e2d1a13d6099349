// The telemarketer chain of each DLT entity of an account, on the operator's account page (issue
// 40, item 2): shown, declared (the operator's own TM ID, DLT_TM_ID, appended when not last) and
// cleared (GET, PUT, DELETE /admin/api/accounts/{username}/dlt/chains).
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../../api.js";
import type { DltChain } from "../../operator-types.js";
import { Busy, ConfirmButton, ErrorNotice, Field } from "../../ui.js";

export function DltChains({ username }: { username: string }) {
  const base = `/admin/api/accounts/${encodeURIComponent(username)}/dlt/chains`;
  const list = useQuery({ queryKey: ["operator", "dlt", "chains", username], queryFn: () => data<DltChain[]>(base) });
  const [drafts, setDrafts] = useState<Record<string, string>>({});
  const change = useMutation({
    mutationFn: (action: { entity: string; chain?: string[] }) =>
      data(base, {
        method: action.chain ? "PUT" : "DELETE",
        json: action.chain ? { entity_id: action.entity, chain: action.chain } : { entity_id: action.entity },
      }),
    onSuccess: (_answer, action) => {
      setDrafts({ ...drafts, [action.entity]: "" });
      void list.refetch();
    },
  });
  const rows = list.data ?? [];
  return (
    <div data-testid="dlt-chains">
      <h3>Telemarketer chains</h3>
      {list.isPending ? <Busy /> : rows.length === 0 ? <p>No DLT entity: a chain is an entity's.</p> : null}
      <ul className="plain">
        {rows.map((row) => {
          const draft = drafts[row.entity_id] ?? "";
          const id = `dlt-chain-${row.entity_id}`;
          const declare = (event: FormEvent) => {
            event.preventDefault();
            change.mutate({ entity: row.entity_id, chain: draft.split(/[\s,>]+/).filter(Boolean) });
          };
          return (
            <li key={row.entity_id}>
              <p className="actions">
                <span>entity {row.entity_id}</span>{" "}
                {row.tm_chain.length > 0 ? <code>{row.tm_chain.join(" > ")}</code> : <span>no chain declared</span>}
                {row.tm_chain.length > 0 ? (
                  <ConfirmButton
                    danger
                    label={`Clear the chain of ${row.entity_id}`}
                    confirmLabel={`Confirm: clear the chain of ${row.entity_id}`}
                    warning="Operators drop SMS of an entity without its chain (and the gateway refuses them when DLT_CHAIN_REQUIRED is on)."
                    disabled={change.isPending}
                    onConfirm={() => change.mutate({ entity: row.entity_id })}
                  />
                ) : null}
              </p>
              <form className="inline-form" onSubmit={declare} aria-label={`Declare the chain of ${row.entity_id}`}>
                <Field label="Telemarketer IDs, in order" id={id}>
                  <input
                    id={id}
                    value={draft}
                    placeholder="1702…, 1702…"
                    onChange={(event) => setDrafts({ ...drafts, [row.entity_id]: event.target.value })}
                  />
                </Field>
                <button type="submit" disabled={!draft.trim() || change.isPending}>
                  Declare chain
                </button>
              </form>
            </li>
          );
        })}
      </ul>
      <ErrorNotice error={change.error ?? list.error} title="Not changed" />
    </div>
  );
}
