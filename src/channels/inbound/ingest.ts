// Inbound SMS: a message a handset sent to a virtual number. It is stored for the account that
// owns the number, its first word matched against the account's approved keywords, and an
// opt-out word puts the sender on the suppression list (START alone takes it off), all in one
// transaction. A `static` keyword's reply is then accepted like any SMS, and charged.

import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { segmentInfo } from "../../base/core/segments.js";
import { laneOf, pricePerSegment } from "../../base/core/traffic-class.js";
import type { Config } from "../../base/runtime/config.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { InboundMessageRow, KeywordRow } from "../../base/store/schema.js";
import type { InboundSms } from "../../delivery/dispatch/index.js";
import { accountStatuses, ancestorsOf, getAccount } from "../../domain/accounts/index.js";
import type { AcceptService, SendOrder } from "../../domain/messages/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { WEBHOOKS_QUEUED } from "../../domain/webhooks/outbox.js";
import { approvedKeyword, firstWord, isOptIn } from "./keywords.js";
import { inboundMetrics } from "./metrics.js";
import { findNumberOwner, MAX_DIGITS, normalizePhoneNumber } from "./numbers.js";
import { suppress, suppressionsChanged, unsuppress } from "./suppression.js";

export type InboundDeps = Pick<Runtime, "store" | "clock" | "logger" | "metrics"> & { acceptor: AcceptService } & {
  webhooks?: WebhookOutbox;
} & {
  config: Pick<Config, "optOutWords">;
};

export type ReplyOutcome =
  /** No keyword matched, or its response type sends nothing. */
  | { status: "none" }
  | { status: "sent"; messageId: string }
  /** `reason` is an error code: insufficient_credits, account_inactive, flood_limit_exceeded, not_a_mobile. */
  | { status: "skipped"; reason: string; message: string };

export type IngestOutcome =
  | { kind: "unknown_number"; number: string }
  | { kind: "invalid"; message: string }
  /** The connector delivered this upstream id before: stored once, nothing done again. */
  | { kind: "duplicate"; inbound: InboundMessageRow }
  | {
      kind: "stored";
      inbound: InboundMessageRow;
      keyword: KeywordRow | undefined;
      /** What the message did to the sender's place on the suppression list. */
      optOut: "added" | "already" | "removed" | "not_listed" | undefined;
      reply: ReplyOutcome;
    };

/** Stores one inbound message and acts on it. Throws only when the database fails. */
export async function ingestInbound(deps: InboundDeps, sms: InboundSms): Promise<IngestOutcome> {
  const { store, clock, logger } = deps;
  const metrics = inboundMetrics(deps.metrics.registry);
  const to = normalizePhoneNumber(sms.to);
  const from = normalizePhoneNumber(sms.from);
  if (from === "" || from.length > MAX_DIGITS) {
    metrics.inbound.inc({ outcome: "invalid" });
    logger.warn(
      { connector: sms.connector, to: sms.to, from: sms.from },
      "inbound SMS without a sender number dropped",
    );
    return { kind: "invalid", message: `"${sms.from.slice(0, 40)}" is not a sender phone number.` };
  }
  const accountId = await findNumberOwner(store.db, to);
  if (accountId === undefined) {
    metrics.inbound.inc({ outcome: "unknown_number" });
    logger.warn(
      { connector: sms.connector, to: sms.to, upstreamId: sms.upstreamId },
      "inbound SMS to an unassigned number dropped",
    );
    return { kind: "unknown_number", number: to };
  }
  // PostgreSQL text cannot hold U+0000, and no handset means it.
  const body = sms.message.replaceAll("\u0000", "");
  const word = firstWord(body);
  const optOut = deps.config.optOutWords.has(word);
  const optIn = !optOut && isOptIn(body);
  const receivedAt = sms.receivedAt ?? clock.now().getTime();

  const stored = await store.transaction(async (trx) => {
    const keyword = optOut || optIn ? undefined : await approvedKeyword(trx, accountId, word);
    const inbound = await trx
      .insertInto("inbound_messages")
      .values({
        account_id: accountId,
        number: to,
        sender: from,
        body,
        keyword_id: keyword?.id ?? null,
        connector: sms.connector,
        upstream_id: sms.upstreamId ?? null,
        reply_message_id: null,
        received_at: receivedAt,
      })
      .onConflict((oc) => oc.doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inbound) return undefined;
    let listed: "added" | "already" | "removed" | "not_listed" | undefined;
    if (optOut) {
      listed = (await suppress(trx, clock, accountId, [from], `inbound ${word}`)) > 0 ? "added" : "already";
    } else if (optIn) {
      listed = (await unsuppress(trx, accountId, [from])) > 0 ? "removed" : "not_listed";
    }
    // The inbound_sms webhook, in the same transaction as the message it reports.
    const events = deps.webhooks
      ? await deps.webhooks.inboundSms(
          trx,
          { accountId, from, to, message: body, receivedAt },
          `inbound:${inbound.id}`,
          clock.now().getTime(),
        )
      : 0;
    return { inbound, keyword, listed, events };
  });

  if (!stored) {
    metrics.inbound.inc({ outcome: "duplicate" });
    const inbound = await store.db
      .selectFrom("inbound_messages")
      .selectAll()
      .where("connector", "=", sms.connector)
      .where("upstream_id", "=", sms.upstreamId ?? "")
      .executeTakeFirstOrThrow();
    return { kind: "duplicate", inbound };
  }
  metrics.inbound.inc({ outcome: "stored" });
  const { inbound, keyword, listed, events } = stored;
  if (events > 0) await store.signals.notify(WEBHOOKS_QUEUED).catch(() => undefined);
  if (listed === "added" || listed === "removed") await suppressionsChanged(store, accountId);

  if (keyword?.response_type !== "static" || !keyword.static_message) {
    return { kind: "stored", inbound, keyword, optOut: listed, reply: { status: "none" } };
  }
  const reply = await sendKeywordReply(deps, inbound, keyword.static_message);
  metrics.replies.inc({ outcome: reply.status === "sent" ? "sent" : reply.reason });
  if (reply.status === "sent") {
    await store.db
      .updateTable("inbound_messages")
      .set({ reply_message_id: reply.messageId })
      .where("id", "=", inbound.id)
      .execute();
    inbound.reply_message_id = reply.messageId;
  } else {
    logger.warn(
      { accountId, inboundId: inbound.id, keyword: keyword.key, reason: reply.reason },
      `keyword reply skipped: ${reply.message}`,
    );
  }
  return { kind: "stored", inbound, keyword, optOut: listed, reply };
}

