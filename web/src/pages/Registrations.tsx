// What the account registers and the operator approves before it counts: sender IDs, DLT
// entity IDs and headers, email sending domains (with the DKIM record to publish) and voice
// caller numbers. Each list with its state (a rejected one with the operator's reason), and a
// request for a new one.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, type ReactNode, useEffect, useState } from "react";
import { data } from "../api.js";
import { formatTime } from "../format.js";
import { canDo, useSignedIn } from "../session.js";
import type { CallerId, DltRegistrations, EmailDomain, SenderIdRequest } from "../types.js";
import {
  Busy,
  ErrorNotice,
  Field,
  Pager,
  PageTitle,
  RejectionReason,
  RoleNote,
  StatusBadge,
  Success,
  useClientPages,
} from "../ui.js";

interface Registration {
  id: number | string;
  value: string;
  status: string;
  /** The operator's reason, when it was rejected with one. */
  rejection_reason?: string | null;
  created_at: string;
  extra?: ReactNode;
}

function RegistrationSection({
  id,
  title,
  what,
  load,
  ask,
  hint,
  extraField,
}: {
  id: string;
  title: string;
  /** The field's label, e.g. "Sender ID". */
  what: string;
  load: () => Promise<Registration[]>;
  ask: (value: string) => Promise<unknown>;
  hint?: string;
  /** Another field of the request, before the value (the DLT entity of a link). */
  extraField?: ReactNode;
}) {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [value, setValue] = useState("");
  const list = useQuery({ queryKey: ["registrations", id], queryFn: load });
  const pages = useClientPages(list.data, 10);
  const request = useMutation({
    mutationFn: () => ask(value.trim()),
    onSuccess: () => {
      setValue("");
      void queryClient.invalidateQueries({ queryKey: ["registrations", id] });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    request.mutate();
  };
  return (
    <section id={id} aria-labelledby={`${id}-title`} data-testid={`registrations-${id}`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data?.length === 0 ? <p>None yet.</p> : null}
      {list.data && list.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption>{title}, oldest first</caption>
            <thead>
              <tr>
                <th scope="col">{what}</th>
                <th scope="col">Status</th>
                <th scope="col">Asked</th>
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((row) => (
                <tr key={row.id}>
                  <td>
                    <code>{row.value}</code>
                    {row.extra}
                  </td>
                  <td>
                    <StatusBadge status={row.status} />
                    <RejectionReason row={row} />
                  </td>
                  <td>{formatTime(row.created_at, session.time_zone)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
      {canDo(session, "send") ? (
        <form onSubmit={submit} aria-label={`Ask for a ${what}`} className="inline-form">
          {extraField}
          <Field label={`New ${what}`} id={`${id}-new`} hint={hint}>
            <input
              id={`${id}-new`}
              required
              value={value}
              {...(hint ? { "aria-describedby": `${id}-new-hint` } : {})}
              onChange={(event) => setValue(event.target.value)}
            />
          </Field>
          <button type="submit" disabled={request.isPending}>
            Ask for approval
          </button>
        </form>
      ) : null}
      <ErrorNotice error={request.error} title="Not asked" />
      {request.isSuccess ? <Success>Asked; it waits for the operator's approval.</Success> : null}
    </section>
  );
}

/** Links and callback numbers are an entity's: the request names one of the account's entities. */
function DltLinkSection({ kind }: { kind: "urls" | "callbacks" }) {
  const entities = useQuery({
    queryKey: ["registrations", "dlt-link-entities"],
    queryFn: () => data<DltRegistrations>("/api/v2/dlt"),
  });
  const [entity, setEntity] = useState("");
  const ids = (entities.data?.entities ?? []).map((e) => e.entity_id);
  const chosen = entity || ids[0] || "";
  const id = `dlt-${kind}`;
  const extraField = (
    <Field label="DLT entity" id={`${id}-entity`}>
      <select id={`${id}-entity`} value={chosen} onChange={(event) => setEntity(event.target.value)}>
        {ids.map((e) => (
          <option key={e} value={e}>
            {e}
          </option>
        ))}
      </select>
    </Field>
  );
  const url = kind === "urls";
  return (
    <RegistrationSection
      id={id}
      title={url ? "DLT links (URLs, APK and OTT links)" : "DLT callback numbers"}
      what={url ? "link" : "callback number"}
      hint={
        url
          ? "Every link in an SMS must be approved for its entity; a prefix ends in / or ?"
          : "Every phone number in an SMS must be approved for its entity"
      }
      extraField={extraField}
      load={async () => {
        const dlt = await data<DltRegistrations>("/api/v2/dlt");
        return (url ? dlt.urls : dlt.callbacks).map((l) => ({
          ...l,
          value: l.url ?? l.number ?? "",
          extra: <span className="hint"> entity {l.entity_id}</span>,
        }));
      }}
      ask={(value) => data(`/api/v2/dlt/${kind}`, { json: { entity_id: chosen, [url ? "url" : "number"]: value } })}
    />
  );
}

export default function Registrations() {
  const session = useSignedIn();
  // A link to one section (/registrations#email-domains, from Send › Email) opens at it; the
  // browser's scroll anchoring keeps it there while the lists above it load.
  useEffect(() => {
    const target = window.location.hash.slice(1);
    if (target) document.getElementById(target)?.scrollIntoView({ block: "start" });
  }, []);
  return (
    <>
      <PageTitle>Registrations</PageTitle>
      <p>
        Each waits as <em>pending</em> until the operator approves it; only approved ones count for sends.
      </p>
      {canDo(session, "send") ? null : (
        <RoleNote role={session.user_role} what="asking for a registration" capability="send" />
      )}
      <RegistrationSection
        id="sender-ids"
        title="Sender IDs"
        what="sender ID"
        hint="6 letters for Indian routes, as registered on DLT"
        load={async () =>
          (await data<SenderIdRequest[]>("/api/v2/sender-id-requests")).map((s) => ({ ...s, value: s.sender_id }))
        }
        ask={(value) => data("/api/v2/sender-id-requests", { json: { sender_id: value } })}
      />
      <RegistrationSection
        id="dlt-entities"
        title="DLT entity IDs"
        what="entity ID"
        hint="Your principal entity ID on DLT (usually 19 digits)"
        load={async () => {
          const dlt = await data<DltRegistrations>("/api/v2/dlt");
          return dlt.entities.map((e) => ({ ...e, value: e.entity_id }));
        }}
        ask={(value) => data("/api/v2/dlt/entities", { json: { entity_id: value } })}
      />
      <RegistrationSection
        id="dlt-headers"
        title="DLT headers"
        what="header"
        hint="3 to 11 letters or digits, as registered on DLT"
        load={async () => {
          const dlt = await data<DltRegistrations>("/api/v2/dlt");
          return dlt.headers.map((h) => ({ ...h, value: h.header }));
        }}
        ask={(value) => data("/api/v2/dlt/headers", { json: { header: value } })}
      />
      <DltLinkSection kind="urls" />
      <DltLinkSection kind="callbacks" />
      <RegistrationSection
        id="email-domains"
        title="Email sending domains"
        what="domain"
        hint="Mail goes out from addresses of an approved domain, signed with its DKIM key"
        load={async () =>
          (await data<EmailDomain[]>("/api/v2/email/domains")).map((d) => ({
            id: d.domain,
            value: d.domain,
            status: d.status,
            rejection_reason: d.rejection_reason,
            created_at: d.created_at,
            extra: (
              <span className="hint">
                {" "}
                Publish {d.dkim.record_type} <code>{d.dkim.record_name}</code>
              </span>
            ),
          }))
        }
        ask={(value) => data("/api/v2/email/domains", { json: { domain: value } })}
      />
      <RegistrationSection
        id="caller-ids"
        title="Voice caller numbers"
        what="caller number"
        hint="With its country code, e.g. +91 80 4711 0000"
        load={async () => (await data<CallerId[]>("/api/v2/voice/caller-ids")).map((c) => ({ ...c, value: c.number }))}
        ask={(value) => data("/api/v2/voice/caller-ids", { json: { number: value } })}
      />
    </>
  );
}
