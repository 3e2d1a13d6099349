// GET /api/v2/messages with its filters, a search by number, message id or broadcast id,
// and its cursor pagination (Next follows next_cursor; Previous goes back one page). A choice
// (channel, status, a date or a time of day) applies at once; the search text when it is searched.
// ?subaccount= (a reseller's link from Sub-accounts, `via` the levels above it) lists that
// sub-account's messages instead (any account below the reseller), each opening its message page,
// under its trail from the top (the levels the list's answer names, without `via` too), with links
// to its refused sends and back to the list of sub-accounts that holds it (with `back=own`, its own
// list the link came from). A blank ?subaccount= is the reader's own list.
// A search by number links to the refusals to that number (a refused send is not a message); a
// search by message id that lists nothing offers its page, which finds a sub-account's message too.
import { useQuery } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { request, withQuery } from "../api.js";
import { ExportLinks } from "../exports.js";
import { formatTime, plural, zoneLabel } from "../format.js";
import { Link, navigate, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import { BoundFields } from "../time-filter.js";
import type { MessagePage } from "../types.js";
import { Busy, CursorPager, ErrorNotice, Field, PageTitle, StatusBadge } from "../ui.js";
import { RefusedSendsNote } from "./Refusals.js";
import { BackToTree, ofSubAccount, subaccountOf, TreeTrail, trailLink, useTrail, viaPath } from "./subaccount-trail.js";

const STATUSES = ["", "scheduled", "queued", "submitted", "delivered", "failed", "cancelled", "sent", "read"];
const CHANNELS = ["", "sms", "whatsapp", "email", "voice"];
const PAGE = 25;

/** What the search box holds, as the list's filters: an id, a broadcast id or a recipient. */
export function searchFilter(search: string): Record<string, string> {
  const text = search.trim();
  if (!text) return {};
  if (/^q[0-9a-z]{26}$/i.test(text)) return { id: text };
  if (/^\d+_\d{8}_\d+$/.test(text)) return { broadcast_id: text };
  if (/^[+\d][\d\s()-]*$/.test(text) || text.includes("@")) return { recipient: text };
  return { id: text };
}

export default function Messages() {
  const session = useSignedIn();
  const { query } = useLocation();
  const filters = {
    channel: query.get("channel") ?? "",
    status: query.get("status") ?? "",
    q: query.get("q") ?? "",
    from: query.get("from") ?? "",
    to: query.get("to") ?? "",
    subaccount: subaccountOf(query),
  };
  const searched = searchFilter(filters.q);
  const [draft, setDraft] = useState(filters);
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];

  const path = withQuery("/api/v2/messages", {
    channel: filters.channel,
    status: filters.status,
    from: filters.from,
    to: filters.to,
    subaccount: filters.subaccount,
    limit: PAGE,
    cursor,
    ...searched,
  });
  const list = useQuery({ queryKey: ["messages", "list", path], queryFn: () => request<MessagePage>(path) });
  const { trail, wayBack, known } = useTrail(list);

  /** Shows the list these filters give, from its first page. */
  const show = (next: typeof draft) => {
    setDraft(next);
    setCursors([]);
    navigate(withQuery(next.subaccount ? viaPath("/messages", trail, wayBack) : "/messages", next));
  };
  const apply = (event: FormEvent) => {
    event.preventDefault();
    show(draft);
  };

  return (
    <>
      <PageTitle>{filters.subaccount ? `Messages of ${filters.subaccount}` : "Messages"}</PageTitle>
      {trail.length > 0 && known ? <TreeTrail trail={trail} page="messages" /> : null}
      {filters.subaccount && known ? (
        <p data-testid="subaccount-filter">
          {ofSubAccount(trail, "messages")} · <Link to={trailLink("/refusals", trail, wayBack)}>its refused sends</Link>{" "}
          · <BackToTree trail={trail} wayBack={wayBack} /> ·{" "}
          <a
            href="/messages"
            onClick={(event) => {
              event.preventDefault();
              show({ ...draft, subaccount: "" });
            }}
          >
            Your own messages
          </a>
        </p>
      ) : null}
      <form className="filters" onSubmit={apply} aria-label="Filter messages">
        <Field label="Search" id="search" hint="A number, an email address, a message id or a broadcast id">
          <input
            id="search"
            type="search"
            value={draft.q}
            aria-describedby="search-hint"
            onChange={(event) => setDraft({ ...draft, q: event.target.value })}
          />
        </Field>
        <Field label="Channel" id="channel">
          <select
            id="channel"
            value={draft.channel}
            onChange={(event) => show({ ...draft, channel: event.target.value })}
          >
            {CHANNELS.map((channel) => (
              <option key={channel} value={channel}>
                {channel || "Any"}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Status" id="status">
          <select id="status" value={draft.status} onChange={(event) => show({ ...draft, status: event.target.value })}>
            {STATUSES.map((status) => (
              <option key={status} value={status}>
                {status || "Any"}
              </option>
            ))}
          </select>
        </Field>
        <BoundFields
          bound="from"
          id="from"
          value={draft.from}
          timeZone={session.time_zone}
          onChange={(from) => show({ ...draft, from })}
        />
        <BoundFields
          bound="to"
          id="to"
          value={draft.to}
          timeZone={session.time_zone}
          onChange={(to) => show({ ...draft, to })}
        />
        <button type="submit" className="primary">
          Search
        </button>
      </form>
      <ExportLinks
        path="/api/v2/messages/export"
        filters={{
          channel: filters.channel,
          status: filters.status,
          from: filters.from,
          to: filters.to,
          subaccount: filters.subaccount,
          ...searched,
        }}
        what="Export these messages"
      />
      <ErrorNotice error={list.error} />
      {list.isPending ? <Busy /> : null}
      {list.data ? (
        <>
          <div className="table-wrap">
            <table className="messages">
              <caption className="visually-hidden">Messages, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Accepted ({zoneLabel(session.time_zone)})</th>
                  <th scope="col">To</th>
                  <th scope="col">Channel</th>
                  <th scope="col">Status</th>
                  <th scope="col">Text</th>
                </tr>
              </thead>
              <tbody>
                {list.data.data.map((message) => (
                  <tr key={message.message_id}>
                    <td>
                      <Link to={viaPath(`/messages/${message.message_id}`, trail, wayBack)}>
                        {formatTime(message.created_at, session.time_zone)}
                      </Link>
                    </td>
                    <td>{message.mobile}</td>
                    <td>{message.channel}</td>
                    <td>
                      <StatusBadge status={message.status} />
                      {message.error ? <span className="hint"> {message.error.code}</span> : null}
                    </td>
                    <td className="text-cell">
                      {message.message}
                      {message.clicks === undefined ? null : (
                        <span className="hint"> {plural(message.clicks, "click")}</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {searched.recipient ? (
            <RefusedSendsNote
              recipient={searched.recipient}
              found={list.data.data.length > 0}
              refusals={withQuery("/refusals", { recipient: searched.recipient, subaccount: filters.subaccount })}
            />
          ) : list.data.data.length === 0 && searched.id && /^q/i.test(searched.id) ? (
            <p data-testid="open-by-id">
              No messages match in this list. A message of one of your sub-accounts opens by its id:{" "}
              <Link to={`/messages/${encodeURIComponent(searched.id)}`}>{searched.id}</Link>.
            </p>
          ) : list.data.data.length === 0 ? (
            <p>No messages match.</p>
          ) : null}
          <CursorPager cursors={cursors} setCursors={setCursors} next={list.data.meta.next_cursor} />
        </>
      ) : null}
    </>
  );
}
