// One client connection: the bind, then its requests. At most `window` submits and queries are
// handled at once; the requests read past the window (or behind a bind not yet answered) wait in
// arrival order, and while any wait the socket is paused: a client that floods without waiting
// is held in TCP instead of in memory. One that does not read our answers is closed past
// `outputMaxBytes` of them (client-output.ts), one that does not bind within `bindTimeoutMs`
// whatever it sends. What it sent after its unbind is answered, not taken, before unbind_resp. Our
// requests (deliver_sm, enquire_link, unbind) are numbered and time out in outgoing-requests.ts;
// answers to them are taken at once. A PDU that cannot be framed ends the connection after a
// generic_nack; a body that cannot be read gets its command's error answer.
import type { Socket } from "node:net";
import {
  BrokenStream,
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
} from "../../base/smpp/index.js";
import type { BindHost } from "./bind-host.js";
import { BIND_MODES, type BindMode, type RequestAnswer, WINDOWED, type WindowedCommand } from "./client-commands.js";
import { ClientOutput } from "./client-output.js";
import { OutgoingRequests, type RequestOutcome } from "./outgoing-requests.js";
import { STATUS } from "./status.js";
import type { BoundAccount } from "./submit.js";

/** Requests started in one turn of the event loop at most: a flood gives the loop back between turns. */
const REQUESTS_PER_TURN = 1_000;

