// An account's DLT link and callback white-lists on the operator's account page (issue 40): per
// entity, the approved URLs (exact, or a prefix ending in / or ?) and callback numbers, the
// account's pending requests approved or rejected in place, entries added and removed
// (/admin/api/accounts/{username}/dlt/urls|callbacks, /admin/api/dlt/urls|callbacks/{id}/…).
import { useMutation, useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../../api.js";
import type { DltLink } from "../../operator-types.js";
import { Busy, ConfirmButton, ErrorNotice, Field } from "../../ui.js";

const KINDS = {
  urls: {
    field: "url",
    name: "link",
    title: "Links (URLs, APK and OTT links)",
    placeholder: "https://example.com/app",
  },
  callbacks: { field: "number", name: "callback number", title: "Callback numbers", placeholder: "1800 123 4567" },
} as const;

function LinkList({
  username,
  path,
  entities,
}: {
  username: string;
  path: keyof typeof KINDS;
  entities: readonly string[];
}) {
  const { field, name, title, placeholder } = KINDS[path];
  const base = `/admin/api/accounts/${encodeURIComponent(username)}/dlt/${path}`;
  const list = useQuery({
    queryKey: ["operator", "dlt", path, username],
    queryFn: () => data<DltLink[]>(withQuery(base, {})),
  });
  const [entity, setEntity] = useState(entities[0] ?? "");
  const [draft, setDraft] = useState("");
  const change = useMutation({
    mutationFn: async (
      action: { kind: "add" | "remove"; entity: string; value: string } | { kind: "approve" | "reject"; id: number },
    ) => {
      if ("id" in action) {
        return data(`/admin/api/dlt/${path}/${action.id}/${action.kind}`, { method: "POST", json: {} });
      }
      return data(base, {
        method: action.kind === "add" ? "POST" : "DELETE",
        json: { entity_id: action.entity, [field]: action.value },
      });
    },
    onSuccess: (_answer, action) => {
      if (action.kind === "add") setDraft("");
      void list.refetch();
    },
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ kind: "add", entity: entity || entities[0] || "", value: draft.trim() });
  };
  const rows = list.data ?? [];
  return (
    <div data-testid={`dlt-${path}`}>
      <h3>{title}</h3>
      {list.isPending ? (
        <Busy />
      ) : rows.length === 0 ? (
        <p>None: on DLT routes a text with any {name} is refused.</p>
      ) : null}
      <ul className="plain">
        {rows.map((row) => {
          const value = row.url ?? row.number ?? "";
          return (
            <li key={row.id} className="actions">
              <code>{value}</code> <span>entity {row.entity_id}</span> <span>{row.status}</span>
              {row.status === "pending" ? (
                <>
                  <button
                    type="button"
                    disabled={change.isPending}
                    onClick={() => change.mutate({ kind: "approve", id: row.id })}
                  >
                    Approve {value}
                  </button>
                  <button
                    type="button"
                    disabled={change.isPending}
                    onClick={() => change.mutate({ kind: "reject", id: row.id })}
                  >
                    Reject
                  </button>
                </>
              ) : null}
              <ConfirmButton
                danger
                label={`Remove ${value}`}
                confirmLabel={`Confirm: remove ${value}`}
                warning={`Texts with ${value} are refused on DLT routes once it is removed.`}
                disabled={change.isPending}
                onConfirm={() => change.mutate({ kind: "remove", entity: row.entity_id, value })}
              />
            </li>
          );
        })}
      </ul>
      {entities.length === 0 ? (
        <p>White-list a DLT entity first: the lists are an entity's.</p>
      ) : (
        <form className="inline-form" onSubmit={add} aria-label={`Add a ${name}`}>
          <Field label="Entity" id={`dlt-${path}-entity`}>
            <select
              id={`dlt-${path}-entity`}
              value={entity || entities[0]}
              onChange={(event) => setEntity(event.target.value)}
            >
              {entities.map((e) => (
                <option key={e} value={e}>
                  {e}
                </option>
              ))}
            </select>
          </Field>
          <Field label={`${name[0]!.toUpperCase()}${name.slice(1)} to add`} id={`dlt-${path}-new`}>
            <input
              id={`dlt-${path}-new`}
              value={draft}
              placeholder={placeholder}
              onChange={(event) => setDraft(event.target.value)}
            />
          </Field>
          <button type="submit" disabled={!draft.trim() || change.isPending}>
            Add {name}
          </button>
        </form>
      )}
      <ErrorNotice error={change.error ?? list.error} title="Not changed" />
    </div>
  );
}

export function DltLinks({ username, entities }: { username: string; entities: readonly string[] }) {
  return (
    <>
      <LinkList username={username} path="urls" entities={entities} />
      <LinkList username={username} path="callbacks" entities={entities} />
    </>
  );
}
