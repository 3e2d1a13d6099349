// Accepting sends: debit, message rows and ledger entry in one transaction, with concurrent
// sends grouped into one transaction per tick (group commit). With SQLite synchronous=FULL an
// fsync per send would cap throughput at a few hundred per second; one fsync per group does not.
import { sql } from "kysely";
import { type Debit, debitAllOrNothing } from "../accounts/index.js";
import type { Clock } from "../core/clock.js";
import type { Wallet } from "../core/credits.js";
import { GatewayError } from "../core/errors.js";
import { formatBroadcastId, newQueueId } from "../core/ids.js";
import { localDay } from "../core/time.js";
import type { MessageStatus, NewBulkPart, NewMessage } from "../store/schema.js";
import type { Db, Store } from "../store/store.js";
import { claimIdempotencyKey } from "./idempotency.js";
import { messageRow } from "./rows.js";
import { SequenceAllocator } from "./sequence.js";

export interface MessageDraft {
  /** The queue id, when the client was given it before acceptance (an SMPP message sent in parts). */
  id?: string;
  recipient: string;
  sender: string;
  body: string;
  encoding: string | null;
  segments: number;
  flash: boolean;
  route: string;
  lane: number;
  /** Milli-credits for this message. */
  credits: number;
  dueAt: number;
  dltEntityId?: string | null;
  dltTemplateId?: string | null;
  /** The approved template the content matched. */
  templateId?: number | null;
  meta?: Record<string, unknown> | null;
}

/** Put the messages of a send into a bulk job: a new one, or one the client is still filling. */
export type JobRequest =
  | {
      kind: "create";
      route: string;
      sender: string;
      groupId: number | null;
      scheduledAt: number | null;
      /** Recipients refused before acceptance (counted on the job, not sent). */
      rejected: number;
    }
  | { kind: "append"; id: number; batchId: string; rejected: number };

export interface SendOrder {
  accountId: number;
  timeZone: string;
  channel: string;
  wallet: Wallet;
  drafts: MessageDraft[];
  /** Status the messages start in: queued, or scheduled when due later. */
  status?: Extract<MessageStatus, "queued" | "scheduled">;
  idempotency?: { key: string; requestHash: string; respond: (accepted: AcceptedSend) => string };
  /** SMS accepted per account-local day may not exceed this (0 = no limit); counted either way. */
  floodLimit?: number;
  /** The bulk job these messages belong to. */
  job?: JobRequest;
  /**
   * Writes what the messages share (an email's content and attachments) inside the transaction
   * that accepts them, once accepted; its answer is set on every message row (`content_id`).
   */
  attach?: (trx: Db, send: AcceptedSend) => Promise<{ content_id: number }>;
}

export interface AcceptedMessage {
  id: string;
  recipient: string;
  dueAt: number;
  status: MessageStatus;
}

export interface AcceptedSend {
  broadcastId: string;
  /** Messages accepted (for a bulk job, `messages` is empty: they are created by the expander). */
  accepted: number;
  /** The bulk job, when the order asked for one. */
  jobId?: number;
  messages: AcceptedMessage[];
  credits: number;
}

export type AcceptOutcome =
  | { kind: "accepted"; send: AcceptedSend }
  /** Another request with the same Idempotency-Key won; replay its stored answer. */
  | { kind: "duplicate" };

interface Pending {
  order: SendOrder;
  prepared: AcceptedSend;
  /** The ledger reference of the debit: the broadcast id, made unique for a job's later parts. */
  debitRef: string;
  /** Messages in the send (rows, or recipients of the part). */
  count: number;
  part: NewBulkPart | undefined;
  rows: NewMessage[];
  enqueuedAt: number;
  resolve: (outcome: AcceptOutcome) => void;
  reject: (error: unknown) => void;
}

export interface AcceptorHooks {
  /** Called after each committed group with the number of messages accepted per channel. */
  committed?: (accepted: { channel: string; count: number; waitedMs: number }[], groupSize: number) => void;
}

const MAX_GROUP_MESSAGES = 2000;

/** What the request handlers use: an Acceptor, or one that hands sends to another thread's. */
export interface AcceptService {
  accept(order: SendOrder): Promise<AcceptOutcome>;
}