export class Bind {
  readonly address: string;
  readonly port: number;
  readonly since = Date.now();
  mode: BindMode | null = null;
  account: BoundAccount | undefined;
  submits = 0;
  private state: "open" | "binding" | "bound" | "unbinding" | "closing" | "closed" = "open";
  private readonly reader = new PduReader();
  /** Requests read but not started: past the window, or behind one that is. */
  private readonly waiting: Pdu[] = [];
  private inFlight = 0;
  /** A bind being checked: the requests read after it wait for its answer, in order. */
  private bindPending = false;
  private paused = false;
  private drainScheduled = false;
  /** Reads paused (paused now, or since the server's enquire_link went): its answer may wait unread. */
  private pauses = 0;
  private readonly output: ClientOutput;
  private readonly requests: OutgoingRequests;
  private unbindRequest: Pdu | undefined;
  private enquiring = false;
  /** The client's last request or answer, other than an answer to our enquire_link. */
  private lastActive = Date.now();
  private lastHeard = Date.now();
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly id: string,
    private readonly socket: Socket,
    private readonly host: BindHost<Bind>,
    readonly tls: boolean,
  ) {
    this.address = socket.remoteAddress ?? "";
    this.port = socket.remotePort ?? 0;
    this.output = new ClientOutput(socket, host.outputMaxBytes, (unread) => {
      // What the kernel did not take stays in memory: a client that does not read is not kept.
      this.host.warn("SMPP client does not read its answers; closed", {
        address: this.address,
        account: this.account?.principal.username,
        unread,
      });
      this.close();
    });
    this.requests = new OutgoingRequests(
      host.responseTimeoutMs,
      (bytes) => this.write(bytes),
      () => host.ready(this),
    );
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("error", () => this.close());
    socket.on("close", () => this.closed());
    const tick = Math.max(100, Math.min(this.host.enquireLinkMs, this.host.idleMs, this.host.bindTimeoutMs) / 4);
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

  /** Submits being handled and requests of ours awaiting the client's answer. */
  get outstanding(): number {
    return this.inFlight + this.requests.size;
  }

  /** Bytes this bind holds: answers not yet taken by the socket, and requests read but not started. */
  get buffered(): number {
    return this.socket.writableLength + this.waiting.reduce((sum, pdu) => sum + 16 + pdu.body.length, 0);
  }

  /** deliver_sm that may be sent now. */
  get freeSlots(): number {
    return this.canReceive ? Math.max(0, this.host.window - this.requests.size) : 0;
  }

  private read(chunk: Buffer): void {
    // Ended (a broken stream, an unbind): what the client still sends is dropped unread.
    if (this.state === "closed") return;
    this.lastHeard = Date.now();
    let pdus: Pdu[];
    try {
      pdus = this.reader.push(chunk);
    } catch (error) {
      // A length no PDU can have: the stream cannot be followed. Ended after the nack (the header's
      // sequence_number), not cut: cut with the client's bytes unread, its reset could take the nack.
      const sequence = error instanceof BrokenStream ? error.sequence : 0;
      this.write(encodePdu(COMMAND.generic_nack, sequence, STATUS.ESME_RINVCMDLEN));
      this.host.warn("SMPP client sent a broken stream; closed", { address: this.address, error: String(error) });
      this.output.end();
      this.socket.resume();
      this.closed();
      return;
    }
    for (const pdu of pdus) {
      if (pdu.commandId >= 0x80000000) this.response(pdu);
      else this.waiting.push(pdu);
    }
    this.drain();
  }

  /** Starts the waiting requests, in order, as far as the window allows, and the rest in a later turn. */
  private drain(): void {
    let started = 0;
    while (this.waiting.length > 0 && this.state !== "closed") {
      if (this.bindPending) break;
      const next = this.waiting[0]!;
      if (WINDOWED.has(next.commandId) && this.inFlight >= this.host.window) break;
      if (started++ === REQUESTS_PER_TURN) {
        if (!this.drainScheduled) {
          this.drainScheduled = true;
          setImmediate(() => {
            this.drainScheduled = false;
            this.drain();
          });
        }
        break;
      }
      this.waiting.shift();
      this.handle(next);
    }
    const hold = this.waiting.length > 0;
    if (hold !== this.paused && this.state !== "closed") {
      this.paused = hold;
      if (hold) this.pauses++;
      if (hold) this.socket.pause();
      else this.socket.resume();
    }
  }

  private handle(pdu: Pdu): void {
    this.lastActive = Date.now();
    const windowed = WINDOWED.get(pdu.commandId);
    if (windowed) {
      this.request(pdu, windowed);
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
        this.unbindAsked(pdu);
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
    this.bindPending = true;
    await this.bindAs(pdu, request).finally(() => {
      this.bindPending = false;
    });
    // What the client sent behind its bind is handled now, as the bind left the session.
    this.drain();
  }

  private async bindAs(pdu: Pdu, request: ReturnType<typeof readBind>): Promise<void> {
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
    // Listed before the client hears it is bound.
    await this.host.bound(this);
    if (this.state !== "bound") return;
    this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, STATUS.ESME_ROK, cstringBody(this.host.systemId)));
    // What the account is owed may go now.
    this.host.ready(this);
  }

  private request(pdu: Pdu, command: WindowedCommand): void {
    if (!this.canTransmit) {
      this.answer(pdu, STATUS.ESME_RINVBNDSTS);
      return;
    }
    this.inFlight++;
    this.host
      .request(this, command, pdu.body)
      .catch((error: unknown): RequestAnswer => {
        this.host.warn(`SMPP ${command} failed`, { address: this.address, error: String(error) });
        return { status: STATUS.ESME_RSYSERR };
      })
      .then((answer) => {
        this.inFlight--;
        this.lastActive = Date.now();
        this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, answer.status, answer.body));
        if (this.state === "unbinding") this.finishUnbind();
        else this.drain();
      });
  }

  /**
   * The client's unbind: what it sent after the unbind (read with it) is answered, in order, but
   * not taken; its submits in flight are answered; then unbind_resp, then the connection ends.
   */
  private unbindAsked(pdu: Pdu): void {
    if (this.state === "unbinding") {
      // A second unbind while the first waits for the submits in flight.
      this.answer(pdu, STATUS.ESME_RINVBNDSTS);
      return;
    }
    const bound = this.state === "bound";
    for (const late of this.waiting.splice(0)) this.answerLate(late);
    if (!bound) {
      this.answer(pdu, STATUS.ESME_ROK);
      this.output.end();
      this.closed();
      return;
    }
    this.state = "unbinding";
    this.unbindRequest = pdu;
    this.finishUnbind();
  }

  /** A request sent after the client's unbind: answered, not taken (an enquire_link ESME_ROK). */
  private answerLate(pdu: Pdu): void {
    if (pdu.commandId === COMMAND.enquire_link) this.answer(pdu, STATUS.ESME_ROK);
    else if (BIND_MODES.has(pdu.commandId) || WINDOWED.has(pdu.commandId) || pdu.commandId === COMMAND.unbind) {
      this.answer(pdu, STATUS.ESME_RINVBNDSTS);
    } else this.write(encodePdu(COMMAND.generic_nack, pdu.sequence, STATUS.ESME_RINVCMDID));
  }

  private finishUnbind(): void {
    if (this.inFlight > 0 || !this.unbindRequest) return;
    this.answer(this.unbindRequest, STATUS.ESME_ROK);
    this.output.end();
    this.closed();
  }

  private answer(pdu: Pdu, status: number): void {
    this.write(encodePdu(responseId(pdu.commandId), pdu.sequence, status));
  }

  private response(pdu: Pdu): void {
    this.requests.answered(pdu, (commandId) => {
      if (commandId !== COMMAND.enquire_link) this.lastActive = Date.now();
    });
  }

  deliver(fields: DeliverSm): Promise<RequestOutcome> {
    if (!this.canReceive) return Promise.resolve("closed");
    return this.requests.send(COMMAND.deliver_sm, deliverSmBody(fields));
  }

  /** Asks the client to unbind (operator disconnect, idle, shutdown); closes when answered or after the timeout. */
  async unbind(): Promise<void> {
    if (this.state === "closed" || this.state === "closing") return;
    if (this.state !== "bound") {
      this.close();
      return;
    }
    this.state = "closing";
    await this.requests.send(COMMAND.unbind);
    this.close();
  }

  private keepAlive(): void {
    const now = Date.now();
    if ((this.state === "open" || this.state === "binding") && now - this.since >= this.host.bindTimeoutMs) {
      this.host.warn("SMPP connection did not bind in time; closed", { address: this.address });
      this.close();
      return;
    }
    // Requests in hand (being handled, or held unread past the window) prove the client is there;
    // so do requests held in TCP while the server does not read: what the client sent since, an
    // enquire_link_resp among it, is not read yet.
    if (this.inFlight > 0 || this.waiting.length > 0 || this.paused) return;
    if ((this.state === "open" || this.state === "bound") && now - this.lastActive >= this.host.idleMs) {
      this.host.warn(this.state === "open" ? "SMPP connection never bound; closed" : "SMPP bind idle; unbound", {
        address: this.address,
        account: this.account?.principal.username,
      });
      void this.unbind();
      return;
    }
    if (
      this.state === "bound" &&
      !this.enquiring &&
      now - Math.max(this.lastHeard, this.output.lastSent) >= this.host.enquireLinkMs
    ) {
      this.enquiring = true;
      const pauses = this.pauses;
      void this.requests.send(COMMAND.enquire_link).then((outcome) => {
        this.enquiring = false;
        // Unread is not unanswered: the server stopped reading while it waited.
        if (outcome === "unanswered" && !this.paused && this.pauses === pauses) {
          this.host.warn("SMPP client did not answer enquire_link; closed", {
            address: this.address,
            account: this.account?.principal.username,
          });
          this.close();
        }
      });
    }
  }

  private write(bytes: Buffer): void {
    this.output.write(bytes);
  }

  close(): void {
    if (this.state === "closed") return;
    // What was written this turn (a generic_nack) goes out before the connection is cut.
    this.output.flush(false);
    this.socket.destroy();
    this.closed();
  }

  private closed(): void {
    if (this.state === "closed") return;
    this.state = "closed";
    clearInterval(this.timer);
    this.waiting.length = 0;
    this.requests.closeAll();
    // A socket ended politely (unbind) that the client does not close is not kept.
    if (!this.socket.destroyed) setTimeout(() => this.socket.destroy(), 5_000).unref();
    this.host.closed(this);
  }
}
