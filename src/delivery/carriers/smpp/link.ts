// One bound SMPP connection to an SMSC: connect, bind, keep alive with enquire_link, and
// reconnect with exponential back-off and jitter after a drop or a refused bind. Requests are
// numbered here and matched to their responses with a time-out; a request that was unanswered
// when the link dropped or timed out fails as retryable and its late response is ignored.

import net from "node:net";
import smpp from "smpp";
import {
  bindBody,
  COMMAND,
  type Command,
  EMPTY_MESSAGE_ID,
  encodePdu,
  isResponse,
  type Pdu,
  PduReader,
  responseId,
} from "../../../base/smpp/index.js";

export type BindMode = "transceiver" | "transmitter" | "receiver";

export interface LinkOptions {
  host: string;
  port: number;
  systemId: string;
  password: string;
  systemType?: string;
  /** Seconds of silence before we send enquire_link (default 30). */
  enquireLinkSeconds?: number;
  /** How long a request waits for its response (default 10 s). */
  responseTimeoutMs?: number;
  /** Reconnect back-off: first delay and cap (defaults 1 s and 60 s), times a jitter of 0.5–1. */
  reconnectInitialMs?: number;
  reconnectMaxMs?: number;
  random?: () => number;
  log?: (level: "debug" | "info" | "warn", message: string, details?: Record<string, unknown>) => void;
  /** While reconnecting, how often a warning sums up the attempts since the last one (default 60 s). */
  reconnectSummaryMs?: number;
  now?: () => number;
}

/** A request that got no response: the SMSC may or may not have acted on it. */
export class LinkError extends Error {
  constructor(
    readonly code: "timeout" | "connection_lost" | "not_bound" | "stopped",
    message: string,
  ) {
    super(message);
  }
}

const errorNames = new Map(Object.entries(smpp.errors).map(([name, status]) => [status, name]));

export function statusName(status: number): string {
  return errorNames.get(status) ?? `0x${status.toString(16).padStart(8, "0")}`;
}

/** Destroys the socket and waits for its close (at once when it has closed already). */
function closed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.closed) return resolve();
    socket.once("close", () => resolve());
    socket.destroy();
  });
}

interface Pending {
  resolve: (pdu: Pdu) => void;
  reject: (error: LinkError) => void;
  timer: NodeJS.Timeout;
}

export class SmppLink {
  private socket: net.Socket | null = null;
  private bound = false;
  private stopping = false;
  private sequence = 0;
  private readonly pending = new Map<number, Pending>();
  private failures = 0;
  /** The outage being reconnected through: since when, and the attempts since its last warning. */
  private outage: { since: number; warnedAt: number; attempts: number } | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private enquireTimer: NodeJS.Timeout | null = null;
  private boundWaiters: Array<() => void> = [];
  /** The socket whose writes of this tick are being gathered (see `write`). */
  private corked: net.Socket | null = null;
  /** Why the last connection or bind failed, for `waitBound` and status pages. */
  lastError: string | null = null;
  binds = 0;

  constructor(
    private readonly options: LinkOptions,
    readonly mode: BindMode,
    /** Answers a request the SMSC sends (deliver_sm, ...) with a command_status, once it is handled. */
    private readonly onRequest: (pdu: Pdu) => Promise<number>,
    private readonly onBoundChange: (bound: boolean) => void,
  ) {}

  get isBound(): boolean {
    return this.bound;
  }

  get outstanding(): number {
    return this.pending.size;
  }

  start(): void {
    this.stopping = false;
    if (!this.socket && !this.reconnectTimer) this.connect();
  }

