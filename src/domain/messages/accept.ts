// Accepting sends: debit, message rows and ledger entry in one transaction, with concurrent
// sends grouped into one transaction per tick (group commit). With SQLite synchronous=FULL an
// fsync per send would cap throughput at a few hundred per second; one fsync per group does not.

import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { formatBroadcastId, newQueueId } from "../../base/core/ids.js";
import { localDay } from "../../base/core/time.js";
import type { NewBulkPart, NewMessage } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Debit, debitEveryLevel, encodeUpline, usernamesOf } from "../accounts/index.js";
import { bulkParts, recordJob } from "./accept-job.js";
import { byLevels, debitsAtEveryLevel, insufficient, insufficientAt, uplineTotals } from "./accept-upline.js";
import { countFlood, floodLimitReached } from "./flood-counter.js";
import { claimIdempotencyKey, storedSendResponse } from "./idempotency.js";
import { RollupChanges } from "./rollups.js";
import { messageRow } from "./rows.js";
import type { AcceptedMessage, AcceptedSend, AcceptOutcome, SendOrder, SharedContentWriter } from "./send-order.js";
import { SequenceAllocator } from "./sequence.js";
import { insertShortLinks, type NewShortLink, shortenBody } from "./short-links.js";

interface Pending {
  order: SendOrder;
  prepared: AcceptedSend;
  /** The ledger reference of the debit: the broadcast id, made unique for a job's later parts. */
  debitRef: string;
  /** Messages in the send (rows, or recipients of the parts). */
  count: number;
  parts: NewBulkPart[] | undefined;
  rows: NewMessage[];
  /** The messages' tracked short links (shortenBody), written with them. */
  links: NewShortLink[];
  /** A sub-account's send: each ancestor's charge for the whole send, parent first. */
  uplineCredits: number[] | undefined;
  enqueuedAt: number;
  resolve: (outcome: AcceptOutcome) => void;
  reject: (error: unknown) => void;
}

/** One accepted send of a committed group, as the committed hook is told of it. */
export interface AcceptedSendCount {
  channel: string;
  /** Messages in the send. */
  count: number;
  waitedMs: number;
  /** Stored as a bulk part: recipients the expander has yet to turn into messages. */
  bulkPart: boolean;
}

export interface AcceptorHooks {
  /** Called after each committed group with its accepted sends. */
  committed?: (accepted: AcceptedSendCount[], groupSize: number) => void;
  /** The writers of shared content, by SharedContent kind (email's, handed in by app/). */
  sharedWriters?: Readonly<Record<string, SharedContentWriter>>;
}

const MAX_GROUP_MESSAGES = 2000;
/** Accept groups written but not yet durable, at most (SQLite; see pump). */
const MAX_GROUPS_IN_FLIGHT = 4;

