// What a family hands the Acceptor (a send order of message drafts) and what it gets back.
import type { Wallet } from "../core/credits.js";
import type { MessageStatus } from "../store/schema.js";
import type { Db } from "../store/store.js";

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

/** What the request handlers use: an Acceptor, or one that hands sends to another thread's. */
export interface AcceptService {
  accept(order: SendOrder): Promise<AcceptOutcome>;
}
