// One bulk job: its progress while it runs (queued, submitted, delivered, failed, cancelled),
// read every second until it completes, and cancelling what it has not queued yet.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { data } from "../api.js";
import { bulkJobState, scheduledWords } from "../bulk-state.js";
import { formatNumber, formatTime, plural } from "../format.js";
import { Link } from "../router.js";
import { useSignedIn } from "../session.js";
import type { BulkJobCancellation, BulkJobDetail } from "../types.js";
import { Busy, ErrorNotice, PageTitle, Progress, StatusBadge, Success } from "../ui.js";

export default function BulkJobPage({ params }: { params: Record<string, string> }) {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const id = params.id ?? "";
  const [confirming, setConfirming] = useState(false);
  const key = ["bulk-job", id];
  const detail = useQuery({
    queryKey: key,
    queryFn: () => data<BulkJobDetail>(`/api/v2/bulk-jobs/${encodeURIComponent(id)}`),
    refetchInterval: (query) => (query.state.data?.job.status === "completed" ? false : 1_000),
  });
  const cancel = useMutation({
    mutationFn: () => data<BulkJobCancellation>(`/api/v2/bulk-jobs/${encodeURIComponent(id)}/cancel`, { json: {} }),
    onSuccess: () => {
      setConfirming(false);
      void queryClient.invalidateQueries({ queryKey: key });
    },
  });

  if (detail.error) {
    return (
      <>
        <PageTitle>Bulk job {id}</PageTitle>
        <ErrorNotice error={detail.error} />
        <p>
          <Link to="/bulk">Back to bulk</Link>
        </p>
      </>
    );
  }
  if (!detail.data) return <Busy />;
  const { job, delivery_summary: summary } = detail.data;
  const stages = detail.data.pending_stages;
  const done = summary.delivered + summary.failed + summary.cancelled;
  // What a cancel stops: recipients not queued yet and scheduled messages (queued ones still go).
  const cancellable = stages.not_queued + stages.scheduled;
  const tz = session.time_zone;
  return (
    <>
      <PageTitle>Bulk job {job.id}</PageTitle>
      <p>
        <StatusBadge status={bulkJobState(job, summary)} testId="job-status" /> · from {job.sender_id} · {job.route} ·
        created {formatTime(job.created_at, tz)}
        {scheduledWords(job, tz) ? <strong data-testid="job-send-at"> · {scheduledWords(job, tz)}</strong> : null}
        {job.completed_at ? ` · ended ${formatTime(job.completed_at, tz)}` : ""}
      </p>
      <Progress id="job-progress" label="Progress" value={done} max={summary.total}>
        <span data-testid="job-progress-words">
          {formatNumber(done)} of {formatNumber(summary.total)} final
        </span>
      </Progress>
      <ul className="cards" data-testid="job-counts">
        {(
          [
            ["Not queued yet", stages.not_queued, "not-queued"],
            ["Scheduled", stages.scheduled, "scheduled"],
            ["Queued", stages.queued, "queued"],
            ["Submitted", stages.submitted, "submitted"],
            ["Delivered", summary.delivered, "delivered"],
            ["Failed", summary.failed, "failed"],
            ["Cancelled", summary.cancelled, "cancelled"],
            ["Refused at the start", job.rejected, "rejected"],
          ] as const
        ).map(([label, value, name]) => (
          <li key={name} className="card" data-testid={`job-${name}`}>
            <span className="card-label">{label}</span>
            <span className="card-value">{formatNumber(value)}</span>
          </li>
        ))}
      </ul>
      <p className="hint">
        Not queued yet: recipients the gateway turns into messages as the queue has room. Submitted: handed to a
        carrier, waiting for its report.{" "}
        <span data-testid="job-cost">
          {plural(job.credits, "credit")} charged
          {summary.cancelled > 0
            ? `; the ${plural(summary.cancelled, "cancelled message")} ${summary.cancelled === 1 ? "was" : "were"} refunded (the ledger on Credits lists each refund)`
            : ""}
          .
        </span>
      </p>
      {detail.data.clicks.messages_with_links > 0 ? (
        <p data-testid="job-clicks">
          Tracked short links: {formatNumber(detail.data.clicks.messages_clicked)} of{" "}
          {plural(detail.data.clicks.messages_with_links, "message")} clicked (
          {Math.round(detail.data.clicks.click_through_rate * 1000) / 10}% click-through),{" "}
          {plural(detail.data.clicks.clicks, "click")} in all.
        </p>
      ) : null}
      <p>
        <Link to={`/messages?q=${encodeURIComponent(job.batch_id)}`}>The job's messages</Link> (broadcast id{" "}
        <code>{job.batch_id}</code>)
      </p>
      {job.status !== "completed" ? (
        <p data-testid="job-waiting">
          {cancellable + stages.queued > 0
            ? `Sending: ${formatNumber(stages.not_queued)} not queued yet, ${formatNumber(stages.scheduled)} scheduled, ${formatNumber(stages.queued)} queued for a carrier.`
            : `Waiting only for the carrier's delivery report of ${plural(stages.submitted, "message")} submitted: each ends when its report comes, or fails as expired if none comes within the gateway's validity period. Nothing is left to cancel.`}
        </p>
      ) : null}
      {job.status !== "completed" && cancellable > 0 ? (
        <div className="actions">
          {confirming ? (
            <>
              <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
                Confirm: cancel what is not queued yet
              </button>
              <button type="button" onClick={() => setConfirming(false)}>
                Keep sending
              </button>
            </>
          ) : (
            <button type="button" onClick={() => setConfirming(true)}>
              Cancel the job
            </button>
          )}
        </div>
      ) : null}
      <ErrorNotice error={cancel.error} title="Not cancelled" />
      {cancel.data ? (
        <Success>
          {plural(cancel.data.cancelled, "message")} cancelled, {plural(cancel.data.credits_refunded, "credit")}{" "}
          refunded. Messages already queued for a carrier still go.
        </Success>
      ) : null}
      <p>
        <Link to="/bulk">Back to bulk</Link>
      </p>
    </>
  );
}