export class Acceptor {
  private queue: Pending[] = [];
  private flushing = false;
  private readonly broadcasts: SequenceAllocator;
  private readonly jobs: SequenceAllocator;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly hooks: AcceptorHooks = {},
  ) {
    this.broadcasts = new SequenceAllocator(store, "broadcast");
    this.jobs = new SequenceAllocator(store, "bulk_job", 20);
  }

  /** Resolves once the send is durably stored (or refused); never before the commit. */
  async accept(order: SendOrder): Promise<AcceptOutcome> {
    if (order.drafts.length === 0) throw new GatewayError("invalid_recipient", "No valid recipient in the request.");
    const now = this.clock.now();
    let broadcastId: string;
    let jobId: number | undefined;
    if (order.job?.kind === "append") {
      broadcastId = order.job.batchId;
      jobId = order.job.id;
    } else {
      broadcastId = formatBroadcastId(
        order.accountId,
        localDay(now, order.timeZone),
        await this.broadcasts.nextNumber(),
      );
      if (order.job) jobId = await this.jobs.nextNumber();
    }
    const status = order.status ?? "queued";
    const messages: AcceptedMessage[] = [];
    const rows: NewMessage[] = [];
    let credits = 0;
    for (const draft of order.drafts) credits += draft.credits;
    // A bulk job's recipients are stored as one part and become messages in the expander.
    const part =
      order.job && jobId !== undefined ? bulkPart(order, broadcastId, jobId, status, now.getTime()) : undefined;
    if (!part) {
      for (const draft of order.drafts) {
        const id = draft.id ?? newQueueId(now.getTime());
        messages.push({ id, recipient: draft.recipient, dueAt: draft.dueAt, status });
        rows.push(
          messageRow({
            id,
            account_id: order.accountId,
            channel: order.channel,
            broadcast_id: broadcastId,
            recipient: draft.recipient,
            sender: draft.sender,
            body: draft.body,
            encoding: draft.encoding,
            segments: draft.segments,
            flash: draft.flash ? 1 : 0,
            route: draft.route,
            lane: draft.lane,
            wallet: order.wallet,
            credits: draft.credits,
            status,
            due_at: draft.dueAt,
            dlt_entity_id: draft.dltEntityId ?? null,
            dlt_template_id: draft.dltTemplateId ?? null,
            meta: draft.meta ? JSON.stringify(draft.meta) : null,
            template_id: draft.templateId ?? null,
            job_id: jobId ?? null,
            created_at: now.getTime(),
          }),
        );
      }
    }
    const count = order.drafts.length;
    const prepared: AcceptedSend = {
      broadcastId,
      messages,
      accepted: count,
      credits,
      ...(jobId === undefined ? {} : { jobId }),
    };
    return new Promise<AcceptOutcome>((resolve, reject) => {
      // A job's later parts share its batch id; a fresh id tells their debits apart.
      const debitRef = order.job?.kind === "append" ? `${broadcastId}/${newQueueId(now.getTime())}` : broadcastId;
      this.queue.push({ order, prepared, debitRef, rows, count, part, enqueuedAt: performance.now(), resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private takeGroup(): Pending[] {
    let count = 0;
    let i = 0;
    while (i < this.queue.length && (i === 0 || count + (this.queue[i]?.rows.length ?? 0) <= MAX_GROUP_MESSAGES)) {
      count += this.queue[i]?.rows.length ?? 0;
      i++;
    }
    return this.queue.splice(0, i);
  }

  private async flush(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const group = this.takeGroup();
        let outcomes: Array<AcceptOutcome | GatewayError>;
        try {
          outcomes = await this.store.transaction((trx) => this.applyGroup(trx, group));
        } catch {
          // One bad send must not sink the others: retry each in a transaction of its own.
          await this.applyOneByOne(group);
          continue;
        }
        this.settle(group, outcomes);
      }
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) {
        this.flushing = true;
        setImmediate(() => void this.flush());
      }
    }
  }

  private async applyOneByOne(group: Pending[]): Promise<void> {
    for (const pending of group) {
      try {
        const [outcome] = await this.store.transaction((trx) => this.applyGroup(trx, [pending]));
        this.settle([pending], [outcome as AcceptOutcome | GatewayError]);
      } catch (error) {
        pending.reject(error);
      }
    }
  }

  private settle(group: Pending[], outcomes: Array<AcceptOutcome | GatewayError>): void {
    const now = performance.now();
    const accepted: { channel: string; count: number; waitedMs: number }[] = [];
    group.forEach((pending, index) => {
      const outcome = outcomes[index];
      if (outcome instanceof GatewayError) {
        pending.reject(outcome);
        return;
      }
      if (outcome?.kind === "accepted") {
        accepted.push({
          channel: pending.order.channel,
          count: pending.count,
          waitedMs: now - pending.enqueuedAt,
        });
      }
      pending.resolve(outcome ?? { kind: "duplicate" });
    });
    this.hooks.committed?.(accepted, group.length);
  }

  /**
   * Inside one transaction: claim each send's idempotency key, debit each account once for all
   * its sends in the group (one by one only when the total does not fit), insert the messages.
   */
  private async applyGroup(trx: Db, group: Pending[]): Promise<Array<AcceptOutcome | GatewayError>> {
    const outcomes: Array<AcceptOutcome | GatewayError> = new Array(group.length);
    const now = this.clock.now().getTime();
    const byWallet = new Map<string, number[]>();
    for (const [index, pending] of group.entries()) {
      const { order, prepared } = pending;
      const idem = order.idempotency;
      if (idem) {
        const claimed = await claimIdempotencyKey(trx, {
          accountId: order.accountId,
          key: idem.key,
          requestHash: idem.requestHash,
          response: idem.respond(prepared),
          now,
        });
        if (!claimed) {
          outcomes[index] = { kind: "duplicate" };
          continue;
        }
      }
      const key = `${order.accountId}:${order.wallet}`;
      const list = byWallet.get(key) ?? [];
      list.push(index);
      byWallet.set(key, list);
    }

    const debitOf = (index: number): Debit => {
      const { order, prepared, debitRef } = group[index]!;
      const count = prepared.accepted;
      return {
        accountId: order.accountId,
        wallet: order.wallet,
        amount: prepared.credits,
        ref: debitRef,
        note: `${order.channel} ${count === 1 ? "message" : `broadcast of ${count}`}`,
      };
    };
    const rows: NewMessage[] = [];
    const accept = (index: number) => {
      const pending = group[index]!;
      rows.push(...pending.rows);
      outcomes[index] = { kind: "accepted", send: pending.prepared };
    };
    const refuse = async (index: number, error: GatewayError) => {
      const { order } = group[index]!;
      if (order.idempotency) {
        await trx
          .deleteFrom("idempotency_keys")
          .where("account_id", "=", order.accountId)
          .where("key", "=", order.idempotency.key)
          .execute();
      }
      outcomes[index] = error;
    };
    const day = (index: number) => localDay(new Date(now), group[index]!.order.timeZone);
    for (const indexes of byWallet.values()) {
      const first = group[indexes[0]!]!.order;
      const limited = (first.floodLimit ?? 0) > 0;
      const total = indexes.reduce((sum, i) => sum + group[i]!.count, 0);
      // The flood counter is the SMS day's: calls and emails neither count nor are limited by it.
      const sms = first.channel === "sms";
      const flood = (day: string, n: number, limit: number) =>
        sms ? countFlood(this.store, trx, first.accountId, day, n, limit) : Promise.resolve(true);
      // The common case: no flood limit, or the whole group fits it and the wallet covers it.
      const counted = await flood(day(indexes[0]!), total, limited ? first.floodLimit! : 0);
      if (counted && (await debitAllOrNothing(this.store, trx, this.clock, indexes.map(debitOf)))) {
        indexes.forEach(accept);
        continue;
      }
      // Give the group's count back and decide send by send, in arrival order.
      if (counted) await flood(day(indexes[0]!), -total, 0);
      for (const index of indexes) {
        const { order, count } = group[index]!;
        if (!(await flood(day(index), count, order.floodLimit ?? 0))) {
          await refuse(
            index,
            new GatewayError("flood_limit_exceeded", `The daily SMS limit of ${order.floodLimit} is reached.`),
          );
          continue;
        }
        if (await debitAllOrNothing(this.store, trx, this.clock, [debitOf(index)])) {
          accept(index);
          continue;
        }
        await flood(day(index), -count, 0);
        await refuse(
          index,
          new GatewayError(
            order.wallet === "international" ? "insufficient_international_credits" : "insufficient_credits",
          ),
        );
      }
    }
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome instanceof GatewayError || outcome?.kind !== "accepted") continue;
      const pending = group[index]!;
      await recordJob(trx, pending, now);
      if (pending.order.attach) {
        const shared = await pending.order.attach(trx, pending.prepared);
        for (const row of pending.rows) row.content_id = shared.content_id;
      }
    }
    await this.store.insertMany(trx, "messages", rows);
    return outcomes;
  }
}

