// Every account's messages for the operator's support desk (GET /admin/api/messages): the account
// list's filters (an id: the message's, its broadcast's or the carrier's, a time of day beside
// each date) plus account, connector, error code and route, newest first; "More" follows the
// cursor and adds the next page below. Each row opens the operator's page of the message. The
// filters live in the address, so an account's page links here pre-filtered, and the exports
// take the same filters. A search by recipient links to the refusals to it.
import { useInfiniteQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { request, withQuery } from "../../api.js";
import { ExportLinks } from "../../exports.js";
import { formatTime, zoneLabel } from "../../format.js";
import type { OperatorMessagePage } from "../../operator-types.js";
import { Link, navigate, useLocation } from "../../router.js";
import { useSignedIn } from "../../session.js";
import { BoundFields } from "../../time-filter.js";
import { Busy, ErrorNotice, Field, PageTitle, StatusBadge } from "../../ui.js";
import { RefusedSendsNote } from "../Refusals.js";

const STATUSES = ["", "scheduled", "queued", "submitted", "delivered", "failed", "cancelled", "sent", "read"];
const CHANNELS = ["", "sms", "whatsapp", "email", "voice"];
const ROUTES = ["", "T", "P", "PS", "I", "V", "whatsapp", "email"];
const PAGE = 50;

const FILTERS = [
  "id",
  "account",
  "status",
  "channel",
  "recipient",
  "connector",
  "error_code",
  "route",
  "from",
  "to",
] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

const TEXT_FIELDS: { name: keyof Filters; label: string; hint?: string }[] = [
  { name: "id", label: "Id", hint: "A message id, a broadcast id or the carrier's id" },
  { name: "account", label: "Account (username)" },
  { name: "recipient", label: "Recipient", hint: "A number or an email address" },
  { name: "connector", label: "Connector", hint: "Comma-separated for several" },
  { name: "error_code", label: "Error code", hint: "UNDELIV, rejected, no_route…" },
];

export default function OperatorMessages() {
  const { query } = useLocation();
  const filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""])) as Filters;
  // A new address (a link, Back, a search) starts the form and the list afresh from its filters.
  return <MessageSearch key={withQuery("", filters)} filters={filters} />;
}

function MessageSearch({ filters }: { filters: Filters }) {
  const session = useSignedIn();
  const [draft, setDraft] = useState(filters);
  const key = withQuery("/admin/api/messages", filters);
  const list = useInfiniteQuery({
    queryKey: ["operator", "messages", key],
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      request<OperatorMessagePage>(withQuery("/admin/api/messages", { ...filters, limit: PAGE, cursor: pageParam })),
    getNextPageParam: (last) => last.meta.next_cursor ?? undefined,
  });
  const rows = list.data?.pages.flatMap((page) => page.data) ?? [];

  const apply = (event: FormEvent) => {
    event.preventDefault();
    navigate(withQuery("/operator/messages", draft));
  };
  const set = (name: keyof Filters, value: string) => setDraft({ ...draft, [name]: value });
  const select = (name: keyof Filters, label: string, options: string[]) => (
    <Field label={label} id={`filter-${name}`}>
      <select id={`filter-${name}`} value={draft[name]} onChange={(event) => set(name, event.target.value)}>
        {options.map((option) => (
          <option key={option} value={option}>
            {option || "Any"}
          </option>
        ))}
      </select>
    </Field>
  );

  return (
    <>
      <PageTitle>{filters.account ? `Messages of ${filters.account}` : "All messages"}</PageTitle>
      <form className="filters" onSubmit={apply} aria-label="Filter every account's messages">
        {TEXT_FIELDS.map((field) => (
          <Field key={field.name} label={field.label} id={`filter-${field.name}`} hint={field.hint}>
            <input
              id={`filter-${field.name}`}
              value={draft[field.name]}
              aria-describedby={field.hint ? `filter-${field.name}-hint` : undefined}
              onChange={(event) => set(field.name, event.target.value)}
            />
          </Field>
        ))}
        {select("status", "Status", STATUSES)}
        {select("channel", "Channel", CHANNELS)}
        {select("route", "Route", ROUTES)}
        <BoundFields
          bound="from"
          id="filter-from"
          value={draft.from}
          timeZone={session.time_zone}
          onChange={(value) => set("from", value)}
        />
        <BoundFields
          bound="to"
          id="filter-to"
          value={draft.to}
          timeZone={session.time_zone}
          onChange={(value) => set("to", value)}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ExportLinks path="/admin/api/messages/export" filters={filters} what="Export these messages" />
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <>
          <div className="table-wrap">
            <table className="messages" data-testid="operator-messages">
              <caption>Messages, newest first ({rows.length} shown)</caption>
              <thead>
                <tr>
                  <th scope="col">Accepted ({zoneLabel(session.time_zone)})</th>
                  <th scope="col">Account</th>
                  <th scope="col">To</th>
                  <th scope="col">Route</th>
                  <th scope="col">Status</th>
                  <th scope="col">Text</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((message) => (
                  <tr key={message.message_id}>
                    <td>
                      <Link to={`/operator/messages/${message.message_id}`}>
                        {formatTime(message.created_at, session.time_zone)}
                      </Link>
                    </td>
                    <td>{message.account ?? ""}</td>
                    <td>{message.mobile}</td>
                    <td>{message.route}</td>
                    <td>
                      <StatusBadge status={message.status} />
                      {message.error ? <span className="hint"> {message.error.code}</span> : null}
                    </td>
                    <td className="text-cell">{message.message}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {filters.recipient.trim() ? (
            <RefusedSendsNote
              recipient={filters.recipient.trim()}
              found={rows.length > 0}
              refusals={withQuery("/operator/refusals", {
                recipient: filters.recipient.trim(),
                account: filters.account.trim(),
              })}
            />
          ) : rows.length === 0 ? (
            <p>No messages match.</p>
          ) : null}
          {list.hasNextPage ? (
            <button type="button" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
              {list.isFetchingNextPage ? "Loading more…" : "More"}
            </button>
          ) : null}
        </>
      ) : null}
    </>
  );
}
