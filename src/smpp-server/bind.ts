// One client connection: the bind, then its requests. Requests are handled concurrently up to the
// window; past it the socket is paused, so a fast client waits in TCP instead of filling memory
// (and so does a client that stops reading our answers). Our own requests (deliver_sm,
// enquire_link, unbind) are numbered here and time out. A PDU that cannot be framed closes the
// connection after a generic_nack; a body that cannot be read gets its command's error answer.
import type { Socket } from "node:net";
import {
  COMMAND,
  cstringBody,
  type DeliverSm,
  deliverSmBody,
  encodePdu,
  MalformedPdu,
  type Pdu,
  PduReader,
  readBind,
  responseId,
  SERVER_COMMAND,
  submitMultiRespBody,
} from "./pdu.js";
import { STATUS } from "./status.js";
import type { BoundAccount, SubmitResult } from "./submit.js";

export type BindMode = "transmitter" | "receiver" | "transceiver";

const BIND_MODES = new Map<number, BindMode>([
  [COMMAND.bind_transmitter, "transmitter"],
  [COMMAND.bind_receiver, "receiver"],
  [COMMAND.bind_transceiver, "transceiver"],
]);

/** What a bind asks of the server it belongs to. */
export interface BindHost {
  window: number;
  enquireLinkMs: number;
  idleMs: number;
  responseTimeoutMs: number;
  systemId: string;
  authenticate(bind: Bind, systemId: string, password: string): Promise<{ status: number; account?: BoundAccount }>;
  submit(bind: Bind, command: "submit_sm" | "data_sm" | "submit_multi", body: Buffer): Promise<SubmitResult>;
  bound(bind: Bind): void;
  closed(bind: Bind): void;
  /** A deliver_sm slot came free. */
  ready(bind: Bind): void;
  warn(message: string, details: Record<string, unknown>): void;
}

interface Outgoing {
  resolve: (status: number | "lost") => void;
  timer: NodeJS.Timeout;
}

let nextBindId = 1;

