// The connector interface: how the dispatcher hands messages to an upstream (simulator,
// SMPP, HTTP, SMTP, ...) and how delivery reports come back.
import type { DeliveryReport } from "../messages/index.js";
import type { MessageRow } from "../store/schema.js";

export type SubmitResult =
  | { ok: true; upstreamId: string }
  /** `retryable`: the dispatcher backs off and tries again; otherwise the message fails (and is refunded). */
  | { ok: false; retryable: boolean; code: string; message: string };

export interface Connector {
  readonly name: string;
  readonly channel: string;
  /** Submits a batch; the result array matches the input order. */
  submit(messages: MessageRow[]): Promise<SubmitResult[]>;
  /** Registers the sink for delivery reports (and, later, inbound messages). */
  onReports(sink: (reports: DeliveryReport[]) => void): void;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}
