// The operator's one approval queue: what accounts asked for, every kind together or one kind,
// oldest first, each approved or rejected through its own operator call; approving a sender ID
// white-lists it as the account's DLT header too (the operator API's default, decision 0151), as a
// DLT route refuses one that is not a white-listed header.
// Rejecting asks for a reason first (optional), which the account reads on the item. The buttons
// read "Approve" and "Reject" on screen (the row shows the value; a long template name made them
// taller than the screen at 390 px) and name the value to a screen reader (aria-label: a visually hidden span was read with a space before the "…").
// An email domain another account holds (its shared_with, decision 0179) names the holders in the
// row, and its "Approve…" opens a confirmation that names them again; only that form's button sends
// "confirm_shared": true, without which the API refuses the approval.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { data, request, withQuery } from "../../api.js";
import { formatTime } from "../../format.js";
import { APPROVAL_KINDS, type ApprovalItem, type ApprovalKind, type ApprovalQueue } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Field, Pager, PageTitle, Success } from "../../ui.js";

export const KIND_NAMES: Record<ApprovalKind, string> = {
  sender_id: "Sender ID",
  template: "Template",
  keyword: "Keyword",
  dlt_entity: "DLT entity ID",
  dlt_header: "DLT header",
  dlt_url: "DLT link",
  dlt_callback: "DLT callback number",
  email_domain: "Email domain",
  voice_caller_id: "Caller number",
};

/** The longest reason a rejection keeps (the API's limit). */
export const MAX_REASON = 500;

/** The other accounts holding an email domain approved or pending (none for the other kinds). */
export function holdersOf(item: ApprovalItem): string {
  return (item.shared_with ?? []).map((holder) => `${holder.account} (${holder.status})`).join(", ");
}

/**
 * The operator call that decides an item (docs/api.md, "Approval queue"); a rejection's reason,
 * when there is one, goes in its body; an email domain's approval confirmed as shared (once the
 * operator confirmed it) carries confirm_shared.
 */
export function decisionCall(
  item: ApprovalItem,
  approve: boolean,
  reason = "",
  confirmShared = false,
): { path: string; method: string; json?: unknown } {
  const action = approve ? "approve" : "reject";
  const why = !approve && reason.trim() ? { json: { reason: reason.trim() } } : {};
  const post = (path: string) => ({ method: "POST", path: `/admin/api/${path}/${item.id}/${action}`, ...why });
  switch (item.kind) {
    case "sender_id":
      return post("sender-ids");
    case "template":
      return post("templates");
    case "keyword":
      return post("keywords");
    case "dlt_entity":
      return post("dlt/entities");
    case "dlt_header":
      return post("dlt/headers");
    case "dlt_url":
      return post("dlt/urls");
    case "dlt_callback":
      return post("dlt/callbacks");
    case "voice_caller_id":
      return post("voice/caller-ids");
    case "email_domain":
      return {
        method: "PUT",
        path: `/admin/api/accounts/${encodeURIComponent(item.account)}/email/domains/${encodeURIComponent(item.value)}`,
        json: {
          status: approve ? "approved" : "rejected",
          ...(why.json ?? {}),
          ...(approve && confirmShared ? { confirm_shared: true } : {}),
        },
      };
  }
}

