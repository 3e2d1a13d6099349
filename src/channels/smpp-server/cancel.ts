// cancel_sm (SMPP 3.4, 4.9): a message the client was given the id of (a queue id, or
// submit_multi's broadcast id), or every pending message of the account from a source_addr to a
// destination_addr (and service_type), cancelled and refunded at every level as the v2 cancel of a
// scheduled message is (cancelScheduled). A scheduled message is cancelled, and a queued one not
// due yet (waiting for a retry, its connectors or its account); a due one is the dispatcher's, which
// may be handing it to a carrier with nothing in its row saying so (decision 0176).
// A cancelled message that asked for a receipt gets `stat:DELETED` (decision 0164).
import type { Clock } from "../../base/core/clock.js";
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { parseTrafficClass, type TrafficClass } from "../../base/core/traffic-class.js";
import { type CancelSm, MalformedPdu, readCancelSm } from "../../base/smpp/index.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  cancelScheduled,
  findMessages,
  type ListPosition,
  listMessages,
  type MessageTarget,
  messageTarget,
  queriedMessagesQuery,
  recipientForms,
  SCAN_BUDGET,
} from "../../domain/messages/index.js";
import type { ReportedMessage } from "../../domain/webhooks/events.js";
import type { RequestAnswer } from "./client-commands.js";
import { writeReceipts } from "./outbox.js";
import { MULTI_MAX, type QueryDeps, sameSender } from "./query.js";
import { STATUS } from "./status.js";

export interface CancelDeps extends QueryDeps {
  store: Store;
  clock: Clock;
  /** Receipts were written for the account: send them. */
  pump: (accountId: number) => void;
}

export async function answerCancel(deps: CancelDeps, accountId: number, body: Buffer): Promise<RequestAnswer> {
  let cancel: CancelSm;
  try {
    cancel = readCancelSm(body);
  } catch (error) {
    if (error instanceof MalformedPdu) return { status: error.status };
    throw error;
  }
  const targets =
    cancel.messageId === "" ? await byAddresses(deps.db, accountId, cancel) : await byId(deps, accountId, cancel);
  if (typeof targets === "number") return { status: targets };
  if (targets.length === 0) return { status: STATUS.ESME_RCANCELFAIL };
  const now = deps.clock.now().getTime();
  const cancelled = await deps.store.transaction(async (trx) => {
    const messages: ReportedMessage[] = [];
    for (const target of targets) {
      const { ids } = await cancelScheduled(deps.store, trx, deps.clock, accountId, target, { waiting: true });
      if (ids.length === 0) continue;
      const cancelledIds = new Set(ids);
      const { rows } = await findMessages(trx, accountId, "queueId" in target ? target.queueId : target.broadcastId);
      for (const row of rows.filter((r) => cancelledIds.has(r.id))) {
        messages.push({
          id: row.id,
          account_id: accountId,
          recipient: row.recipient,
          broadcast_id: row.broadcast_id,
          job_id: row.job_id,
          status: "cancelled",
          at: Number(row.done_at ?? now),
        });
      }
    }
    const receipts = await writeReceipts(deps.store, trx, messages, now);
    return { count: messages.length, receipts };
  });
  if (cancelled.receipts > 0) deps.pump(accountId);
  // Every one was released or final meanwhile (the dispatcher's release came first).
  return { status: cancelled.count > 0 ? STATUS.ESME_ROK : STATUS.ESME_RCANCELFAIL };
}

/**
 * The message or broadcast an id names, when it is the account's and its source_addr (if given)
 * is the sender's; service_type and destination_addr are not compared, as SMPP 3.4 lets a client
 * leave them empty with an id. Unknown and another account's ids alike: ESME_RINVMSGID.
 */
async function byId(deps: CancelDeps, accountId: number, cancel: CancelSm): Promise<MessageTarget[] | number> {
  const target = messageTarget(cancel.messageId);
  if (!target) return STATUS.ESME_RINVMSGID;
  const read = await queriedMessagesQuery(deps.db, target, MULTI_MAX + 1).execute();
  const rows = read.filter((row) => Number(row.account_id) === accountId);
  // Parts of a long message waiting here for the rest: no message to cancel yet.
  if (rows.length === 0 && "queueId" in target && deps.held(accountId, target.queueId)) {
    return STATUS.ESME_RCANCELFAIL;
  }
  if (rows.length === 0 || rows.length > MULTI_MAX) return STATUS.ESME_RINVMSGID;
  if (cancel.source !== "" && !rows.every((row) => sameSender(row.sender, cancel.source))) {
    return STATUS.ESME_RINVMSGID;
  }
  return rows.some((row) => row.status === "scheduled" || row.status === "queued") ? [target] : [];
}

/** Every scheduled or queued message of the account from source_addr to destination_addr (on service_type's route, if given). */
async function byAddresses(db: Db, accountId: number, cancel: CancelSm): Promise<MessageTarget[] | number> {
  if (cancel.source.trim() === "") return STATUS.ESME_RINVSRCADR;
  let route: TrafficClass | undefined;
  try {
    route = cancel.serviceType.trim() === "" ? undefined : parseTrafficClass(cancel.serviceType);
  } catch (error) {
    if (error instanceof GatewayError) return STATUS.ESME_RINVSERTYP;
    throw error;
  }
  // A number (an Indian mobile, or international), found in the forms the list stores it in.
  if (!normalizeIndianMobile(cancel.destination) && !parseE164(cancel.destination)) return STATUS.ESME_RINVDSTADR;
  const recipients = recipientForms(cancel.destination);
  // The account's messages newest first, a scan budget at a time (the v2 list's read, its index).
  const found: MessageTarget[] = [];
  let after: ListPosition | undefined;
  do {
    const page = await listMessages(
      db,
      accountId,
      { channels: ["sms"], statuses: ["scheduled", "queued"], recipients },
      SCAN_BUDGET,
      after,
    );
    for (const row of page.rows) {
      if (sameSender(row.sender, cancel.source) && (route === undefined || row.route === route)) {
        found.push({ queueId: row.id });
      }
    }
    after = page.next ?? undefined;
  } while (after);
  return found;
}
