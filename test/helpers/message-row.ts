// A messages row with every column, for tests that hand a row to a connector or store one
// directly: the columns a test does not care about hold a queued SMS's neutral values. And an
// SMS accepted the real way, for tests that need one stored and charged.
import { systemClock } from "../../src/base/core/clock.js";
import type { MessageRow } from "../../src/base/store/schema.js";
import type { Store } from "../../src/base/store/store.js";
import { Acceptor } from "../../src/domain/messages/index.js";

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
    held_since: null,
    error_message: null,
    error_reason: null,
    carrier_code: null,
    carrier_refunded_at: null,
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
    upline: null,
    cost: null,
    cost_prefix: null,
    route_note: null,
    dlt_tm_chain: null,
    dlt_scrub: null,
    carrier_source: null,
    ...changes,
  };
}

/** A transactional SMS accepted for `accountId` through the Acceptor (stored, charged, queued): its id. */
export async function acceptSms(
  store: Store,
  accountId: number,
  draft: { recipient: string; body?: string; segments?: number },
): Promise<string> {
  const segments = draft.segments ?? 1;
  const outcome = await new Acceptor(store, systemClock).accept({
    accountId,
    timeZone: "Asia/Kolkata",
    channel: "sms",
    wallet: "sms",
    drafts: [
      {
        recipient: draft.recipient,
        sender: "SWBRD",
        body: draft.body ?? "hi",
        encoding: "gsm7",
        segments,
        flash: false,
        route: "transactional",
        lane: 0,
        credits: segments * 1000,
        dueAt: Date.now(),
      },
    ],
  });
  if (outcome.kind !== "accepted") throw new Error("not accepted");
  return outcome.send.messages[0]!.id;
}
