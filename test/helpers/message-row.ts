// A messages row with every column, for tests that hand a row to a connector or store one
// directly: the columns a test does not care about hold a queued SMS's neutral values.
import type { MessageRow } from "../../src/store/schema.js";

export function messageRow(changes: Partial<MessageRow> & Pick<MessageRow, "id">): MessageRow {
  return {
    account_id: 1,
    channel: "sms",
    broadcast_id: "1_20261122_000000",
    recipient: "9876543210",
    sender: "SWBRD",
    body: "",
    encoding: null,
    segments: 1,
    flash: 0,
    route: "transactional",
    lane: 0,
    wallet: "sms",
    credits: 1000,
    status: "queued",
    due_at: 0,
    lease_until: null,
    attempts: 1,
    connector: null,
    upstream_id: null,
    error_code: null,
    error_message: null,
    dlt_entity_id: null,
    dlt_template_id: null,
    meta: null,
    template_id: null,
    job_id: null,
    created_at: 0,
    submitted_at: null,
    done_at: null,
    delivered_at: null,
    read_at: null,
    content_id: null,
    ...changes,
  };
}