export class Acceptor {
  private queue: Pending[] = [];
  private flushing = false;
  private inFlight = 0;
  private readonly maxInFlight: number;
  private readonly broadcasts: SequenceAllocator;
  private readonly jobs: SequenceAllocator;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly hooks: AcceptorHooks = {},
  ) {
    this.maxInFlight = store.engine === "sqlite" ? MAX_GROUPS_IN_FLIGHT : 1;
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
    const links: NewShortLink[] = [];
    let credits = 0;
    for (const draft of order.drafts) credits += draft.credits;
    const upline = order.upline && order.upline.length > 0 ? order.upline : undefined;
    const uplineCredits = upline && uplineTotals(upline, order.drafts);
    // A bulk job's recipients are stored as parts (one per price) and become messages in the expander.
    const parts =
      order.job && jobId !== undefined ? bulkParts(order, broadcastId, jobId, status, now.getTime()) : undefined;
    if (!parts) {
      for (const draft of order.drafts) {
        const id = draft.id ?? newQueueId(now.getTime());
        messages.push({ id, recipient: draft.recipient, dueAt: draft.dueAt, status });
        const shortened = draft.shortLinks
          ? shortenBody(draft.body, draft.shortLinks, { id, accountId: order.accountId, at: now.getTime() })
          : undefined;
        if (shortened) links.push(...shortened.links);
        rows.push(
          messageRow({
            id,
            account_id: order.accountId,
            channel: order.channel,
            broadcast_id: broadcastId,
            recipient: draft.recipient,
            sender: draft.sender,
            body: shortened?.body ?? draft.body,
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
            upline: upline ? encodeUpline(upline, draft.upline ?? []) : null,
            dlt_tm_chain: draft.dltTmChain ?? null,
            dlt_scrub: draft.dltScrub ?? null,
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
      this.queue.push({
        order,
        prepared,
        debitRef,
        rows,
        links,
        uplineCredits,
        count,
        parts,
        enqueuedAt: performance.now(),
        resolve,
        reject,
      });
      if (!this.flushing) {
        this.flushing = true;
        // The sends of this turn of the event loop go in one group.
        setImmediate(() => this.pump());
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

  /**
   * Starts a transaction for each group taken from the queue, up to `maxInFlight` at a time. On
   * SQLite they run one after another on the store's one connection (sqlite-group-commit.ts), so
   * a group does not wait for the previous group's fsync before it is written: it is written
   * while that fsync runs, and each settles when an fsync that began after its COMMIT ends.
   * On PostgreSQL one group at a time: concurrent groups on separate connections would take the
   * same wallets' row locks in different orders.
   */
  private pump(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const group = this.takeGroup();
      this.inFlight++;
      this.store
        .transaction((trx) => this.applyGroup(trx, group))
        .then(
          (outcomes) => this.settle(group, outcomes),
          // One bad send must not sink the others: retry each in a transaction of its own.
          () => this.applyOneByOne(group),
        )
        .finally(() => {
          this.inFlight--;
          this.pump();
        });
    }
    this.flushing = false;
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
    const accepted: AcceptedSendCount[] = [];
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
          bulkPart: pending.parts !== undefined,
        });
      }
      pending.resolve(outcome ?? { kind: "duplicate" });
    });
    this.hooks.committed?.(accepted, group.length);
  }

  /**
   * Inside one transaction: claim each send's idempotency key, debit each wallet once for all the
   * group's sends that charge it (at every level of a reseller tree; one by one only when the
   * total does not fit), insert the messages.
   */
  private async applyGroup(trx: Db, group: Pending[]): Promise<Array<AcceptOutcome | GatewayError>> {
    const outcomes: Array<AcceptOutcome | GatewayError> = new Array(group.length);
    const now = this.clock.now().getTime();
    /** Each send's debits: its own, then (a sub-account's send) each ancestor's. */
    const levels = new Map<number, Debit[]>();
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
    // A sub-account's debits above it name it, by username (one read, only for a group that has such sends).
    const subAccounts = await usernamesOf(
      trx,
      group.filter((pending) => pending.uplineCredits).map((pending) => pending.order.accountId),
    );
    for (const [index, pending] of group.entries()) {
      const { order, prepared } = pending;
      const idem = order.idempotency;
      if (idem) {
        const claimed = await claimIdempotencyKey(trx, {
          accountId: order.accountId,
          key: idem.key,
          requestHash: idem.requestHash,
          response: storedSendResponse(prepared, idem.context),
          now,
        });
        if (!claimed) {
          outcomes[index] = { kind: "duplicate" };
          continue;
        }
      }
      const own = debitOf(index);
      const name = subAccounts.get(order.accountId) ?? String(order.accountId);
      levels.set(index, pending.uplineCredits ? debitsAtEveryLevel(own, order, pending.uplineCredits, name) : [own]);
    }
    const rows: NewMessage[] = [];
    const links: NewShortLink[] = [];
    const accept = (index: number) => {
      const pending = group[index]!;
      rows.push(...pending.rows);
      links.push(...pending.links);
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
    // Sends grouped by the wallets they charge (a sub-account's send: at every level, bottom-up),
    // an account's own sends first: the group's total in one conditional UPDATE per wallet, and
    // send by send (in arrival order) only when the total does not fit.
    const groups = [...byLevels(levels).values()];
    groups.sort((a, b) => levels.get(a[0]!)!.length - levels.get(b[0]!)!.length);
    for (const indexes of groups) {
      const first = group[indexes[0]!]!.order;
      const total = indexes.reduce((sum, i) => sum + group[i]!.count, 0);
      const counted = await this.countFlood(trx, first, day(indexes[0]!), total);
      if (
        counted &&
        (await debitEveryLevel(
          this.store,
          trx,
          this.clock,
          indexes.map((i) => levels.get(i)!),
        )) === null
      ) {
        indexes.forEach(accept);
        continue;
      }
      // Give the group's count back and decide send by send, in arrival order.
      if (counted) await this.countFlood(trx, first, day(indexes[0]!), -total);
      for (const index of indexes) {
        const { order, count } = group[index]!;
        if (!(await this.countFlood(trx, order, day(index), count))) {
          await refuse(index, floodLimitReached(order.floodLimit ?? 0, day(index), order.timeZone, now));
          continue;
        }
        const short = await debitEveryLevel(this.store, trx, this.clock, [levels.get(index)!]);
        if (short === null) {
          accept(index);
          continue;
        }
        await this.countFlood(trx, order, day(index), -count);
        const shortDebit = levels.get(index)![short];
        await refuse(index, shortDebit ? await insufficientAt(trx, order, shortDebit) : insufficient(order));
      }
    }
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome instanceof GatewayError || outcome?.kind !== "accepted") continue;
      const pending = group[index]!;
      await recordJob(trx, pending, now);
      const { shared, accountId } = pending.order;
      if (shared) {
        const write = this.hooks.sharedWriters?.[shared.kind];
        if (!write) throw new Error(`no writer of shared content "${shared.kind}"`);
        const written = await write(trx, { accountId, broadcastId: pending.prepared.broadcastId }, shared.content);
        for (const row of pending.rows) row.content_id = written.content_id;
      }
    }
    await this.store.insertMany(trx, "messages", rows);
    if (links.length > 0) await insertShortLinks(trx, links);
    // The group's messages summed per rollup row: one upsert per row, not 13 per message.
    const rollups = new RollupChanges();
    for (const row of rows) rollups.add(row, 1);
    await rollups.write(this.store, trx);
    return outcomes;
  }

  /** Counts one send on the SMS day's flood counter (a negative count gives it back); false: over the limit. */
  private countFlood(trx: Db, order: SendOrder, day: string, count: number): Promise<boolean> {
    if (order.channel !== "sms") return Promise.resolve(true);
    return countFlood(this.store, trx, order.accountId, day, count, count > 0 ? (order.floodLimit ?? 0) : 0);
  }
}