/** The row's own form for a rejection: the reason (optional), then the rejection itself. */
function RejectForm({
  item,
  busy,
  onReject,
  onCancel,
}: {
  item: ApprovalItem;
  busy: boolean;
  onReject: (reason: string) => void;
  onCancel: () => void;
}) {
  const [reason, setReason] = useState("");
  const id = `reject-reason-${item.kind}-${item.id}`;
  return (
    <form
      className="reject-form"
      onSubmit={(event) => {
        event.preventDefault();
        onReject(reason);
      }}
    >
      <label htmlFor={id}>Reason for rejecting {item.value} (the account reads it; optional)</label>
      <textarea id={id} rows={2} maxLength={MAX_REASON} value={reason} onChange={(e) => setReason(e.target.value)} />
      <div className="actions">
        <button type="submit" className="danger" disabled={busy} aria-label={`Reject ${item.value}`}>
          Reject
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** The confirmation a shared email domain's approval needs: who else holds it, then the approval. */
function ConfirmShareForm({
  item,
  busy,
  onApprove,
  onCancel,
}: {
  item: ApprovalItem;
  busy: boolean;
  onApprove: () => void;
  onCancel: () => void;
}) {
  const id = `confirm-share-${item.id}`;
  return (
    <form
      className="reject-form"
      aria-labelledby={id}
      onSubmit={(event) => {
        event.preventDefault();
        onApprove();
      }}
    >
      <p id={id} data-testid="confirm-share">
        <strong>{item.value}</strong> is held by another account too: {holdersOf(item)}. Approved, {item.account} sends
        mail signed as {item.value} as well: approve it only if both send for it.
      </p>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy} aria-label={`Approve shared ${item.value}`}>
          Approve shared
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export default function Approvals() {
  const session = useSignedIn();
  /** operator_admin decides; the other staff read the queue (the API refuses them the calls). */
  const decides = canDo(session, "staff_admin");
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<ApprovalKind | "">("");
  const [page, setPage] = useState(1);
  /** The item whose rejection form is open (`kind-id`). */
  const [rejecting, setRejecting] = useState<string | null>(null);
  /** The shared email domain whose confirmation is open (`kind-id`). */
  const [confirming, setConfirming] = useState<string | null>(null);
  const queue = useQuery({
    queryKey: ["operator", "approvals", kind, page],
    queryFn: () => request<ApprovalQueue>(withQuery("/admin/api/approvals", { kind, page, per_page: 25 })),
    refetchInterval: 10_000,
  });
  const decide = useMutation({
    mutationFn: async ({
      item,
      approve,
      reason = "",
      shared = false,
    }: {
      item: ApprovalItem;
      approve: boolean;
      reason?: string;
      shared?: boolean;
    }) => {
      const call = decisionCall(item, approve, reason, shared);
      const decided = await data<{ dlt_header?: unknown }>(call.path, {
        method: call.method,
        ...(call.json ? { json: call.json } : { json: {} }),
      });
      // A sender ID's approval answers the DLT header it white-listed (null when none).
      const header = Boolean(decided?.dlt_header);
      return { item, approve, header, reason: reason.trim(), shared: shared ? holdersOf(item) : "" };
    },
    onSuccess: () => {
      setRejecting(null);
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: ["operator", "approvals"] });
    },
    // Refused (a domain another account took since the page loaded, say): the queue read again shows why.
    onError: () => void queryClient.invalidateQueries({ queryKey: ["operator", "approvals"] }),
  });
  const total = queue.data ? APPROVAL_KINDS.reduce((sum, k) => sum + queue.data.waiting[k], 0) : undefined;

  return (
    <>
      <PageTitle>Approvals</PageTitle>
      <p>
        What accounts asked for, oldest first{total !== undefined ? `: ${total} waiting` : ""}. Only approved sender
        IDs, templates, keywords, DLT registrations, email domains and caller numbers count for sends.
      </p>
      <Field label="Show" id="approval-kind">
        <select
          id="approval-kind"
          value={kind}
          onChange={(event) => {
            setKind(event.target.value as ApprovalKind | "");
            setPage(1);
          }}
        >
          <option value="">Everything{total !== undefined ? ` (${total})` : ""}</option>
          {APPROVAL_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_NAMES[k]}
              {queue.data ? ` (${queue.data.waiting[k]})` : ""}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={queue.error} />
      <ErrorNotice error={decide.error} title="Not decided" />
      {decide.data ? (
        <Success>
          {KIND_NAMES[decide.data.item.kind]} {decide.data.item.value} of {decide.data.item.account}{" "}
          {decide.data.approve ? "approved" : "rejected"}
          {decide.data.shared ? `, shared with ${decide.data.shared}` : ""}
          {decide.data.header ? " and white-listed as a DLT header of the account" : ""}
          {decide.data.reason ? (
            <>
              {", saying: "}
              <q data-testid="rejection-reason">{decide.data.reason}</q>
            </>
          ) : (
            "."
          )}
        </Success>
      ) : null}
      {queue.isPending ? <Busy /> : null}
      {queue.data ? (
        <>
          <div className="table-wrap">
            <table data-testid="approvals">
              <caption>Waiting for a decision</caption>
              <thead>
                <tr>
                  <th scope="col">Asked</th>
                  <th scope="col">What</th>
                  <th scope="col">Account</th>
                  <th scope="col">Value</th>
                  <th scope="col">Detail</th>
                  {decides ? <th scope="col">Decision</th> : null}
                </tr>
              </thead>
              <tbody>
                {queue.data.data.map((item) => (
                  <tr key={`${item.kind}-${item.id}`} data-testid={`approval-${item.kind}-${item.id}`}>
                    <td>{formatTime(item.created_at, session.time_zone)}</td>
                    <td>{KIND_NAMES[item.kind]}</td>
                    <td>
                      <Link to={`/operator/accounts/${encodeURIComponent(item.account)}`}>{item.account}</Link>
                    </td>
                    <td>
                      <code>{item.value}</code>
                    </td>
                    <td className="text-cell">
                      {holdersOf(item) ? (
                        <span data-testid="shared-with">Also held by {holdersOf(item)}.</span>
                      ) : (
                        (item.detail ?? "")
                      )}
                    </td>
                    {decides ? (
                      <td className="actions">
                        {confirming === `${item.kind}-${item.id}` ? (
                          <ConfirmShareForm
                            item={item}
                            busy={decide.isPending}
                            onApprove={() => decide.mutate({ item, approve: true, shared: true })}
                            onCancel={() => setConfirming(null)}
                          />
                        ) : holdersOf(item) ? (
                          <button
                            type="button"
                            className="primary"
                            disabled={decide.isPending}
                            onClick={() => setConfirming(`${item.kind}-${item.id}`)}
                            aria-label={`Approve ${item.value}…`}
                          >
                            Approve…
                          </button>
                        ) : (
                          <button
                            type="button"
                            className="primary"
                            disabled={decide.isPending}
                            onClick={() => decide.mutate({ item, approve: true })}
                            aria-label={`Approve ${item.value}`}
                          >
                            Approve
                          </button>
                        )}
                        {rejecting === `${item.kind}-${item.id}` ? (
                          <RejectForm
                            item={item}
                            busy={decide.isPending}
                            onReject={(reason) => decide.mutate({ item, approve: false, reason })}
                            onCancel={() => setRejecting(null)}
                          />
                        ) : (
                          <button
                            type="button"
                            className="danger"
                            disabled={decide.isPending}
                            onClick={() => setRejecting(`${item.kind}-${item.id}`)}
                            aria-label={`Reject ${item.value}…`}
                          >
                            Reject…
                          </button>
                        )}
                      </td>
                    ) : null}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {queue.data.data.length === 0 ? <p>Nothing waits.</p> : null}
          <Pager meta={queue.data.meta} onPage={setPage} />
        </>
      ) : null}
    </>
  );
}
