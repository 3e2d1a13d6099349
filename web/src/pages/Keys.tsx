// The account's API keys: create one (shown once, here) with its scopes and the addresses it may
// be used from, list them with theirs and who made each (a key acts as its maker, decision 0140),
// change one's name and limits (key-edit.tsx), revoke one; each key named as the audit log names it
// (key:12), linked to everything it did there.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, withQuery } from "../api.js";
import { formatTime } from "../format.js";
import { Link } from "../router.js";
import { canDo, type SessionInfo, useSignedIn } from "../session.js";
import {
  ACCOUNT_USER_ROLES,
  type ApiKey,
  type Capability,
  type CreatedKey,
  keyCapabilitiesBeyond,
  STAFF_ROLES,
  scopesOfUserRole,
} from "../types.js";
import { Busy, ErrorNotice, Field, NewKeyNotice, PageTitle, StatusBadge, Success } from "../ui.js";
import { addressList, KeyEdit, SCOPES, ScopeChecks } from "./key-edit.js";

/** The request's body: only what was asked (no offered scope ticked off, no address: the server's defaults). */
function keyRequest(name: string, offered: readonly string[], scopes: Set<string>, addresses: string) {
  const allowed = addressList(addresses);
  return {
    ...(name.trim() ? { name } : {}),
    ...(scopes.size < offered.length ? { scopes: SCOPES.map(([scope]) => scope).filter((s) => scopes.has(s)) } : {}),
    ...(allowed.length > 0 ? { allowed_ips: allowed } : {}),
  };
}

/** What a key can do that a user cannot, in words. */
const CAN: Record<Capability, string> = {
  basic: "sign in",
  read: "read messages and settings",
  send: "send",
  develop: "change keys and webhooks",
  money: "move credits",
  manage: "manage users and settings",
  staff_read: "read every account",
  staff_money: "move every account's credits",
  staff_admin: "change the gateway",
};

const withArticle = (role: string) => `${/^[aeiou]/.test(role) ? "an" : "a"} ${role}`;

/**
 * Why the signed-in user may not change or revoke `key`, as the API decides (decision 0140), or
 * undefined when they may: a scope their role cannot give, or a maker whose role can do more.
 */
function notYours(key: ApiKey, session: SessionInfo, offered: readonly string[]): string | undefined {
  if (!key.scopes.every((scope) => offered.includes(scope))) {
    return `Its scopes (${key.scopes.join(", ")}) go beyond your role's; an owner or admin changes it.`;
  }
  // A key whose maker is gone acts no more: anyone may revoke it.
  const makerRole = key.maker_role;
  if (makerRole === null) return undefined;
  const asKey = { makerRole, scopes: key.scopes };
  const beyond = keyCapabilitiesBeyond(asKey, { role: session.user_role });
  if (beyond.length === 0) return undefined;
  const roles = session.role === "operator" ? STAFF_ROLES : ACCOUNT_USER_ROLES;
  const able = roles.filter((role) => keyCapabilitiesBeyond(asKey, { role }).length === 0);
  const maker = key.created_by === null ? withArticle(makerRole) : `${key.created_by} (${makerRole})`;
  return `Made by ${maker}: it can ${beyond.map((capability) => CAN[capability]).join(" and ")}, which your role (${session.user_role}) cannot. Only ${able.map(withArticle).join(" or ")} can change or revoke it.`;
}

export default function Keys() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  // The scopes this role may give a key: a developer's keys never move money.
  const offered = scopesOfUserRole(session.user_role);
  const [scopes, setScopes] = useState<Set<string>>(() => new Set(offered));
  const [addresses, setAddresses] = useState("");
  const [confirming, setConfirming] = useState<number>();
  const [editing, setEditing] = useState<number>();
  const [edited, setEdited] = useState<string>();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => data<ApiKey[]>("/api/v2/keys") });
  const create = useMutation({
    mutationFn: () => data<CreatedKey>("/api/v2/keys", { json: keyRequest(name, offered, scopes, addresses) }),
    onSuccess: () => {
      revoke.reset();
      setName("");
      setAddresses("");
      setScopes(new Set(offered));
      void queryClient.invalidateQueries({ queryKey: ["keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: number) => data(`/api/v2/keys/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      create.reset();
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
        <ScopeChecks prefix="scope" offered={offered} scopes={scopes} onChange={setScopes} />
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
                <th scope="col">Made by</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {keys.data.map((key) => {
                const reason = notYours(key, session, offered);
                return (
                  <tr key={key.id} data-testid={`key-${key.prefix}`}>
                    <td>
                      <code>{key.prefix}…</code>
                      {canDo(session, "read") ? (
                        <>
                          {" "}
                          <Link to={withQuery("/audit", { credential: `key:${key.id}` })} className="hint">
                            key:{key.id} in the audit log
                          </Link>
                        </>
                      ) : null}
                    </td>
                    <td>{key.name ?? ""}</td>
                    <td>{key.rate_limit === 0 ? "unlimited" : key.rate_limit}</td>
                    <td data-testid="key-scopes">{key.scopes.join(", ")}</td>
                    <td data-testid="key-allowed-ips">{key.allowed_ips ? key.allowed_ips.join(", ") : "any"}</td>
                    <td data-testid="key-created-by">
                      {key.created_by ?? (
                        <span title="Made by the operator, the command line, or before makers were recorded: it acts as the owner">
                          not recorded
                        </span>
                      )}
                    </td>
                    <td>{formatTime(key.created_at, session.time_zone)}</td>
                    <td>
                      {key.revoked_at ? (
                        <StatusBadge status="revoked" />
                      ) : reason ? (
                        <span className="hint" data-testid="key-not-yours">
                          {reason}
                        </span>
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
                        <>
                          <button
                            type="button"
                            onClick={() => {
                              setEdited(undefined);
                              setEditing(key.id);
                            }}
                          >
                            Change {key.prefix}…
                          </button>{" "}
                          <button type="button" onClick={() => setConfirming(key.id)}>
                            Revoke {key.prefix}…
                          </button>
                        </>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {edited ? <Success>{edited}</Success> : null}
      {editing !== undefined && keys.data?.some((key) => key.id === editing) ? (
        <KeyEdit
          key={editing}
          apiKey={keys.data.find((key) => key.id === editing)!}
          offered={offered}
          onDone={(message) => {
            revoke.reset();
            setEditing(undefined);
            setEdited(message);
          }}
        />
      ) : null}
    </>
  );
}