/** Creates the bulk job of an accepted send, or adds the send to the job it extends. */
async function recordJob(trx: Db, pending: Pending, now: number): Promise<void> {
  const { order, prepared, count, part } = pending;
  const job = order.job;
  if (!job || prepared.jobId === undefined) return;
  await recordJobRow(trx, order, prepared, job, count, now);
  if (part) await trx.insertInto("bulk_parts").values(part).execute();
}

async function recordJobRow(
  trx: Db,
  order: SendOrder,
  prepared: AcceptedSend,
  job: JobRequest,
  count: number,
  now: number,
): Promise<void> {
  if (job.kind === "create") {
    await trx
      .insertInto("bulk_jobs")
      .values({
        id: prepared.jobId,
        account_id: order.accountId,
        batch_id: prepared.broadcastId,
        status: "queued",
        route: job.route,
        sender: job.sender,
        group_id: job.groupId,
        total: count,
        rejected: job.rejected,
        delivered: 0,
        failed: 0,
        cancelled: 0,
        credits: prepared.credits,
        scheduled_at: job.scheduledAt,
        created_at: now,
        updated_at: now,
      })
      .execute();
    return;
  }
  // A job that completed while this part was on its way opens again: its new messages are pending.
  await trx
    .updateTable("bulk_jobs")
    .set({
      total: sql`total + ${count}`,
      rejected: sql`rejected + ${job.rejected}`,
      credits: sql`credits + ${prepared.credits}`,
      status: sql`case when status = 'completed' then 'processing' else status end`,
      completed_at: null,
      updated_at: now,
    })
    .where("id", "=", job.id)
    .execute();
}

