// The operator's one approval queue: what accounts asked for, every kind together or one kind,
// oldest first, each approved or rejected through its own operator call; a sender ID approved
// with its DLT header in one go, as a DLT route refuses one that is not a white-listed header.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { data, request, withQuery } from "../../api.js";
import { formatTime } from "../../format.js";
import { APPROVAL_KINDS, type ApprovalItem, type ApprovalKind, type ApprovalQueue } from "../../operator-types.js";
import { Link } from "../../router.js";
import { useSignedIn } from "../../session.js";
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

/** The operator call that decides an item (docs/api.md, "Approval queue"). */
export function decisionCall(item: ApprovalItem, approve: boolean): { path: string; method: string; json?: unknown } {
  const action = approve ? "approve" : "reject";
  switch (item.kind) {
    case "sender_id":
      return { method: "POST", path: `/admin/api/sender-ids/${item.id}/${action}` };
    case "template":
      return { method: "POST", path: `/admin/api/templates/${item.id}/${action}` };
    case "keyword":
      return { method: "POST", path: `/admin/api/keywords/${item.id}/${action}` };
    case "dlt_entity":
      return { method: "POST", path: `/admin/api/dlt/entities/${item.id}/${action}` };
    case "dlt_header":
      return { method: "POST", path: `/admin/api/dlt/headers/${item.id}/${action}` };
    case "dlt_url":
      return { method: "POST", path: `/admin/api/dlt/urls/${item.id}/${action}` };
    case "dlt_callback":
      return { method: "POST", path: `/admin/api/dlt/callbacks/${item.id}/${action}` };
    case "voice_caller_id":
      return { method: "POST", path: `/admin/api/voice/caller-ids/${item.id}/${action}` };
    case "email_domain":
      return {
        method: "PUT",
        path: `/admin/api/accounts/${encodeURIComponent(item.account)}/email/domains/${encodeURIComponent(item.value)}`,
        json: { status: approve ? "approved" : "rejected" },
      };
  }
}

export default function Approvals() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const [kind, setKind] = useState<ApprovalKind | "">("");
  const [page, setPage] = useState(1);
  const queue = useQuery({
    queryKey: ["operator", "approvals", kind, page],
    queryFn: () => request<ApprovalQueue>(withQuery("/admin/api/approvals", { kind, page, per_page: 25 })),
    refetchInterval: 10_000,
  });
  const decide = useMutation({
    mutationFn: async ({
      item,
      approve,
      header = false,
    }: {
      item: ApprovalItem;
      approve: boolean;
      header?: boolean;
    }) => {
      const call = decisionCall(item, approve);
      await data(call.path, { method: call.method, ...(call.json ? { json: call.json } : { json: {} }) });
      // An approved sender ID sends nothing on DLT routes until it is a white-listed header too (-32).
      if (header) {
        await data(`/admin/api/accounts/${encodeURIComponent(item.account)}/dlt/headers`, {
          json: { header: item.value },
        });
      }
      return { item, approve, header };
    },
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["operator", "approvals"] }),
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
          {decide.data.header ? " and white-listed as a DLT header of the account" : ""}.
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
                  <th scope="col">Decision</th>
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
                    <td className="text-cell">{item.detail ?? ""}</td>
                    <td className="actions">
                      <button
                        type="button"
                        className="primary"
                        disabled={decide.isPending}
                        onClick={() => decide.mutate({ item, approve: true })}
                      >
                        Approve {item.value}
                      </button>
                      {item.kind === "sender_id" && !/^\d+$/.test(item.value) ? (
                        <button
                          type="button"
                          className="primary"
                          disabled={decide.isPending}
                          onClick={() => decide.mutate({ item, approve: true, header: true })}
                        >
                          Approve {item.value} and white-list it as a DLT header
                        </button>
                      ) : null}
                      <button
                        type="button"
                        className="danger"
                        disabled={decide.isPending}
                        onClick={() => decide.mutate({ item, approve: false })}
                      >
                        Reject {item.value}
                      </button>
                    </td>
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