/**
 * The reply of a static keyword: from the virtual number, on the transactional route, charged
 * like any SMS (1 credit per segment from the sms wallet) and counted against the flood limit.
 * It skips the SMS policy's sender and DLT checks: the text is the operator-approved keyword's,
 * and the sender is a number the operator gave the account, not a registered header.
 */
async function sendKeywordReply(
  deps: InboundDeps,
  inbound: InboundMessageRow,
  text: string,
): Promise<Exclude<ReplyOutcome, { status: "none" }>> {
  const account = await getAccount(deps.store.db, inbound.account_id);
  // The status as its credentials read it: a parent that is not active stops its tree (decision 0148).
  const [effective] = account ? await accountStatuses(deps.store.db, [account.id]) : [];
  if (!account || effective?.status !== "active") {
    return { status: "skipped", reason: "account_inactive", message: "the account or a parent account is not active" };
  }
  const recipient = normalizeIndianMobile(inbound.sender);
  if (!recipient) {
    return { status: "skipped", reason: "not_a_mobile", message: "replies go to Indian mobile numbers only" };
  }
  const info = segmentInfo(text);
  const now = deps.clock.now().getTime();
  const credits = info.segments * pricePerSegment("transactional");
  // A sub-account's reply is charged at every level of its tree, at the same fixed price.
  const upline =
    account.parent_id === null ? [] : (await ancestorsOf(deps.store.db, account.parent_id)).map((a) => a.id);
  const order: SendOrder = {
    accountId: account.id,
    timeZone: account.time_zone,
    channel: "sms",
    wallet: "sms",
    status: "queued",
    floodLimit: account.flood_limit,
    ...(upline.length > 0 ? { upline } : {}),
    drafts: [
      {
        recipient,
        sender: inbound.number,
        body: text,
        encoding: info.encoding,
        segments: info.segments,
        flash: false,
        route: "transactional",
        lane: laneOf("transactional"),
        credits,
        ...(upline.length > 0 ? { upline: upline.map(() => credits) } : {}),
        dueAt: now,
        meta: { inbound_id: inbound.id, keyword_id: inbound.keyword_id },
      },
    ],
  };
  try {
    const outcome = await deps.acceptor.accept(order);
    if (outcome.kind !== "accepted") throw new Error("a keyword reply has no idempotency key to be a duplicate of");
    return { status: "sent", messageId: outcome.send.messages[0]!.id };
  } catch (error) {
    if (error instanceof GatewayError) return { status: "skipped", reason: error.code, message: error.message };
    throw error;
  }
}

/**
 * The connectors' inbound sink: ingests messages one at a time, in arrival order (a STOP and a
 * START from one handset must not swap). A batch's promise settles once all its messages are
 * handled, and rejects when one could not be stored, so a connector can leave it unacknowledged.
 */
export class InboundIngester {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: InboundDeps) {}

  push(messages: InboundSms[]): Promise<void> {
    const done = this.tail.then(() => this.ingestAll(messages));
    this.tail = done.catch(() => undefined);
    return done;
  }

  /** Resolves when every message pushed so far is handled. */
  async stop(): Promise<void> {
    await this.tail;
  }

  private async ingestAll(messages: InboundSms[]): Promise<void> {
    let failure: unknown;
    for (const sms of messages) {
      try {
        await ingestInbound(this.deps, sms);
      } catch (error) {
        failure ??= error;
        inboundMetrics(this.deps.metrics.registry).inbound.inc({ outcome: "error" });
        this.deps.logger.error(
          { err: error, connector: sms.connector, upstreamId: sms.upstreamId, to: sms.to },
          "inbound SMS not stored",
        );
      }
    }
    if (failure !== undefined) throw failure;
  }
}
