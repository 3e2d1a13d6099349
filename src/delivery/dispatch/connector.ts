// The connector interface: how the dispatcher hands messages to an upstream (simulator,
// SMPP, HTTP, SMTP, ...) and how delivery reports and inbound messages come back.

import type { MessageRow } from "../../base/store/schema.js";
import type { DeliveryReport } from "../../domain/messages/index.js";

/**
 * `source`: the source address the carrier got when it is not the message's sender (the generic
 * PROMOTIONAL sent as PROMOTIONAL_HEADER), recorded with the submit or the refusal (decision 0187).
 */
export type SubmitResult =
  | { ok: true; upstreamId: string; source?: string }
  /** `retryable`: the dispatcher backs off and tries again; otherwise the message fails (and is refunded). */
  | { ok: false; retryable: boolean; code: string; message: string; source?: string };

/**
 * What a connector answers for a message it did not start within its batch's start window: it
 * goes back to the queue (the router does not fail it over; the connector is busy, not broken).
 */
export const DEFERRED: Extract<SubmitResult, { ok: false }> = Object.freeze({
  ok: false,
  retryable: true,
  code: "deferred",
  message: "Not sent in this round; queued again.",
});

export type Outcome = "ok" | "retryable" | "failed" | "deferred";

/**
 * The names of the voice channel's connectors, here so that the carriers' catalogue (below the
 * channels) can place them on route V without importing the voice channel.
 */
export const VOICE_SIMULATOR_CONNECTOR = "voice-simulator";
export const VOICE_HTTP_CONNECTOR = "voice-http";

/** What a connector's answer for one message says: sent, worth another try, refused for good, or not started. */
export function outcomeOf(result: SubmitResult): Outcome {
  if (result.ok) return "ok";
  if (result.code === DEFERRED.code) return "deferred";
  return result.retryable ? "retryable" : "failed";
}

/** An SMS a carrier delivered to one of our virtual numbers (src/inbound ingests it). */
export interface InboundSms {
  /** The virtual number it was sent to, as the carrier writes it. */
  to: string;
  /** The handset that sent it. */
  from: string;
  message: string;
  connector: string;
  /** The carrier's id for it: a message delivered twice with the same id is stored once. */
  upstreamId?: string | undefined;
  /** Epoch ms; the time of ingestion when absent. */
  receivedAt?: number | undefined;
}

export interface Connector {
  readonly name: string;
  readonly channel: string;
  /**
   * False for a connector that never reports delivery (an http-sms carrier without `dlr`, SMPP
   * with registered_delivery 0): its messages stay `submitted` instead of expiring unreported.
   */
  readonly reportsDelivery?: boolean;
  /** Submits a batch; the result array matches the input order. */
  submit(messages: MessageRow[]): Promise<SubmitResult[]>;
  /** Registers the sink for delivery reports. */
  onReports(sink: (reports: DeliveryReport[]) => void): void;
  /**
   * Registers the sink for inbound messages, for connectors that receive them. The sink resolves
   * once they are stored (rejects when one could not be): acknowledge the carrier after that.
   */
  onInbound?(sink: (messages: InboundSms[]) => Promise<void>): void;
  /**
   * Messages this connector sent whose submit was recorded only later, after the first record
   * failed (the database away): a delivery report that came meanwhile found them not yet
   * `submitted` and changed nothing, so it is looked for again (SMPP: parts already final).
   */
  recordedLate?(messageIds: string[]): Promise<void>;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