  /** Resolves once bound; rejects with the last failure after `timeoutMs`. */
  waitBound(timeoutMs: number): Promise<void> {
    if (this.bound) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.boundWaiters = this.boundWaiters.filter((waiter) => waiter !== done);
        reject(new Error(`SMPP ${this.mode} bind to ${this.where()} not up after ${timeoutMs} ms: ${this.lastError}`));
      }, timeoutMs);
      this.boundWaiters.push(done);
    });
  }

  /** Sends a request and resolves with its response PDU (whatever its command_status). */
  request(command: Command, body?: Buffer, timeoutMs?: number): Promise<Pdu> {
    const socket = this.socket;
    if (!socket || (!this.bound && !command.startsWith("bind_"))) {
      return Promise.reject(new LinkError("not_bound", `SMPP ${this.mode} link to ${this.where()} is not bound`));
    }
    this.sequence = (this.sequence % 0x7fffffff) + 1;
    const sequence = this.sequence;
    return new Promise((resolve, reject) => {
      const wait = timeoutMs ?? this.options.responseTimeoutMs ?? 10_000;
      const timer = setTimeout(() => {
        this.pending.delete(sequence);
        reject(new LinkError("timeout", `no ${command}_resp from ${this.where()} within ${wait} ms`));
      }, wait);
      this.pending.set(sequence, { resolve, reject, timer });
      if (!this.write(socket, encodePdu(COMMAND[command], sequence, 0, body))) {
        this.settle(sequence, new LinkError("connection_lost", "the socket is not writable"));
      }
    });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const socket = this.socket;
    if (socket && this.bound) await this.request("unbind", undefined, 2_000).catch(() => {});
    this.setBound(false);
    if (socket) await closed(socket);
    this.failPending("stopped", "the SMPP link was stopped");
  }

  /**
   * Writes a PDU. The writes of one tick leave in one syscall: with no-delay on, a write per
   * PDU cost a system call and a TCP segment each, the largest item of a window's CPU.
   */
  private write(socket: net.Socket, bytes: Buffer): boolean {
    if (!socket.writable) return false;
    if (this.corked !== socket) {
      this.corked = socket;
      socket.cork();
      process.nextTick(() => {
        if (this.corked === socket) this.corked = null;
        socket.uncork();
      });
    }
    socket.write(bytes);
    return true;
  }

  private where(): string {
    return `${this.options.host}:${this.options.port}`;
  }

  private connect(): void {
    this.reconnectTimer = null;
    const socket = net.connect({ host: this.options.host, port: this.options.port });
    this.socket = socket;
    // Small PDUs in a window: without this, Nagle holds each behind the previous one's ACK.
    socket.setNoDelay(true);
    const reader = new PduReader();
    socket.on("connect", () => void this.bind(socket));
    socket.on("data", (chunk: Buffer) => {
      let pdus: Pdu[];
      try {
        pdus = reader.push(chunk);
      } catch (error) {
        this.lastError = (error as Error).message;
        socket.destroy();
        return;
      }
      for (const pdu of pdus) this.receive(socket, pdu);
    });
    socket.on("error", (error: Error) => {
      this.lastError = error.message;
      socket.destroy();
    });
    socket.on("close", () => this.dropped(socket));
  }

  private async bind(socket: net.Socket): Promise<void> {
    try {
      const response = await this.request(
        `bind_${this.mode}`,
        bindBody({
          systemId: this.options.systemId,
          password: this.options.password,
          systemType: this.options.systemType ?? "",
          interfaceVersion: 0x34,
        }),
      );
      if (socket !== this.socket) return;
      if (response.status !== 0) {
        this.lastError = `bind refused: ${statusName(response.status)}`;
        this.options.log?.("warn", "SMPP bind refused", { mode: this.mode, status: this.lastError });
        socket.destroy();
        return;
      }
      const outage = this.outage;
      this.failures = 0;
      this.outage = null;
      this.binds++;
      this.lastError = null;
      this.setBound(true);
      this.scheduleEnquireLink();
      this.options.log?.("info", "SMPP bound", {
        mode: this.mode,
        smsc: this.where(),
        ...(outage
          ? { reconnect_attempts: outage.attempts, down_seconds: Math.round((this.now() - outage.since) / 1000) }
          : {}),
      });
    } catch (error) {
      this.lastError = `bind: ${(error as Error).message}`;
      socket.destroy();
    }
  }

  private receive(socket: net.Socket, pdu: Pdu): void {
    if (socket !== this.socket) return;
    this.scheduleEnquireLink();
    if (isResponse(pdu)) {
      this.settle(pdu.sequence, pdu);
      return;
    }
    const answer = (status: number, body?: Buffer) =>
      this.write(socket, encodePdu(responseId(pdu.commandId), pdu.sequence, status, body));
    switch (pdu.commandId) {
      case COMMAND.enquire_link:
        answer(0);
        return;
      case COMMAND.unbind:
        answer(0);
        socket.end(() => socket.destroy());
        this.setBound(false);
        return;
      case COMMAND.deliver_sm:
      case COMMAND.data_sm:
        this.onRequest(pdu).then(
          (status) => answer(status, EMPTY_MESSAGE_ID),
          () => answer(smpp.errors.ESME_RX_T_APPN!, EMPTY_MESSAGE_ID),
        );
        return;
      case COMMAND.alert_notification:
        return; // has no response
      default:
        this.write(socket, encodePdu(COMMAND.generic_nack, pdu.sequence, smpp.errors.ESME_RINVCMDID));
    }
  }

  private settle(sequence: number, outcome: Pdu | LinkError): void {
    const pending = this.pending.get(sequence);
    if (!pending) return; // timed out already: a late response is ignored
    this.pending.delete(sequence);
    clearTimeout(pending.timer);
    if (outcome instanceof LinkError) pending.reject(outcome);
    else pending.resolve(outcome);
  }

  private failPending(code: LinkError["code"], message: string): void {
    for (const sequence of [...this.pending.keys()]) this.settle(sequence, new LinkError(code, message));
  }

  private setBound(bound: boolean): void {
    if (this.bound === bound) return;
    this.bound = bound;
    if (bound) for (const waiter of this.boundWaiters.splice(0)) waiter();
    this.onBoundChange(bound);
  }

  private dropped(socket: net.Socket): void {
    if (socket !== this.socket) return;
    this.socket = null;
    if (this.enquireTimer) clearTimeout(this.enquireTimer);
    this.enquireTimer = null;
    const wasBound = this.bound;
    this.setBound(false);
    this.failPending("connection_lost", `the connection to ${this.where()} dropped before the response`);
    if (this.stopping) return;
    if (wasBound) this.lastError = "connection dropped";
    const initial = this.options.reconnectInitialMs ?? 1_000;
    const cap = this.options.reconnectMaxMs ?? 60_000;
    const delay =
      Math.min(cap, initial * 2 ** Math.min(this.failures, 20)) * (0.5 + 0.5 * (this.options.random ?? Math.random)());
    this.failures++;
    this.logReconnect(delay);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /**
   * The first loss of an outage is a warning; the attempts that fail after it are debug lines,
   * and a warning every `reconnectSummaryMs` sums them up (an SMSC down for an hour writes a
   * line a minute, not one per attempt). The bind that ends it says how long it lasted.
   */
  private logReconnect(delay: number): void {
    const now = this.now();
    const details = { mode: this.mode, smsc: this.where(), delayMs: Math.round(delay), reason: this.lastError };
    if (!this.outage) {
      this.outage = { since: now, warnedAt: now, attempts: 0 };
      this.options.log?.("warn", "SMPP connection lost, reconnecting", details);
      return;
    }
    this.outage.attempts++;
    if (now - this.outage.warnedAt < (this.options.reconnectSummaryMs ?? 60_000)) {
      this.options.log?.("debug", "SMPP reconnect failed, trying again", details);
      return;
    }
    const since = new Date(this.outage.since).toISOString();
    this.options.log?.("warn", `SMPP still reconnecting: ${this.outage.attempts} attempts failed since ${since}`, {
      ...details,
      attempts: this.outage.attempts,
      since,
    });
    this.outage.warnedAt = now;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** enquire_link after `enquireLinkSeconds` without traffic; no answer means a dead link. */
  private scheduleEnquireLink(): void {
    if (this.enquireTimer) clearTimeout(this.enquireTimer);
    if (!this.bound) return;
    this.enquireTimer = setTimeout(
      () => {
        const socket = this.socket;
        this.request("enquire_link").then(
          () => {},
          (error: LinkError) => {
            if (error.code !== "timeout" || socket !== this.socket) return;
            this.lastError = "enquire_link unanswered";
            socket?.destroy();
          },
        );
      },
      (this.options.enquireLinkSeconds ?? 30) * 1000,
    );
  }
}
