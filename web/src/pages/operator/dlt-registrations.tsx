// An account's white-listed DLT headers and entity IDs on the operator's account page, each added
// and removed there (POST and DELETE /admin/api/accounts/{username}/dlt/headers|entities).
import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../../api.js";
import { ConfirmButton, ErrorNotice, Field } from "../../ui.js";

const KINDS = {
  headers: { field: "header", name: "DLT header", refusal: "-32" },
  entities: { field: "entity_id", name: "DLT entity ID", refusal: "-31" },
} as const;

function DltList({
  username,
  path,
  values,
  onChange,
}: {
  username: string;
  path: keyof typeof KINDS;
  values: readonly string[];
  onChange: () => void;
}) {
  const { field, name, refusal } = KINDS[path];
  const [draft, setDraft] = useState("");
  const change = useMutation({
    mutationFn: ({ value, remove }: { value: string; remove: boolean }) =>
      data(`/admin/api/accounts/${encodeURIComponent(username)}/dlt/${path}`, {
        method: remove ? "DELETE" : "POST",
        json: { [field]: value },
      }),
    onSuccess: (_answer, { remove }) => {
      if (!remove) setDraft("");
      onChange();
    },
  });
  const add = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ value: draft.trim(), remove: false });
  };
  return (
    <div data-testid={`dlt-${path}`}>
      <h3>{name}s</h3>
      {values.length === 0 ? <p>None.</p> : null}
      <ul className="plain">
        {values.map((value) => (
          <li key={value} className="actions">
            <code>{value}</code>
            <ConfirmButton
              danger
              label={`Remove ${value}`}
              confirmLabel={`Confirm: remove ${value}`}
              warning={`Sends that carry ${name} ${value} on DLT routes are refused (${refusal}) once it is removed.`}
              disabled={change.isPending}
              onConfirm={() => change.mutate({ value, remove: true })}
            />
          </li>
        ))}
      </ul>
      <form className="inline-form" onSubmit={add} aria-label={`Add a ${name}`}>
        <Field label={`${name} to add`} id={`dlt-${path}-new`}>
          <input id={`dlt-${path}-new`} value={draft} onChange={(event) => setDraft(event.target.value)} />
        </Field>
        <button type="submit" disabled={!draft.trim() || change.isPending}>
          Add {name}
        </button>
      </form>
      <ErrorNotice error={change.error} title="Not changed" />
    </div>
  );
}

export function DltRegistrations({
  username,
  headers,
  entities,
  onChange,
}: {
  username: string;
  headers: readonly string[];
  entities: readonly string[];
  onChange: () => void;
}) {
  return (
    <>
      <DltList username={username} path="headers" values={headers} onChange={onChange} />
      <DltList username={username} path="entities" values={entities} onChange={onChange} />
    </>
  );
}
