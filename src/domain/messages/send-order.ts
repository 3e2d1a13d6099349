// What a family hands the Acceptor (a send order of message drafts) and what it gets back.
import type { Wallet } from "../../base/core/credits.js";
import type { MessageStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { ShortLinkPlan } from "./short-links.js";

/**
 * What DLT scrubbing did to an accepted SMS: its header and entity white-listed and its text
 * matched an approved template (`matched`), or matched none on a route that takes any text
 * (`unmatched`); the account does not scrub, so nothing was checked (`off`); an international
 * SMS, which DLT does not cover (`international`). A refusal stores no message.
 */
export const DLT_SCRUB_OUTCOMES = ["matched", "unmatched", "off", "international"] as const;
export type DltScrub = (typeof DLT_SCRUB_OUTCOMES)[number];

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
  /** A sub-account's message: what each ancestor of SendOrder.upline is charged for it, parent first. */
  upline?: number[];
  dueAt: number;
  dltEntityId?: string | null;
  dltTemplateId?: string | null;
  /** The approved template the content matched. */
  templateId?: number | null;
  /** An SMS's DLT telemarketer chain as declared for its entity, `PE,TM1,…,TMn` (null: none). */
  dltTmChain?: string | null;
  /** What DLT scrubbing did to it (DltScrub). */
  dltScrub?: DltScrub | null;
  meta?: Record<string, unknown> | null;
  /** Links of `body` to replace by tracked short links, each message its own codes (short-links.ts). */
  shortLinks?: ShortLinkPlan;
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

/**
 * What a family asks the Acceptor to write: data only (no code), so that any thread's or
 * process's Acceptor can commit it, whichever family made it.
 */
export interface SendOrder {
  accountId: number;
  timeZone: string;
  channel: string;
  wallet: Wallet;
  drafts: MessageDraft[];
  /**
   * A sub-account's send: its ancestors, parent first, each charged its own price of every
   * message (MessageDraft.upline) with the account, all or nothing (docs/decisions/0113).
   */
  upline?: readonly number[];
  /** Status the messages start in: queued, or scheduled when due later. */
  status?: Extract<MessageStatus, "queued" | "scheduled">;
  /**
   * The Idempotency-Key the send claims in its transaction. The accepted send is stored under
   * it with `context` (what the family's answer needs beside it), so that a retry gets the same
   * answer (StoredSend, idempotency.ts).
   */
  idempotency?: { key: string; requestHash: string; context?: unknown };
  /** SMS accepted per account-local day may not exceed this (0 = no limit); counted either way. */
  floodLimit?: number;
  /** The bulk job these messages belong to. */
  job?: JobRequest;
  /**
   * What the messages share (an email's content and attachments), written inside the
   * transaction that accepts them by the writer registered for its kind; the writer's answer is
   * set on every message row (`content_id`).
   */
  shared?: SharedContent;
}

/** Content the messages of one send share, for the SharedContentWriter of `kind`. */
export interface SharedContent {
  kind: string;
  content: unknown;
}

/**
 * Writes a send's shared content in its accept transaction (registered with the Acceptor by
 * app/, for the folder that owns the content's tables); answers the id its messages carry.
 */
export type SharedContentWriter = (
  trx: Db,
  send: { accountId: number; broadcastId: string },
  content: unknown,
) => Promise<{ content_id: number }>;

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

/** What the request handlers use: an Acceptor, or one that hands sends to another thread's. */
export interface AcceptService {
  accept(order: SendOrder): Promise<AcceptOutcome>;
}
