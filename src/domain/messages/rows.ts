// The one builder of a messages row: every family that creates messages (the acceptor, the bulk
// expander, WhatsApp's synchronous send) names what it knows and takes the rest from here, so a
// new column gets its default in one place.
import type { NewMessage } from "../../base/store/schema.js";

/** The columns a new message always names; the others start empty (null, 0 attempts, 1 segment, no flash). */
type Named =
  | "id"
  | "account_id"
  | "channel"
  | "broadcast_id"
  | "recipient"
  | "sender"
  | "body"
  | "route"
  | "lane"
  | "wallet"
  | "credits"
  | "status"
  | "due_at"
  | "created_at";
export type MessageFields = Pick<NewMessage, Named> & Partial<Omit<NewMessage, Named | Later>>;
/** Set only by later status changes (WhatsApp's delivered and read, a hold); a new row leaves them to the default, null. */
type Later = "delivered_at" | "read_at" | "held_since";

export function messageRow(m: MessageFields): NewMessage {
  // Written out (not spread) so every row has the same columns in the same order: a multi-row
  // insert takes its columns from the first row, and the statement cache keys on the SQL.
  return {
    id: m.id,
    account_id: m.account_id,
    channel: m.channel,
    broadcast_id: m.broadcast_id,
    recipient: m.recipient,
    sender: m.sender,
    body: m.body,
    encoding: m.encoding ?? null,
    segments: m.segments ?? 1,
    flash: m.flash ?? 0,
    route: m.route,
    lane: m.lane,
    wallet: m.wallet,
    credits: m.credits,
    status: m.status,
    due_at: m.due_at,
    lease_until: m.lease_until ?? null,
    attempts: m.attempts ?? 0,
    connector: m.connector ?? null,
    upstream_id: m.upstream_id ?? null,
    error_code: m.error_code ?? null,
    error_message: m.error_message ?? null,
    error_reason: m.error_reason ?? null,
    carrier_code: m.carrier_code ?? null,
    carrier_refunded_at: m.carrier_refunded_at ?? null,
    dlt_entity_id: m.dlt_entity_id ?? null,
    dlt_template_id: m.dlt_template_id ?? null,
    meta: m.meta ?? null,
    template_id: m.template_id ?? null,
    job_id: m.job_id ?? null,
    created_at: m.created_at,
    submitted_at: m.submitted_at ?? null,
    done_at: m.done_at ?? null,
    content_id: m.content_id ?? null,
    upline: m.upline ?? null,
    dlt_tm_chain: m.dlt_tm_chain ?? null,
    dlt_scrub: m.dlt_scrub ?? null,
  };
}
