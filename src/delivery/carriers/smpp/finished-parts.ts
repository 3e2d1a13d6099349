// Messages whose parts are all final: their report (one per message), the reports lost in a
// crash found again, and the pruning of parts no receipt will come for any more.

import type { MessagePartsTable } from "../../../base/store/schema.js";
import type { Db, Store } from "../../../base/store/store.js";
import { awaitingReportPage, type DeliveryReport, messageAwaitsReport } from "../../../domain/messages/index.js";
import { meaningOfStat } from "./receipt.js";
import { CHUNK, storedPartsOf } from "./stored-parts.js";

/**
 * Reports of messages this connector submitted whose parts are all final but which are still
 * `submitted`: their report was lost (a crash between a receipt's commit and the report's).
 * Read a page at a time by submitted_at, for messages submitted before `before`.
 */
export async function unreportedMessages(
  store: Store,
  connector: string,
  before: number,
  after: { submittedAt: number; id: string } | null,
  limit: number,
  now: number,
): Promise<{ reports: DeliveryReport[]; next: { submittedAt: number; id: string } | null }> {
  const page = await awaitingReportPage(store, connector, before, after, limit);
  if (page.length === 0) return { reports: [], next: null };
  const reports = await reportsOfFinishedParts(
    store,
    connector,
    page.map((row) => row.id),
    now,
  );
  const last = page.at(-1)!;
  return {
    reports,
    next: page.length < limit ? null : { submittedAt: Number(last.submitted_at), id: last.id },
  };
}

/** The reports of those of `messageIds` whose stored parts are all final (none for one without parts). */
export async function reportsOfFinishedParts(
  store: Store,
  connector: string,
  messageIds: string[],
  now: number,
): Promise<DeliveryReport[]> {
  return reportsOfParts(connector, await storedPartsOf(store, messageIds), now);
}

/** The reports of the messages whose parts (by message) are all final. */
export function reportsOfParts(
  connector: string,
  byMessage: ReadonlyMap<string, MessagePartsTable[]>,
  now: number,
): DeliveryReport[] {
  const reports: DeliveryReport[] = [];
  for (const parts of byMessage.values()) {
    const report = reportOf(connector, parts, now);
    if (report) reports.push(report);
  }
  return reports;
}

/** How long the parts of a reported message are kept: receipts come within the SMSC's validity period (48–72 h at most). */
export const PARTS_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;
/** After this long a part's receipt will never come: its parts go even when the message never got a report. */
export const PARTS_MAX_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes, at most `limit` messages' worth a call, the parts of messages sent more than
 * PARTS_RETENTION_MS ago whose parts are all final and which are no longer `submitted` (one
 * still waiting for its report keeps them for the start-up sweep), and every part older than
 * PARTS_MAX_AGE_MS. Answers how many messages' parts went.
 */
export async function pruneParts(db: Db, now: number, limit = 2_000): Promise<number> {
  const expired = await db
    .selectFrom("message_parts")
    .select("message_id")
    .distinct()
    .where("created_at", "<", now - PARTS_MAX_AGE_MS)
    .limit(limit)
    .execute();
  const reported = await db
    .selectFrom("message_parts")
    .select("message_id")
    .where("created_at", "<", now - PARTS_RETENTION_MS)
    .where((eb) => eb.not(messageAwaitsReport(eb.ref("message_parts.message_id"))))
    .groupBy("message_id")
    .having((eb) => eb.fn.sum(eb.case().when("status", "=", "pending").then(1).else(0).end()), "=", 0)
    .limit(limit)
    .execute();
  const gone = [...new Set([...expired, ...reported].map((row) => row.message_id))];
  for (let i = 0; i < gone.length; i += CHUNK) {
    await db
      .deleteFrom("message_parts")
      .where("message_id", "in", gone.slice(i, i + CHUNK))
      .execute();
  }
  return gone.length;
}

/** The message's report once every part is final, else null. */
export function reportOf(connector: string, parts: MessagePartsTable[], now: number): DeliveryReport | null {
  if (parts.length === 0 || parts.some((row) => row.status === "pending")) return null;
  const at = Math.max(...parts.map((row) => row.done_at ?? 0)) || now;
  const upstreamId = parts[0]!.upstream_id;
  const failed = parts.find((row) => row.status === "failed");
  if (!failed) return { connector, upstreamId, status: "delivered", at };
  const [stat = "UNDELIV", err] = (failed.error_code ?? "UNDELIV").split("/");
  const where = parts.length > 1 ? ` for part ${failed.part_index + 1} of ${parts.length}` : "";
  return {
    connector,
    upstreamId,
    status: "failed",
    at,
    code: stat,
    ...(err ? { carrierCode: err } : {}),
    message: `The carrier reported ${stat}${err ? ` (err ${err})` : ""}${where}: ${meaningOfStat(stat)}.`,
  };
}
