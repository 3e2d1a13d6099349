// Inbound SMS: the messages received on the account's numbers, and its keywords (a reply, or
// only a tally) with a new one pending the operator's approval.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { data, paged } from "../api.js";
import { formatTime } from "../format.js";
import { Link } from "../router.js";
import { canDo, useSignedIn } from "../session.js";
import type { InboundMessage, Keyword } from "../types.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, RoleNote, StatusBadge, Success } from "../ui.js";

export function KeywordForm({ onCreated }: { onCreated: () => void }) {
  const [key, setKey] = useState("");
  const [responseType, setResponseType] = useState<"static" | "none">("static");
  const [reply, setReply] = useState("");
  const create = useMutation({
    mutationFn: () =>
      data<Keyword>("/api/v2/keywords", {
        json: { key, response_type: responseType, ...(responseType === "static" ? { static_message: reply } : {}) },
      }),
    onSuccess: () => {
      setKey("");
      setReply("");
      onCreated();
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate();
  };
  return (
    <form onSubmit={submit} aria-label="Register a keyword">
      <Field
        label="Keyword"
        id="keyword-key"
        hint="One word of letters or digits; the first word of a message matches it"
      >
        <input
          id="keyword-key"
          required
          maxLength={30}
          aria-describedby="keyword-key-hint"
          value={key}
          onChange={(event) => setKey(event.target.value)}
        />
      </Field>
      <Field label="Response" id="keyword-type">
        <select
          id="keyword-type"
          value={responseType}
          onChange={(event) => setResponseType(event.target.value as "static" | "none")}
        >
          <option value="static">Reply with a text</option>
          <option value="none">No reply (only record the messages)</option>
        </select>
      </Field>
      {responseType === "static" ? (
        <Field label="Reply" id="keyword-reply">
          <textarea
            id="keyword-reply"
            rows={2}
            required
            value={reply}
            onChange={(event) => setReply(event.target.value)}
          />
        </Field>
      ) : null}
      <button type="submit" className="primary" disabled={create.isPending}>
        Register keyword
      </button>
      <ErrorNotice error={create.error} title="Not registered" />
      {create.data ? (
        <Success>Keyword {create.data.key} registered; it waits for the operator's approval.</Success>
      ) : null}
    </form>
  );
}

function Keywords() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const keywords = useQuery({
    queryKey: ["keywords", page],
    queryFn: () => paged<Keyword>("/api/v2/keywords", { page, per_page: 25 }),
  });
  return (
    <section aria-labelledby="keywords-title">
      <h2 id="keywords-title">Keywords</h2>
      <ErrorNotice error={keywords.error} />
      {keywords.isPending ? <Busy /> : null}
      {keywords.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="keywords">
              <caption>Keywords, oldest first</caption>
              <thead>
                <tr>
                  <th scope="col">Keyword</th>
                  <th scope="col">Reply</th>
                  <th scope="col">Status</th>
                  <th scope="col">Registered</th>
                </tr>
              </thead>
              <tbody>
                {keywords.data.data.map((keyword) => (
                  <tr key={keyword.id}>
                    <td>
                      <code>{keyword.key}</code>
                    </td>
                    <td className="text-cell">{keyword.static_message ?? "no reply"}</td>
                    <td>
                      <StatusBadge status={keyword.status} />
                    </td>
                    <td>{formatTime(keyword.created_at, session.time_zone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {keywords.data.data.length === 0 ? <p>No keyword yet.</p> : null}
          <Pager meta={keywords.data.meta} onPage={setPage} />
        </>
      ) : null}
      <h3>New keyword</h3>
      {canDo(session, "send") ? (
        <KeywordForm onCreated={() => void queryClient.invalidateQueries({ queryKey: ["keywords"] })} />
      ) : (
        <RoleNote role={session.user_role} what="registering a keyword" capability="send" />
      )}
    </section>
  );
}

export default function Inbound() {
  const session = useSignedIn();
  const [page, setPage] = useState(1);
  const inbound = useQuery({
    queryKey: ["inbound", page],
    queryFn: () => paged<InboundMessage>("/api/v2/inbound", { page, per_page: 50 }),
    refetchInterval: 10_000,
  });
  return (
    <>
      <PageTitle>Inbound</PageTitle>
      <section aria-labelledby="received-title">
        <h2 id="received-title">Received messages</h2>
        <ErrorNotice error={inbound.error} />
        {inbound.isPending ? <Busy /> : null}
        {inbound.data ? (
          <>
            <div className="table-wrap">
              <table data-testid="inbound">
                <caption>Messages received on the account's numbers, newest first</caption>
                <thead>
                  <tr>
                    <th scope="col">Received</th>
                    <th scope="col">From</th>
                    <th scope="col">To</th>
                    <th scope="col">Message</th>
                    <th scope="col">Keyword and reply</th>
                  </tr>
                </thead>
                <tbody>
                  {inbound.data.data.map((message) => (
                    <tr key={message.id}>
                      <td>{formatTime(message.received_at, session.time_zone)}</td>
                      <td>{message.from}</td>
                      <td>{message.to}</td>
                      <td className="text-cell">{message.message}</td>
                      <td>
                        {message.keyword ?? "none"}
                        {message.reply_message_id ? (
                          <>
                            {" "}
                            · <Link to={`/messages/${message.reply_message_id}`}>reply</Link>
                          </>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {inbound.data.data.length === 0 ? <p>Nothing received yet.</p> : null}
            <Pager meta={inbound.data.meta} onPage={setPage} />
          </>
        ) : null}
      </section>
      <Keywords />
    </>
  );
}
