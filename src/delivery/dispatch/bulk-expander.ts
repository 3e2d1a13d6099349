// The bulk expander: turns the parts of bulk jobs (one row holding up to 100,000 recipients)
// into message rows, a chunk at a time, only while the queue has room. Accepting a campaign
// is then one small write, and the queue holds at most MAX_BACKLOG queued messages whatever
// the campaign's size, so memory and claim cost stay flat and other traffic is not buried.
// Each chunk inserts its messages and advances the part's next_index in one transaction,
// conditional on next_index: after a crash or with several workers, every recipient becomes
// exactly one message. Parts of different accounts are served in turn.

import { newQueueId } from "../../base/core/ids.js";
import { WorkerLoop } from "../../base/core/worker-loop.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { BulkPartRow, NewMessage } from "../../base/store/schema.js";
import {
  bulkPartsById,
  countQueuedDue,
  dueBulkParts,
  expandBulkPart,
  messageRow,
  type NewShortLink,
  type ShortLinkPlan,
  shortenBody,
} from "../../domain/messages/index.js";
import { type AccountsHeld, QUEUED_SIGNAL } from "./dispatcher.js";

/**
 * Wakes the expander: a send stored as a bulk part was committed. Not the dispatcher's signal,
 * sent with every accepted send: each woke a round whose look-up of due parts found none (240
 * a second, ~2 % of a busy gateway's CPU). A part that waits for room or for its due time is
 * seen by the idle round.
 */
export const BULK_PARTS_SIGNAL = "bulk_parts";

type Deps = Pick<Runtime, "store" | "clock" | "logger"> & {
  /** Accounts whose parts wait, unexpanded (not active, decision 0155): held-accounts.ts. */
  heldAccounts?: AccountsHeld;
};

/** Reads of the due parts a round makes at most while those it finds are of held accounts. */
const HELD_PART_READS = 4;

export interface ExpanderOptions {
  /** Messages created per part per round. */
  chunk: number;
  /** No expansion while this many messages are queued and due. */
  maxBacklog: number;
  idleMs: number;
}

export const DEFAULT_EXPANDER_OPTIONS: ExpanderOptions = { chunk: 1_000, maxBacklog: 5_000, idleMs: 500 };

/** Parts in progress, with their recipients split once (bounded: a few parts at a time). */
const MAX_CACHED_PARTS = 8;

export class BulkExpander extends WorkerLoop {
  private readonly recipients = new Map<number, string[]>();

  constructor(
    private readonly deps: Deps,
    private readonly options: ExpanderOptions = DEFAULT_EXPANDER_OPTIONS,
  ) {
    super({
      name: "bulk expansion",
      logger: deps.logger,
      signals: deps.store.signals,
      channel: BULK_PARTS_SIGNAL,
      idleMs: options.idleMs,
    });
  }

  protected async round(): Promise<boolean> {
    const created = await this.expandOnce();
    if (created === 0) return false;
    await this.deps.store.signals.notify(QUEUED_SIGNAL).catch(() => undefined);
    return true;
  }

  /** One round: a chunk of each due part (one part per account), if the queue has room. Returns messages created. */
  async expandOnce(): Promise<number> {
    const { store, clock } = this.deps;
    const now = clock.now().getTime();
    const due = await this.dueParts(now);
    if (due.length === 0) return 0;
    const room = this.options.maxBacklog - (await countQueuedDue(store.db, now, this.options.maxBacklog));
    if (room <= 0) return 0;
    // The oldest due part of each account, accounts in turn, as far as the room goes.
    const picked: number[] = [];
    const accounts = new Set<number>();
    for (const part of due) {
      if (accounts.has(part.account_id)) continue;
      accounts.add(part.account_id);
      picked.push(part.id);
    }
    const parts = await bulkPartsById(store.db, picked);
    const perPart = Math.max(1, Math.min(this.options.chunk, Math.ceil(room / parts.length)));
    const created = await store.transaction(async (trx) => {
      let total = 0;
      for (const part of parts) {
        const take = Math.min(perPart, part.count - part.next_index);
        if (await expandBulkPart(store, trx, part, take, () => this.messagesOf(part, take, now))) total += take;
      }
      return total;
    });
    for (const part of parts) if (part.next_index + perPart >= part.count) this.recipients.delete(part.id);
    return created;
  }

  /**
   * The due parts of accounts that are not held: when those read are all held accounts' (a
   * blocked account's campaign in many parts), read again past those accounts, a few times.
   */
  private async dueParts(now: number): Promise<Array<{ id: number; account_id: number }>> {
    const { store, heldAccounts } = this.deps;
    const except: number[] = [];
    for (let read = 0; read < HELD_PART_READS; read++) {
      const due = await dueBulkParts(store.db, now, except);
      if (!heldAccounts || heldAccounts.size === 0) return due;
      const free = due.filter((part) => !heldAccounts.has(part.account_id));
      if (free.length > 0 || due.length === 0) return free;
      except.push(...new Set(due.map((part) => part.account_id)));
    }
    return [];
  }

  private messagesOf(part: BulkPartRow, take: number, now: number): { rows: NewMessage[]; links: NewShortLink[] } {
    let list = this.recipients.get(part.id);
    if (!list) {
      if (this.recipients.size >= MAX_CACHED_PARTS) this.recipients.delete(this.recipients.keys().next().value!);
      list = part.recipients.split(",");
      this.recipients.set(part.id, list);
    }
    const rows: NewMessage[] = [];
    const links: NewShortLink[] = [];
    const plan = part.short_links ? (JSON.parse(part.short_links) as ShortLinkPlan) : undefined;
    for (let i = part.next_index; i < part.next_index + take; i++) {
      const id = newQueueId(now);
      // Each recipient its own codes, dated from the part's acceptance.
      const shortened = plan && shortenBody(part.body, plan, { id, accountId: part.account_id, at: part.created_at });
      if (shortened) links.push(...shortened.links);
      rows.push(
        messageRow({
          id,
          account_id: part.account_id,
          channel: part.channel,
          broadcast_id: part.broadcast_id,
          recipient: list[i]!,
          sender: part.sender,
          body: shortened ? shortened.body : part.body,
          encoding: part.encoding,
          segments: part.segments,
          flash: part.flash,
          route: part.route,
          lane: part.lane,
          wallet: part.wallet,
          credits: part.credits,
          upline: part.upline,
          status: "queued",
          due_at: Math.max(part.due_at, part.created_at),
          dlt_entity_id: part.dlt_entity_id,
          dlt_template_id: part.dlt_template_id,
          template_id: part.template_id,
          dlt_tm_chain: part.dlt_tm_chain,
          dlt_scrub: part.dlt_scrub,
          job_id: part.job_id,
          // Accepted when the part was: end-to-end times and account listings count from then.
          created_at: part.created_at,
        }),
      );
    }
    return { rows, links };
  }
}
