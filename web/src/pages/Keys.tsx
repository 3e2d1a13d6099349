// The account's API keys: create one (shown once, here), list them, revoke one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { useSignedIn } from "../session.js";
import type { ApiKey, CreatedKey } from "../types.js";
import { Busy, ErrorNotice, Field, NewKeyNotice, PageTitle, StatusBadge } from "../ui.js";

export default function Keys() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [confirming, setConfirming] = useState<number>();
  const keys = useQuery({ queryKey: ["keys"], queryFn: () => data<ApiKey[]>("/api/v2/keys") });
  const create = useMutation({
    mutationFn: () => data<CreatedKey>("/api/v2/keys", { json: name.trim() ? { name } : {} }),
    onSuccess: () => {
      setName("");
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
        <button type="submit" className="primary" disabled={create.isPending}>
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