/**
 * Adds `n` to the account's counter for `day`. With a limit, only if the total stays within
 * it; returns whether the count was taken. A negative `n` gives back a count taken earlier.
 */
async function countFlood(
  store: Store,
  trx: Db,
  accountId: number,
  day: string,
  n: number,
  limit: number,
): Promise<boolean> {
  if (n < 0) {
    await store
      .statement("update flood_counters set count = count + ? where account_id = ? and day = ?")
      .run(trx, [n, accountId, day]);
    return true;
  }
  const bounded = limit > 0;
  if (bounded && n > limit) return false;
  // One statement: the day's first count inserts, a later one adds within the limit (0: none).
  const counted = await store
    .statement(
      "insert into flood_counters (account_id, day, count) values (?, ?, ?) on conflict (account_id, day) do update set count = flood_counters.count + excluded.count where ? = 0 or flood_counters.count + excluded.count <= ?",
    )
    .run(trx, [accountId, day, n, bounded ? 1 : 0, limit]);
  return counted > 0;
}

/** The part of a bulk job: what every message shares, and the recipients in one column. */
function bulkPart(order: SendOrder, broadcastId: string, jobId: number, status: string, now: number): NewBulkPart {
  const first = order.drafts[0]!;
  for (const draft of order.drafts) {
    if (
      draft.body !== first.body ||
      draft.sender !== first.sender ||
      draft.credits !== first.credits ||
      draft.dueAt !== first.dueAt ||
      draft.route !== first.route ||
      draft.templateId !== first.templateId
    ) {
      throw new Error("a bulk job's messages must share everything but the recipient");
    }
  }
  return {
    job_id: jobId,
    account_id: order.accountId,
    broadcast_id: broadcastId,
    status: "pending",
    recipients: order.drafts.map((d) => d.recipient).join(","),
    count: order.drafts.length,
    next_index: 0,
    channel: order.channel,
    sender: first.sender,
    body: first.body,
    encoding: first.encoding,
    segments: first.segments,
    flash: first.flash ? 1 : 0,
    route: first.route,
    lane: first.lane,
    wallet: order.wallet,
    credits: first.credits,
    dlt_entity_id: first.dltEntityId ?? null,
    dlt_template_id: first.dltTemplateId ?? null,
    template_id: first.templateId ?? null,
    // A scheduled part waits here until it is due; the expander then queues its messages.
    due_at: status === "scheduled" ? first.dueAt : Math.min(first.dueAt, now),
    created_at: now,
  };
}
