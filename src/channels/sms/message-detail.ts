// One message as support reads it (GET /api/v2/messages/{id}, and the operator's
// GET /admin/api/messages/{id}): the status answer, its cost and refund, the carrier's id, its
// SMPP parts, and one timeline of what happened to it, the webhook attempts it caused among them.
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { chainLink, clickList, type MessagePartsReader, messageHistory } from "../../domain/messages/index.js";
import { deliveriesOfMessage } from "../../domain/webhooks/deliveries.js";
import { clickCounts, deliveryReport } from "./report-format.js";

const iso = (ms: number) => isoUtc(new Date(ms));

/** A delivery's times as the v2 API writes them (whole seconds). */
function inSeconds<
  D extends {
    next_attempt_at: string | null;
    created_at: string;
    done_at: string | null;
    attempts_log: { at: string }[];
  },
>(delivery: D): D {
  const second = (at: string) => isoUtc(new Date(at));
  return {
    ...delivery,
    next_attempt_at: delivery.next_attempt_at && second(delivery.next_attempt_at),
    created_at: second(delivery.created_at),
    done_at: delivery.done_at && second(delivery.done_at),
    attempts_log: delivery.attempts_log.map((attempt) => ({ ...attempt, at: second(attempt.at) })),
  };
}

/** The message's detail (the MessageDetail answer). */
export async function messageDetail(db: Db, row: MessageRow, messageParts: MessagePartsReader) {
  const [history, webhooks, clicks, counted] = await Promise.all([
    messageHistory(db, row, messageParts),
    // Read with milliseconds, so the attempts fall in place among the message's events.
    deliveriesOfMessage(db, row.account_id, row.id, (ms) => new Date(ms).toISOString()),
    clickList(db, row.id),
    clickCounts(db, [row]),
  ]);
  const timeline = [...history.events];
  // Its tracked short links' clicks (the last 100), each with the link and the visitor's browser.
  for (const click of clicks) {
    timeline.push({ at: click.at, event: "click", detail: `${click.url} (${click.user_agent ?? "no user agent"})` });
  }
  for (const delivery of webhooks) {
    const status =
      typeof delivery.payload === "object" && delivery.payload
        ? (delivery.payload as { status?: unknown }).status
        : undefined;
    for (const attempt of delivery.attempts_log) {
      timeline.push({
        at: Date.parse(attempt.at),
        event: "webhook",
        detail: `${delivery.event}${status ? ` (${String(status)})` : ""} attempt ${attempt.attempt}: ${
          attempt.status_code ?? "no answer"
        } in ${attempt.latency_ms} ms${attempt.error ? `, ${attempt.error}` : ""}`,
      });
    }
  }
  timeline.sort((a, b) => a.at - b.at);
  return {
    message: deliveryReport(row, counted.get(row.id)),
    cost: { credits: fromMilli(row.credits), wallet: row.wallet, refunded: history.refunded },
    carrier: { connector: row.connector, vendor_message_id: row.upstream_id },
    parts: history.parts.map((part) => ({ ...part, done_at: part.done_at === null ? null : iso(part.done_at) })),
    timeline: timeline.map((event) => ({ ...event, at: iso(event.at) })),
    webhooks: webhooks.map(inSeconds),
    chain: chainLink(row),
  };
}