export class Bind {
  readonly id = nextBindId++;
  readonly address: string;
  readonly since = Date.now();
  mode: BindMode | null = null;
  account: BoundAccount | undefined;
  submits = 0;
  private state: "open" | "binding" | "bound" | "closing" | "closed" = "open";
  private readonly reader = new PduReader();
  private inFlight = 0;
  private paused = false;
  private sequence = 0;
  private readonly outgoing = new Map<number, Outgoing>();
  private lastHeard = Date.now();
  private lastSent = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly socket: Socket,
    private readonly host: BindHost,
  ) {
    this.address = socket.remoteAddress ?? "";
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("drain", () => this.resume());
    socket.on("error", () => this.close());
    socket.on("close", () => this.closed());
    const tick = Math.max(250, Math.min(this.host.enquireLinkMs, this.host.idleMs) / 4);
    this.timer = setInterval(() => this.keepAlive(), tick);
    this.timer.unref();
  }

  get isBound(): boolean {
    return this.state === "bound";
  }

  get canReceive(): boolean {
    return this.state === "bound" && (this.mode === "receiver" || this.mode === "transceiver");
  }

  get canTransmit(): boolean {
    return this.state === "bound" && (this.mode === "transmitter" || this.mode === "transceiver");
  }

  /** deliver_sm that may be sent now. */
  get freeSlots(): number {
    return this.canReceive ? Math.max(0, this.host.window - this.outgoing.size) : 0;
  }

  private read(chunk: Buffer): void {
    this.lastHeard = Date.now();
    let pdus: Pdu[];
    try {
      pdus = this.reader.push(chunk);
    } catch (error) {
      // A length no PDU can have: the stream cannot be followed any further.
      this.write(encodePdu(COMMAND.generic_nack, 0, STATUS.ESME_RINVCMDLEN));
      this.host.warn("SMPP client sent a broken stream; closed", { address: this.address, error: String(error) });
      this.close();
      return;
    }
    for (const pdu of pdus) this.handle(pdu);
  }

  private handle(pdu: Pdu): void {
    if (this.state === "closed") return;
    if (pdu.commandId >= 0x80000000) {
      this.response(pdu);
      return;
    }
    switch (pdu.commandId) {
      case COMMAND.bind_transmitter:
      case COMMAND.bind_receiver:
      case COMMAND.bind_transceiver:
        void this.bind(pdu);
        return;
      case COMMAND.enquire_link:
        this.answer(pdu, STATUS.ESME_ROK);
        return;
      case COMMAND.unbind:
        this.answer(pdu, STATUS.ESME_ROK);
        this.socket.end();
        // The bind's place is free as soon as it is unbound.
        this.closed();
        return;
      case COMMAND.submit_sm:
        this.request(pdu, "submit_sm");
        return;
      case COMMAND.data_sm:
        this.request(pdu, "data_sm");
        return;
      case SERVER_COMMAND.submit_multi:
        this.request(pdu, "submit_multi");
        return;
      default:
        // An unknown command, or one only an SMSC sends (deliver_sm, outbind, alert_notification).
        this.write(encodePdu(COMMAND.generic_nack, pdu.sequence, STATUS.ESME_RINVCMDID));
    }
  }

  private async bind(pdu: Pdu): Promise<void> {
    const mode = BIND_MODES.get(pdu.commandId)!;
    if (this.state !== "open") {
      this.answer(pdu, this.state === "bound" ? STATUS.ESME_RALYBND : STATUS.ESME_RINVBNDSTS);
      return;
    }
    let request: ReturnType<typeof readBind>;
    try {
      request = readBind(pdu.body);
    } catch (error) {
      this.answer(pdu, error instanceof MalformedPdu ? error.status : STATUS.ESME_RINVCMDLEN);
      return;
    }
    this.state = "binding";
    this.mode = mode;
    const outcome = await this.host.authenticate(this, request.systemId, request.password).catch((error: unknown) => {
      this.host.warn("SMPP bind failed", { address: this.address, error: String(error) });
      return { status: STATUS.ESME_RBINDFAIL, account: undefined };
    });
    if (this.state !== "binding") {
      // Closed while the credentials were checked: give back the place the bind took.
      if (outcome.status === STATUS.ESME_ROK && outcome.account) {
        this.account = outcome.account;
        this.host.closed(this);
      }
      return;
    }
    if (outcome.status !== STATUS.ESME_ROK || !outcome.account) {
      this.mode = null;
      this.state = "open";
      this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, outcome.status));
      return;
    }
    this.account = outcome.account;
    this.state = "bound";
    this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, STATUS.ESME_ROK, cstringBody(this.host.systemId)));
    this.host.bound(this);
  }

  private request(pdu: Pdu, command: "submit_sm" | "data_sm" | "submit_multi"): void {
    if (!this.canTransmit) {
      this.answer(pdu, STATUS.ESME_RINVBNDSTS);
      return;
    }
    this.inFlight++;
    if (this.inFlight >= this.host.window) this.pause();
    this.submits++;
    this.host
      .submit(this, command, pdu.body)
      .catch((error: unknown): SubmitResult => {
        this.host.warn("SMPP submit failed", { address: this.address, error: String(error) });
        return { status: STATUS.ESME_RSYSERR, messageId: "", reason: "internal error" };
      })
      .then((result) => {
        this.inFlight--;
        if (this.state === "closed") return;
        // SMPP 3.4 (4.4.2): a refused submit's response has no body.
        const body =
          result.status !== STATUS.ESME_ROK
            ? undefined
            : command === "submit_multi"
              ? submitMultiRespBody(result.messageId, "failed" in result ? (result.failed ?? []) : [])
              : cstringBody(result.messageId);
        this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, result.status, body));
        this.resume();
      });
  }

  private answer(pdu: Pdu, status: number): void {
    this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, status));
  }

  private response(pdu: Pdu): void {
    if (pdu.commandId === COMMAND.generic_nack && !this.outgoing.has(pdu.sequence)) return;
    const waiting = this.outgoing.get(pdu.sequence);
    if (!waiting) return;
    this.outgoing.delete(pdu.sequence);
    clearTimeout(waiting.timer);
    waiting.resolve(pdu.commandId === COMMAND.generic_nack && pdu.status === 0 ? STATUS.ESME_RINVCMDID : pdu.status);
    if (pdu.commandId === SERVER_COMMAND.unbind_resp) this.socket.end();
    this.host.ready(this);
  }

  /** Sends a request of ours; resolves with the client's command_status, or "lost". */
  private send(commandId: number, body?: Buffer): Promise<number | "lost"> {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    const sequence = this.sequence;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.outgoing.delete(sequence);
        resolve("lost");
        this.host.ready(this);
      }, this.host.responseTimeoutMs);
      timer.unref();
      this.outgoing.set(sequence, { resolve, timer });
      this.write(encodePdu(commandId, sequence, 0, body));
    });
  }

  deliver(fields: DeliverSm): Promise<number | "lost"> {
    if (!this.canReceive) return Promise.resolve("lost");
    return this.send(COMMAND.deliver_sm, deliverSmBody(fields));
  }

  /** Asks the client to unbind (operator disconnect, shutdown); closes when answered or after the timeout. */
  async unbind(): Promise<void> {
    if (this.state === "closed") return;
    if (this.state !== "bound") {
      this.close();
      return;
    }
    this.state = "closing";
    await this.send(COMMAND.unbind);
    this.close();
  }

  private keepAlive(): void {
    const now = Date.now();
    if (now - this.lastHeard >= this.host.idleMs) {
      this.host.warn("SMPP bind idle; closed", { address: this.address, account: this.account?.principal.username });
      void this.unbind();
      return;
    }
    if (this.state === "bound" && now - Math.max(this.lastHeard, this.lastSent) >= this.host.enquireLinkMs) {
      void this.send(COMMAND.enquire_link).then((status) => {
        if (status === "lost") this.close();
      });
    }
  }

  private write(bytes: Buffer): void {
    if (this.socket.destroyed) return;
    this.lastSent = Date.now();
    if (!this.socket.write(bytes)) this.pause();
  }

  private pause(): void {
    if (this.paused) return;
    this.paused = true;
    this.socket.pause();
  }

  private resume(): void {
    if (!this.paused || this.inFlight >= this.host.window || this.socket.writableNeedDrain) return;
    this.paused = false;
    this.socket.resume();
  }

  close(): void {
    if (this.state === "closed") return;
    this.socket.destroy();
    this.closed();
  }

  private closed(): void {
    if (this.state === "closed") return;
    const wasBound = this.state === "bound" || this.state === "closing";
    this.state = "closed";
    clearInterval(this.timer);
    for (const waiting of this.outgoing.values()) {
      clearTimeout(waiting.timer);
      waiting.resolve("lost");
    }
    this.outgoing.clear();
    if (wasBound || this.account) this.host.closed(this);
  }
}
