// Contact groups: the account's groups a page at a time, a new group, and deleting one (with
// its contacts). A group's page lists its contacts and takes a CSV upload.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, paged } from "../api.js";
import { formatNumber, formatTime } from "../format.js";
import { Link, navigate } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { ContactGroup } from "../types.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, RoleNote } from "../ui.js";

export function NewGroupForm({ onCreated }: { onCreated: (group: ContactGroup) => void }) {
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const create = useMutation({
    mutationFn: () =>
      data<ContactGroup>("/api/v2/groups", {
        json: { name, ...(description.trim() ? { description } : {}) },
      }),
    onSuccess: (group) => {
      setName("");
      setDescription("");
      onCreated(group);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Create a group">
      <Field label="Group name" id="group-name">
        <input
          id="group-name"
          required
          maxLength={100}
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </Field>
      <Field label="Description" id="group-description">
        <input
          id="group-description"
          maxLength={500}
          value={description}
          onChange={(event) => setDescription(event.target.value)}
        />
      </Field>
      <button type="submit" className="primary" disabled={create.isPending}>
        Create group
      </button>
      <ErrorNotice error={create.error} title="Not created" />
    </form>
  );
}

export default function Contacts() {
  const session = useSignedIn();
  const sends = canDo(session, "send");
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [confirming, setConfirming] = useState<number>();
  const groups = useQuery({
    queryKey: ["groups", page],
    queryFn: () => paged<ContactGroup>("/api/v2/groups", { page, per_page: 25 }),
  });
  const remove = useMutation({
    mutationFn: (id: number) => data(`/api/v2/groups/${id}`, { method: "DELETE" }),
    onSuccess: () => {
      setConfirming(undefined);
      void queryClient.invalidateQueries({ queryKey: ["groups"] });
    },
  });
  return (
    <>
      <PageTitle>Contacts</PageTitle>
      <ErrorNotice error={groups.error} />
      <ErrorNotice error={remove.error} title="Not deleted" />
      {groups.isPending ? <Busy /> : null}
      {groups.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="groups">
              <caption>Contact groups, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Contacts</th>
                  <th scope="col">Created</th>
                  {sends ? <th scope="col">Delete</th> : null}
                </tr>
              </thead>
              <tbody>
                {groups.data.data.map((group) => (
                  <tr key={group.id}>
                    <td>
                      <Link to={`/contacts/${group.id}`}>{group.name}</Link>
                      {group.description ? <span className="hint"> {group.description}</span> : null}
                    </td>
                    <td>{formatNumber(group.contacts)}</td>
                    <td>{formatTime(group.created_at, session.time_zone)}</td>
                    {sends ? (
                      <td>
                        {confirming === group.id ? (
                          <>
                            <button type="button" className="danger" onClick={() => remove.mutate(group.id)}>
                              Confirm: delete <span className="visually-hidden">{group.name}</span>
                              <span aria-hidden="true">this group</span> and its contacts
                            </button>{" "}
                            <button type="button" onClick={() => setConfirming(undefined)}>
                              Keep it
                            </button>
                          </>
                        ) : (
                          <button type="button" onClick={() => setConfirming(group.id)}>
                            Delete<span className="visually-hidden"> {group.name}</span>
                          </button>
                        )}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {groups.data.data.length === 0 ? <p>No group yet.</p> : null}
          <Pager meta={groups.data.meta} onPage={setPage} />
        </>
      ) : null}
      <section aria-labelledby="new-group-title">
        <h2 id="new-group-title">New group</h2>
        {sends ? (
          <NewGroupForm
            onCreated={(group) => {
              void queryClient.invalidateQueries({ queryKey: ["groups"] });
              navigate(`/contacts/${group.id}`);
            }}
          />
        ) : (
          <RoleNote role={session.user_role} what="making groups and uploading contacts" capability="send" />
        )}
      </section>
    </>
  );
}
