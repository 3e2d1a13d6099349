// The account's API keys: create one (shown once, here) with its scopes and the addresses it may
// be used from, list them with theirs, revoke one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { useSignedIn } from "../session.js";
import type { ApiKey, CreatedKey } from "../types.js";
import { Busy, ErrorNotice, Field, NewKeyNotice, PageTitle, StatusBadge } from "../ui.js";

/** The scopes, as the server names them, and what each opens (docs/api.md, Key scopes). */
const SCOPES = [
  ["send", "Send: every channel's sends, and cancelling one"],
  ["read", "Read: messages, reports, lists and settings"],
  ["manage", "Manage: templates, sender IDs, webhooks, keys, sub-accounts"],
  ["billing", "Billing: balance, credit history, prices, credit transfers"],
] as const;

/** The request's body: only what was asked (no scope ticked off, no address: the server's defaults). */
function keyRequest(name: string, scopes: Set<string>, addresses: string) {
  const allowed = addresses
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "");
  return {
    ...(name.trim() ? { name } : {}),
    ...(scopes.size < SCOPES.length ? { scopes: SCOPES.map(([scope]) => scope).filter((s) => scopes.has(s)) } : {}),
    ...(allowed.length > 0 ? { allowed_ips: allowed } : {}),
  };
}

export default function Keys() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(SCOPES.map(([scope]) => scope)));
  const [addresses, setAddresses] = useState("");
  const [confirming, setConfirming] = useState<number>();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => data<ApiKey[]>("/api/v2/keys") });
  const create = useMutation({
    mutationFn: () => data<CreatedKey>("/api/v2/keys", { json: keyRequest(name, scopes, addresses) }),
    onSuccess: () => {
      setName("");
      setAddresses("");
      setScopes(new Set(SCOPES.map(([scope]) => scope)));
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => data(`/api/v2/keys/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      setConfirming(undefined);
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <form onSubmit={submit} aria-label="Create an API key">
        <Field label="Name of the new key" id="key-name" hint="Optional: where the key is used">
          <input
            id="key-name"
            maxLength={100}
            value={name}
            aria-describedby="key-name-hint"
            onChange={(event) => setName(event.target.value)}
          />
        </Field>
        <fieldset className="variables">
          <legend>What the key may do</legend>
          {SCOPES.map(([scope, label]) => (
            <div className="check" key={scope}>
              <input
                id={`scope-${scope}`}
                type="checkbox"
                checked={scopes.has(scope)}
                onChange={(event) => {
                  const next = new Set(scopes);
                  if (event.target.checked) next.add(scope);
                  else next.delete(scope);
                  setScopes(next);
                }}
              />
              <label htmlFor={`scope-${scope}`}>{label}</label>
            </div>
          ))}
        </fieldset>
        <Field
          label="Allowed addresses"
          id="key-allowed-ips"
          hint="Optional: IP addresses or CIDR ranges (IPv4, IPv6), separated by commas or spaces; empty: any address"
        >
          <input
            id="key-allowed-ips"
            maxLength={2000}
            value={addresses}
            placeholder="203.0.113.0/24, 2001:db8::/32"
            aria-describedby="key-allowed-ips-hint"
            onChange={(event) => setAddresses(event.target.value)}
          />
        </Field>
        <button type="submit" className="primary" disabled={create.isPending || scopes.size === 0}>
          Create key
        </button>
      </form>
      <ErrorNotice error={create.error} title="Not created" />
      {create.data ? <NewKeyNotice apiKey={create.data.api_key} testId="new-key" /> : null}
      <ErrorNotice error={revoke.error} title="Not revoked" />
      <ErrorNotice error={keys.error} />
      {keys.isPending ? <Busy /> : null}
      {keys.data ? (
        <div className="table-wrap">
          <table>
            <caption>Keys of the account, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Name</th>
                <th scope="col">Requests per minute</th>
                <th scope="col">Scopes</th>
                <th scope="col">Allowed addresses</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => (
                <tr key={key.id} data-testid={`key-${key.prefix}`}>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.name ?? ""}</td>
                  <td>{key.rate_limit === 0 ? "unlimited" : key.rate_limit}</td>
                  <td data-testid="key-scopes">{key.scopes.join(", ")}</td>
                  <td data-testid="key-allowed-ips">{key.allowed_ips ? key.allowed_ips.join(", ") : "any"}</td>
                  <td>{formatTime(key.created_at, session.time_zone)}</td>
                  <td>
                    {key.revoked_at ? (
                      <StatusBadge status="revoked" />
                    ) : confirming === key.id ? (
                      <>
                        <button type="button" className="danger" onClick={() => revoke.mutate(key.id)}>
                          Confirm: revoke {key.prefix}…
                        </button>{" "}
                        <button type="button" onClick={() => setConfirming(undefined)}>
                          Keep it
                        </button>
                      </>
                    ) : (
                      <button type="button" onClick={() => setConfirming(key.id)}>
                        Revoke {key.prefix}…
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
