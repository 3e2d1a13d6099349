// What a client connection (bind.ts) asks of the server it belongs to (server.ts): its settings,
// the checks of a bind, the handling of its requests, and word of its changes.
import type { RequestAnswer, WindowedCommand } from "./client-commands.js";
import type { BoundAccount } from "./submit.js";

/** What a bind asks of the server it belongs to; `Bind` is bind.ts's class (a parameter: no import circle). */
export interface BindHost<Bind> {
  window: number;
  bindTimeoutMs: number;
  outputMaxBytes: number;
  enquireLinkMs: number;
  idleMs: number;
  responseTimeoutMs: number;
  systemId: string;
  authenticate(bind: Bind, systemId: string, password: string): Promise<{ status: number; account?: BoundAccount }>;
  /** A submit, query_sm or cancel_sm, answered when it resolves (requests.ts counts the submits). */
  request(bind: Bind, command: WindowedCommand, body: Buffer): Promise<RequestAnswer>;
  /** Records the bind (the operator's listing); it is answered once this resolves. */
  bound(bind: Bind): Promise<void>;
  /** The connection closed (bound or not), or its bind was refused after authenticate gave it a place. */
  closed(bind: Bind): void;
  /** A deliver_sm slot came free. */
  ready(bind: Bind): void;
  warn(message: string, details: Record<string, unknown>): void;
}
