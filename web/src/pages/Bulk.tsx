// Bulk: one text to a contact group, or to a list uploaded as CSV (into a new group, with the
// upload's progress), started as a bulk job once its preview (recipients, segments, cost) is
// confirmed; the account's jobs a page at a time.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { data, paged } from "../api.js";
import { bulkJobState, scheduledWords } from "../bulk-state.js";
import { CsvUpload } from "../csv-upload.js";
import { formatNumber, formatTime, formatWallClock, plural, wallClockNow, walletName, zoneLabel } from "../format.js";
import { Link, navigate, useLocation } from "../router.js";
import { useSignedIn } from "../session.js";
import type { BulkAccepted, BulkJobWithSummary, BulkPreview, ContactGroup, SenderId } from "../types.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, StatusBadge } from "../ui.js";
import { SmsCounter } from "./Send.js";

function Jobs() {
  const session = useSignedIn();
  const [page, setPage] = useState(1);
  const jobs = useQuery({
    queryKey: ["bulk-jobs", page],
    queryFn: () => paged<BulkJobWithSummary>("/api/v2/bulk-jobs", { page, per_page: 25 }),
    refetchInterval: 5_000,
  });
  return (
    <section aria-labelledby="jobs-title">
      <h2 id="jobs-title">Jobs</h2>
      <ErrorNotice error={jobs.error} />
      {jobs.isPending ? <Busy /> : null}
      {jobs.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="jobs">
              <caption>Bulk jobs, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Status</th>
                  <th scope="col">Messages</th>
                  <th scope="col">Delivered</th>
                  <th scope="col">Failed</th>
                  <th scope="col">Cancelled</th>
                </tr>
              </thead>
              <tbody>
                {jobs.data.data.map((job) => (
                  <tr key={job.id} data-testid={`job-row-${job.id}`}>
                    <td>
                      <Link to={`/bulk/${job.id}`}>{formatTime(job.created_at, session.time_zone)}</Link>
                    </td>
                    <td>
                      <StatusBadge status={bulkJobState(job, job.delivery_summary)} />
                      {scheduledWords(job, session.time_zone) ? (
                        <span className="hint"> {scheduledWords(job, session.time_zone)}</span>
                      ) : null}
                    </td>
                    <td>{formatNumber(job.total)}</td>
                    <td>{formatNumber(job.delivery_summary.delivered)}</td>
                    <td>{formatNumber(job.delivery_summary.failed)}</td>
                    <td>{formatNumber(job.delivery_summary.cancelled)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {jobs.data.data.length === 0 ? <p>No bulk job yet.</p> : null}
          <Pager meta={jobs.data.meta} onPage={setPage} />
        </>
      ) : null}
    </section>
  );
}

export default function Bulk() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const { query } = useLocation();
  const [groupId, setGroupId] = useState(query.get("group") ?? "");
  const [sender, setSender] = useState("");
  const [route, setRoute] = useState("transactional");
  const [message, setMessage] = useState("");
  const [scheduleAt, setScheduleAt] = useState("");
  const groups = useQuery({
    queryKey: ["groups", "all"],
    queryFn: () => paged<ContactGroup>("/api/v2/groups", { per_page: 100 }),
  });
  const senders = useQuery({
    queryKey: ["sender-ids", "approved"],
    queryFn: () => data<SenderId[]>("/api/v2/sender-ids?status=approved"),
  });
  const chosenSender = sender || senders.data?.[0]?.sender_id || "";
  const body = {
    group_id: Number(groupId),
    sender_id: chosenSender,
    route,
    message,
    ...(scheduleAt ? { schedule_at: `${scheduleAt.replace("T", " ")}:00`.slice(0, 19) } : {}),
  };
  // What the job would send and charge, asked of the gateway before anything is sent.
  const preview = useMutation({
    mutationFn: () => data<BulkPreview>("/api/v2/sms/bulk/preview", { json: body }),
  });
  const start = useMutation({
    mutationFn: () => data<BulkAccepted>("/api/v2/sms/bulk", { json: body }),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: ["bulk-jobs"] });
      navigate(`/bulk/${answer.job_id}`);
    },
  });
  const { reset } = preview;
  // A preview is of what the form said then: any change asks for a new one.
  // biome-ignore lint/correctness/useExhaustiveDependencies: each input the preview was of
  useEffect(() => reset(), [reset, groupId, chosenSender, route, message, scheduleAt]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    preview.mutate();
  };

  return (
    <>
      <PageTitle>Bulk</PageTitle>
      <section aria-labelledby="list-title">
        <h2 id="list-title">1. The recipients</h2>
        <Field label="Contact group" id="bulk-group">
          <select id="bulk-group" value={groupId} onChange={(event) => setGroupId(event.target.value)}>
            <option value="">Choose a group…</option>
            {groupId && groups.data && !groups.data.data.some((group) => String(group.id) === groupId) ? (
              // A group past the first 100 (opened from its own page) or one just uploaded.
              <option value={groupId}>Group {groupId}</option>
            ) : null}
            {(groups.data?.data ?? []).map((group) => (
              <option key={group.id} value={group.id}>
                {group.name} ({plural(group.contacts, "contact")})
              </option>
            ))}
          </select>
        </Field>
        <ErrorNotice error={groups.error} title="Groups" />
        <details>
          <summary>Or upload a CSV file as a new group</summary>
          <CsvUpload
            id="bulk-file"
            label="Upload the list"
            target={async (file) => {
              // In the account's zone, as the console writes every time.
              const stamp = formatTime(new Date(), session.time_zone);
              const group = await data<ContactGroup>("/api/v2/groups", {
                json: { name: `${file.name.slice(0, 70)} ${stamp}` },
              });
              setGroupId(String(group.id));
              return group.id;
            }}
            onUploaded={() => void queryClient.invalidateQueries({ queryKey: ["groups"] })}
          />
        </details>
      </section>
      <form onSubmit={submit} aria-labelledby="message-title">
        <h2 id="message-title">2. The message</h2>
        <Field label="Sender ID" id="bulk-sender">
          <select id="bulk-sender" value={chosenSender} onChange={(event) => setSender(event.target.value)}>
            {(senders.data ?? []).map((s) => (
              <option key={s.sender_id} value={s.sender_id}>
                {s.sender_id}
              </option>
            ))}
          </select>
        </Field>
        <ErrorNotice error={senders.error} title="Sender IDs" />
        <Field label="Route" id="bulk-route">
          <select id="bulk-route" value={route} onChange={(event) => setRoute(event.target.value)}>
            <option value="transactional">Transactional</option>
            <option value="promotional">Promotional</option>
          </select>
        </Field>
        <Field label="Message" id="bulk-message">
          <textarea
            id="bulk-message"
            rows={4}
            required
            value={message}
            aria-describedby="bulk-counter"
            onChange={(event) => setMessage(event.target.value)}
          />
        </Field>
        <div id="bulk-counter">
          <SmsCounter text={message} unicode={false} />
        </div>
        <Field label="Send at (optional)" id="bulk-schedule" hint="In the account's time zone; empty sends now">
          <input
            id="bulk-schedule"
            type="datetime-local"
            aria-describedby="bulk-schedule-hint"
            value={scheduleAt}
            onChange={(event) => setScheduleAt(event.target.value)}
          />
        </Field>
        {preview.data ? null : (
          <button type="submit" className="primary" disabled={!groupId || preview.isPending}>
            Start bulk job…
          </button>
        )}
        <ErrorNotice error={preview.error} title="Not started" />
        {preview.data ? (
          <BulkConfirmation
            preview={preview.data}
            starting={start.isPending}
            onStart={() => start.mutate()}
            onBack={() => preview.reset()}
            sendAt={
              scheduleAt
                ? {
                    label: `${formatWallClock(scheduleAt)} (${zoneLabel(session.time_zone)})`,
                    past: scheduleAt <= wallClockNow(session.time_zone),
                  }
                : undefined
            }
          />
        ) : null}
        <ErrorNotice error={start.error} title="Not started" />
      </form>
      <Jobs />
    </>
  );
}

