// What a client connection (bind.ts) asks of the server it belongs to, and the names it shares.
import type { Bind } from "./bind.js";
import type { BoundAccount, SubmitResult } from "./submit.js";

export type BindMode = "transmitter" | "receiver" | "transceiver";
export type SubmitCommand = "submit_sm" | "data_sm" | "submit_multi";

/** What a bind asks of the server it belongs to. */
export interface BindHost {
  window: number;
  bindTimeoutMs: number;
  outputMaxBytes: number;
  enquireLinkMs: number;
  idleMs: number;
  responseTimeoutMs: number;
  systemId: string;
  authenticate(bind: Bind, systemId: string, password: string): Promise<{ status: number; account?: BoundAccount }>;
  submit(bind: Bind, command: SubmitCommand, body: Buffer): Promise<SubmitResult>;
  /** Records the bind (the operator's listing); it is answered once this resolves. */
  bound(bind: Bind): Promise<void>;
  /** The connection closed (bound or not), or its bind was refused after authenticate gave it a place. */
  closed(bind: Bind): void;
  /** A deliver_sm slot came free. */
  ready(bind: Bind): void;
  warn(message: string, details: Record<string, unknown>): void;
}
