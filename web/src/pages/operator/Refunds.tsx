// The refund policy per reason (issue 40, item 5): whether a message its carrier failed with a
// code mapped to a reason is refunded when the report comes. Each reason shows its policy and
// where it comes from (the operator's choice here, or REFUND_CARRIER_REASONS); a choice is made or
// changed, and removed to give the reason back to the default (/admin/api/refund-policy/{reason}).
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useRef, useState } from "react";
import { data } from "../../api.js";
import type { RefundPolicy } from "../../operator-types.js";
import { Link } from "../../router.js";
import { StaffReadOnly, useCan } from "../../staff-gate.js";
import { Busy, ConfirmButton, ErrorNotice, Field, PageTitle, Success } from "../../ui.js";
import { ReasonSelect, reasonText } from "./reason-select.js";

type Change = { reason: string; refund?: boolean };

const KEY = ["operator", "refund-policy"];

export default function Refunds() {
  /** Finance and the admin change the policy (staff_money); support reads it. */
  const changes = useCan("staff_money");
  const queryClient = useQueryClient();
  const policy = useQuery({ queryKey: KEY, queryFn: () => data<RefundPolicy>("/admin/api/refund-policy") });
  const [reason, setReason] = useState("dlt_template_mismatch");
  const [refund, setRefund] = useState(true);
  const [done, setDone] = useState<string>();
  const reasonField = useRef<HTMLDivElement>(null);
  const change = useMutation({
    mutationFn: ({ reason, refund }: Change) =>
      data<RefundPolicy>(
        `/admin/api/refund-policy/${encodeURIComponent(reason)}`,
        refund === undefined ? { method: "DELETE" } : { method: "PUT", json: { refund } },
      ),
    onMutate: () => setDone(undefined),
    // Refused (another operator changed it first, say): the list shows what is there now.
    onError: () => void queryClient.invalidateQueries({ queryKey: KEY }),
    onSuccess: (answer, { reason, refund }) => {
      queryClient.setQueryData(KEY, answer);
      setDone(
        refund === undefined
          ? `${reason} follows REFUND_CARRIER_REASONS again.`
          : `Carrier failures for ${reason} are ${refund ? "refunded" : "not refunded"} from the next report on.`,
      );
    },
  });
  const save = (event: FormEvent) => {
    event.preventDefault();
    change.mutate({ reason, refund });
  };
  const defaults = policy.data?.default_reasons ?? [];
  return (
    <>
      <PageTitle>Carrier refunds</PageTitle>
      <p>
        A message its carrier failed is not refunded (the carrier took it), unless the code the carrier gave maps to a
        reason (each connector's <Link to="/operator/carriers">error codes</Link>) whose failures are refunded here.
        Your choice for a reason wins over the gateway's setting <code>REFUND_CARRIER_REASONS</code>, which refunds{" "}
        {policy.data ? (defaults.length > 0 ? defaults.join(", ") : "none") : "…"}.
      </p>
      <ErrorNotice error={policy.error} />
      {policy.isPending ? <Busy /> : null}
      <StaffReadOnly capability="staff_money" what="changing a reason's refund">
        <form className="columns" onSubmit={save} aria-label="Choose a reason's refund">
          <div ref={reasonField}>
            <Field label="Reason" id="refund-reason" hint={reasonText(reason)}>
              <ReasonSelect id="refund-reason" value={reason} onChange={setReason} />
            </Field>
          </div>
          <Field label="Carrier failures for it" id="refund-choice">
            <select
              id="refund-choice"
              value={refund ? "refund" : "keep"}
              onChange={(event) => setRefund(event.target.value === "refund")}
            >
              <option value="refund">are refunded</option>
              <option value="keep">are not refunded</option>
            </select>
          </Field>
          <div className="actions">
            <button type="submit" className="primary" disabled={change.isPending}>
              Save choice
            </button>
          </div>
        </form>
      </StaffReadOnly>
      <ErrorNotice error={change.error} title="Not changed" />
      {done ? <Success>{done}</Success> : null}
      {policy.data ? (
        <div className="table-wrap">
          <table data-testid="refund-policy">
            <caption>Reasons carriers' codes map to, and their refund</caption>
            <thead>
              <tr>
                <th scope="col">Reason</th>
                <th scope="col">Refunded</th>
                <th scope="col">Decided by</th>
                {changes ? <th scope="col">Change</th> : null}
              </tr>
            </thead>
            <tbody>
              {policy.data.reasons.map((row) => (
                <tr key={row.reason} data-testid={`refund-${row.reason}`}>
                  <th scope="row">
                    {row.reason} <span className="hint">{row.description}</span>
                  </th>
                  <td>{row.refund ? "yes" : "no"}</td>
                  <td>{row.source === "operator" ? "your choice" : "REFUND_CARRIER_REASONS"}</td>
                  {changes ? (
                    <td className="actions">
                      <button
                        type="button"
                        onClick={() => {
                          setReason(row.reason);
                          setRefund(row.refund);
                          reasonField.current?.querySelector("select")?.focus();
                        }}
                      >
                        Edit<span className="visually-hidden"> {row.reason}</span>
                      </button>
                      {row.source === "operator" ? (
                        <ConfirmButton
                          danger
                          label={`Remove the choice for ${row.reason}`}
                          confirmLabel={`Confirm: remove the choice for ${row.reason}`}
                          warning={`${row.reason} is then ${defaults.includes(row.reason) ? "refunded" : "not refunded"}, as REFUND_CARRIER_REASONS says.`}
                          disabled={change.isPending}
                          onConfirm={() => change.mutate({ reason: row.reason })}
                        />
                      ) : null}
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </>
  );
}