/** The job as the gateway would run it, and the one button that starts it. */
function BulkConfirmation({
  preview,
  starting,
  onStart,
  onBack,
  sendAt,
}: {
  preview: BulkPreview;
  starting: boolean;
  onStart: () => void;
  onBack: () => void;
  /** The "Send at" asked for, and whether it has passed (the gateway then sends at once). */
  sendAt: { label: string; past: boolean } | undefined;
}) {
  const short = preview.credits > preview.balance;
  return (
    <section className="notice" aria-labelledby="confirm-title" data-testid="bulk-preview">
      <h3 id="confirm-title">Check before sending</h3>
      <ul>
        <li data-testid="preview-when">
          {!sendAt
            ? "Sent now"
            : sendAt.past
              ? `Sent now: ${sendAt.label} has passed`
              : `Scheduled for ${sendAt.label}`}
        </li>
        <li data-testid="preview-recipients">
          {plural(preview.accepted, "recipient")} of {formatNumber(preview.total)}
          {preview.rejected_count > 0 ? ` (${formatNumber(preview.rejected_count)} refused)` : ""}
        </li>
        <li data-testid="preview-segments">
          {plural(preview.segments_per_message, "segment")} a message, {plural(preview.segments, "segment")} in all
        </li>
        <li data-testid="preview-cost">
          {plural(preview.credits, "credit")} from the {walletName(preview.wallet)} wallet, which holds{" "}
          {formatNumber(preview.balance)}
        </li>
      </ul>
      {preview.rejected.length > 0 ? (
        <details>
          <summary>Refused recipients</summary>
          <ul>
            {preview.rejected.slice(0, 20).map((r) => (
              <li key={r.recipient}>
                {r.recipient}: {r.error.message} <code>{r.error.code}</code>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {short ? <p className="warn">The wallet holds too little: the gateway would refuse this job.</p> : null}
      <div className="actions">
        <button type="button" className="primary" disabled={starting || preview.accepted === 0} onClick={onStart}>
          Confirm: {sendAt && !sendAt.past ? "schedule" : "send"} to {plural(preview.accepted, "recipient")} for{" "}
          {plural(preview.credits, "credit")}
        </button>
        <button type="button" onClick={onBack}>
          Change something
        </button>
      </div>
    </section>
  );
}
