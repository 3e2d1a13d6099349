// One contact group: its contacts a page at a time (by number) and a CSV upload into it with
// its progress and the lines it refused.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { paged } from "../api.js";
import { CsvUpload } from "../csv-upload.js";
import { formatNumber, formatTime } from "../format.js";
import { Link } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { Contact, ContactGroup } from "../types.js";
import { Busy, ErrorNotice, Pager, PageTitle } from "../ui.js";

export default function Group({ params }: { params: Record<string, string> }) {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const id = params.id ?? "";
  const [page, setPage] = useState(1);
  const contacts = useQuery({
    queryKey: ["groups", id, "contacts", page],
    queryFn: () => paged<Contact>(`/api/v2/groups/${encodeURIComponent(id)}/contacts`, { page, per_page: 50 }),
  });
  // There is no GET of one group: its name is found in the list, a page of 100 at a time.
  const group = useQuery({
    queryKey: ["groups", id, "name"],
    queryFn: async () => {
      for (let page = 1; ; page++) {
        const answer = await paged<ContactGroup>("/api/v2/groups", { page, per_page: 100 });
        const found = answer.data.find((g) => String(g.id) === id);
        if (found || page >= answer.meta.last_page) return found ?? null;
      }
    },
  });
  return (
    <>
      <PageTitle>{group.data ? `Contact group ${group.data.name}` : "Contact group"}</PageTitle>
      <p>
        <Link to="/contacts">All groups</Link> ·{" "}
        {canDo(session, "send") ? <Link to={`/bulk?group=${encodeURIComponent(id)}`}>Send to this group</Link> : null}
      </p>
      <ErrorNotice error={contacts.error} />
      {contacts.data && canDo(session, "send") ? (
        <section aria-labelledby="upload-title">
          <h2 id="upload-title">Add contacts from a CSV file</h2>
          <CsvUpload
            id="contacts-file"
            target={async () => Number(id)}
            onUploaded={() => void queryClient.invalidateQueries({ queryKey: ["groups"] })}
          />
        </section>
      ) : null}
      {contacts.isPending ? <Busy /> : null}
      {contacts.data ? (
        <section aria-labelledby="contacts-title">
          <h2 id="contacts-title">Contacts ({formatNumber(contacts.data.meta.total)})</h2>
          <div className="table-wrap">
            <table data-testid="contacts">
              <caption>By number</caption>
              <thead>
                <tr>
                  <th scope="col">Number</th>
                  <th scope="col">Name</th>
                  <th scope="col">Added</th>
                </tr>
              </thead>
              <tbody>
                {contacts.data.data.map((contact) => (
                  <tr key={contact.id}>
                    <td>{contact.number}</td>
                    <td>{contact.name ?? ""}</td>
                    <td>{formatTime(contact.created_at, session.time_zone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager meta={contacts.data.meta} onPage={setPage} />
        </section>
      ) : null}
    </>
  );
}
