// A key's name, scopes and allowed addresses changed after it is made (PATCH /api/v2/keys/{id}):
// the key keeps working, with the new limits from its next request.
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import type { ApiKey } from "../types.js";
import { ErrorNotice, Field } from "../ui.js";

/** The scopes, as the server names them, and what each opens (docs/api.md, Key scopes). */
export const SCOPES = [
  ["send", "Send: every channel's sends, and cancelling one"],
  ["read", "Read: messages, reports, lists and settings"],
  ["manage", "Manage: templates, sender IDs, webhooks, keys, sub-accounts"],
  ["billing", "Billing: balance, credit history, prices, credit transfers"],
] as const;

/** Addresses as typed (commas or spaces between them), without the empty ones. */
export function addressList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
}

/**
 * Ticks one scope per checkbox, of those the signed-in role may give a key (`offered`: a developer's
 * keys never have billing); `prefix` keeps the ids of two sets on one page apart.
 */
export function ScopeChecks({
  prefix,
  offered,
  scopes,
  onChange,
}: {
  prefix: string;
  offered: readonly string[];
  scopes: Set<string>;
  onChange: (scopes: Set<string>) => void;
}) {
  return (
    <fieldset className="variables">
      <legend>What the key may do</legend>
      {SCOPES.filter(([scope]) => offered.includes(scope)).map(([scope, label]) => (
        <div className="check" key={scope}>
          <input
            id={`${prefix}-${scope}`}
            type="checkbox"
            checked={scopes.has(scope)}
            onChange={(event) => {
              const next = new Set(scopes);
              if (event.target.checked) next.add(scope);
              else next.delete(scope);
              onChange(next);
            }}
          />
          <label htmlFor={`${prefix}-${scope}`}>{label}</label>
        </div>
      ))}
    </fieldset>
  );
}

export function KeyEdit({
  apiKey,
  offered,
  onDone,
}: {
  apiKey: ApiKey;
  offered: readonly string[];
  onDone: (message?: string) => void;
}) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(apiKey.name ?? "");
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(apiKey.scopes));
  const [addresses, setAddresses] = useState((apiKey.allowed_ips ?? []).join(", "));
  /** Only what was changed: a field left as it was is not asked again (a developer may keep an owner's scope). */
  const changes = () => {
    const newName = name.trim() ? name.trim() : null;
    const newScopes = SCOPES.map(([scope]) => scope).filter((scope) => scopes.has(scope));
    const newAddresses = addressList(addresses);
    return {
      ...(newName !== apiKey.name ? { name: newName } : {}),
      ...(newScopes.join(",") !== apiKey.scopes.join(",") ? { scopes: newScopes } : {}),
      ...(newAddresses.join(",") !== (apiKey.allowed_ips ?? []).join(",")
        ? { allowed_ips: newAddresses.length > 0 ? newAddresses : null }
        : {}),
    };
  };
  const save = useMutation({
    mutationFn: () => data<ApiKey>(`/api/v2/keys/${apiKey.id}`, { method: "PATCH", json: changes() }),
    onSuccess: (key) => {
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
      onDone(
        `Key ${key.prefix}… changed: it may ${key.scopes.join(", ")}, from ${key.allowed_ips?.join(", ") ?? "any address"}.`,
      );
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(changes()).length === 0) onDone();
    else save.mutate();
  };

  return (
    <form onSubmit={submit} aria-label={`Change key ${apiKey.prefix}…`}>
      <h2>Change key {apiKey.prefix}…</h2>
      <Field label="Name" id="edit-key-name">
        <input id="edit-key-name" maxLength={100} value={name} onChange={(event) => setName(event.target.value)} />
      </Field>
      <ScopeChecks prefix="edit-scope" offered={offered} scopes={scopes} onChange={setScopes} />
      <Field
        label="Allowed addresses of the key"
        id="edit-key-allowed-ips"
        hint="IP addresses or CIDR ranges, separated by commas or spaces; empty: any address"
      >
        <input
          id="edit-key-allowed-ips"
          maxLength={2000}
          value={addresses}
          aria-describedby="edit-key-allowed-ips-hint"
          onChange={(event) => setAddresses(event.target.value)}
        />
      </Field>
      <button type="submit" className="primary" disabled={save.isPending || scopes.size === 0}>
        Save key
      </button>{" "}
      <button type="button" onClick={() => onDone()}>
        Cancel
      </button>
      <ErrorNotice error={save.error} title="Not changed" />
    </form>
  );
}
