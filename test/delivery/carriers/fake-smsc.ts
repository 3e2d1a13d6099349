// A scriptable SMSC on 127.0.0.1 for the SMPP session tests, built on the smpp package's server:
// it checks binds, records every submit_sm (UDH, text, TLVs) and how many were awaiting their
// response at once, answers with generated message ids or whatever the next script step says
// (an error status, no answer, a dropped connection), and sends receipts and MO messages.
import type { AddressInfo } from "node:net";
import type { Pdu, Session } from "smpp";
import smpp from "smpp";

import { encodeGsm7, encodeUcs2 } from "../../../src/base/smpp/index.js";

const registeredTlvs = (smpp as unknown as { tlvs: Record<string, { id: number } | undefined> }).tlvs;

/** How to answer one submit_sm: `late` answers ok after that many ms instead of responseDelayMs. */
export type SubmitAction = "ok" | "throttle" | "queue_full" | "hang" | "drop" | { status: number } | { late: number };

export interface RecordedSubmit {
  connection: number;
  messageId: string | null;
  source: string;
  sourceTon: number;
  destination: string;
  dataCoding: number;
  esmClass: number;
  registeredDelivery: number;
  /** The whole UDH (length byte included), or null. */
  udh: Buffer | null;
  text: string;
  /** Vendor TLVs by tag, as text. */
  tlvs: Record<number, string>;
  answer: SubmitAction;
  receivedAt: number;
}

/** One deliver_sm of a receipt (reliable mode) and the ESME's answer to it. */
export interface ReceiptDelivery {
  id: string;
  connection: number;
  at: number;
  answer: number | null;
}

export interface BindAttempt {
  connection: number;
  mode: string;
  systemId: string;
  accepted: boolean;
}

interface Connection {
  id: number;
  session: Session;
  mode: string | null;
  waiting: number;
  /** Receipts sent on this connection (reliable mode) that no deliver_sm_resp has answered yet. */
  unanswered: Set<Record<string, unknown>>;
}

export class FakeSmsc {
  readonly submits: RecordedSubmit[] = [];
  readonly binds: BindAttempt[] = [];
  /** Answers of the ESME to our deliver_sm, by command_status. */
  readonly deliverAnswers: number[] = [];
  enquireLinks = 0;
  unbinds = 0;
  /** The most submit_sm one connection had awaiting a response at once. */
  peakWaiting = 0;
  answerEnquireLink = true;
  /** Delay before each submit_sm_resp (ms). */
  responseDelayMs = 0;
  /** While true, submit_sm answers wait (in order) until release() sends them. */
  holding = false;
  private readonly held: (() => void)[] = [];
  /** When set, every part answered ok gets its DELIVRD receipt this many ms after its response. */
  receiptAfterMs: number | null = null;
  /** Share (0 to 1) of those automatic receipts that are UNDELIV, spread evenly; may change while it runs. */
  failedReceiptShare = 0;
  private failedReceiptDebt = 0;
  /**
   * Receipts as a real SMSC keeps them: each goes to a bound transceiver or receiver in turn,
   * waits while none is bound, and one whose deliver_sm got no answer before its connection
   * closed is sent again on another (the fault tests drop connections and kill processes).
   */
  reliableReceipts = false;
  /** While true, every connection is closed as soon as it is accepted (an SMSC refusing service). */
  refuseConnections = false;
  /** The ESME's TCP port of each connection, by connection id (which process it is). */
  readonly peerPorts = new Map<number, number>();
  /** When each connection closed, by connection id. */
  readonly closed = new Map<number, number>();
  /** Receipts sent and answered by the ESME (reliable mode). */
  receiptsAnswered = 0;
  /**
   * Each deliver_sm of a receipt sent (reliable mode): the part's id, the connection it went to,
   * when, and the ESME's command_status (null while unanswered, and for good when the
   * connection closed first: the receipt is then sent again, another entry).
   */
  readonly receiptDeliveries: ReceiptDelivery[] = [];
  private readonly receiptIds = new WeakMap<object, string>();
  private readonly receiptQueue: Record<string, unknown>[] = [];
  private receiptTurn = 0;
  private receiptPump: NodeJS.Timeout | undefined;
  private readonly server = smpp.createServer({}, (session) => this.accept(session));
  private readonly connections = new Set<Connection>();
  private readonly script: SubmitAction[] = [];
  private nextConnection = 1;
  /** The number of the next submit_sm_resp's message id (written in hex). */
  nextId = 0x5a000;

  constructor(
    readonly systemId = "switchboard",
    readonly password = "secret",
  ) {}

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    return this.port;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get boundConnections(): number {
    return [...this.connections].filter((connection) => connection.mode).length;
  }

  /** The next `count` submits get `action` (after any steps already scripted). */
  next(count: number, action: SubmitAction): this {
    for (let i = 0; i < count; i++) this.script.push(action);
    return this;
  }

  /** Sends every held submit_sm answer and stops holding. */
  release(): void {
    this.holding = false;
    for (const answer of this.held.splice(0)) answer();
  }

  /** Closes every connection without an unbind, as a crashing SMSC or a broken network does. */
  dropAll(): void {
    for (const connection of this.connections) connection.session.destroy();
  }

  async stop(): Promise<void> {
    if (this.receiptPump) clearInterval(this.receiptPump);
    this.receiptPump = undefined;
    this.reliableReceipts = false;
    this.dropAll();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Whether `n` submits were received and each was answered with a message id. */
  answered(n: number): boolean {
    return this.submits.length === n && this.submits.every((submit) => submit.messageId !== null);
  }

  /** The next automatic receipt: UNDELIV for failedReceiptShare of them, evenly spread. */
  private automaticReceipt(): { stat?: string; err?: string } {
    this.failedReceiptDebt += this.failedReceiptShare;
    if (this.failedReceiptDebt < 1) return {};
    this.failedReceiptDebt -= 1;
    return { stat: "UNDELIV", err: "001" };
  }

  /** Sends a delivery receipt for one submitted part on a connection that takes deliveries. */
  sendReceipt(
    messageId: string,
    options: { stat?: string; err?: string; withTlvs?: boolean; messageState?: number; done?: string } = {},
  ): void {
    // A receipt for a submit not answered yet (no id) is a test that did not wait for the answer.
    if (typeof messageId !== "string")
      throw new Error("sendReceipt: the submit has no message id yet; wait until it is answered");
    const stat = options.stat ?? "DELIVRD";
    const done = options.done ?? "2611221431";
    const text = `id:${messageId} sub:001 dlvrd:${stat === "DELIVRD" ? "001" : "000"} submit date:2611221430 done date:${done} stat:${stat} err:${options.err ?? "000"} text:`;
    const fields: Record<string, unknown> = {
      source_addr: "919800000001",
      destination_addr: "SWITCH",
      esm_class: 0x04,
      data_coding: 0,
      short_message: Buffer.from(text, "latin1"),
    };
    if (options.withTlvs) {
      fields.receipted_message_id = messageId;
      fields.message_state = options.messageState ?? (stat === "DELIVRD" ? 2 : 5);
    }
    if (this.reliableReceipts) {
      this.receiptIds.set(fields, messageId);
      this.receiptQueue.push(fields);
      this.pumpReceipts();
      return;
    }
    this.deliver(fields);
  }

  /** Receipts queued (reliable mode) or sent and not answered yet. */
  get receiptsOutstanding(): number {
    let unanswered = 0;
    for (const connection of this.connections) unanswered += connection.unanswered.size;
    return this.receiptQueue.length + unanswered;
  }

  private pumpReceipts(): void {
    if (!this.reliableReceipts) return; // stopped
    const receivers = [...this.connections].filter(
      (c) => (c.mode === "transceiver" || c.mode === "receiver") && !c.session.socket.destroyed,
    );
    if (receivers.length === 0) {
      // Nobody to deliver to: look again shortly (a reconnect, a restarted worker).
      this.receiptPump ??= setInterval(() => this.pumpReceipts(), 50);
      return;
    }
    if (this.receiptPump) clearInterval(this.receiptPump);
    this.receiptPump = undefined;
    for (const fields of this.receiptQueue.splice(0)) {
      const target = receivers[this.receiptTurn++ % receivers.length]!;
      target.unanswered.add(fields);
      const delivery: ReceiptDelivery = {
        id: this.receiptIds.get(fields) ?? "?",
        connection: target.id,
        at: Date.now(),
        answer: null,
      };
      this.receiptDeliveries.push(delivery);
      target.session.send(new smpp.PDU("deliver_sm", fields), (response) => {
        if (!target.unanswered.delete(fields)) return;
        delivery.answer = response.command_status;
        if (response.command_status === 0) {
          this.receiptsAnswered++;
          return;
        }
        // Refused for now (the ESME's database is down, say): sent again a little later.
        setTimeout(() => {
          this.receiptQueue.push(fields);
          this.pumpReceipts();
        }, 250);
      });
    }
  }

  /** Sends an MO message, in `parts` concatenated parts when given more than one (`spread`: each on another connection). */
  sendMo(
    from: string,
    to: string,
    text: string,
    options: { ucs2?: boolean; parts?: number; reference?: number; spread?: boolean } = {},
  ) {
    const chars = [...text];
    const count = options.parts ?? 1;
    const size = Math.ceil(chars.length / count);
    for (let i = 0; i < count; i++) {
      const piece = chars.slice(i * size, (i + 1) * size).join("");
      const body = options.ucs2 ? encodeUcs2(piece) : encodeGsm7(piece);
      const udh = count > 1 ? Buffer.from([5, 0, 3, options.reference ?? 42, count, i + 1]) : Buffer.alloc(0);
      this.deliver(
        {
          source_addr: from,
          destination_addr: to,
          esm_class: count > 1 ? 0x40 : 0,
          data_coding: options.ucs2 ? 8 : 0,
          short_message: Buffer.concat([udh, body]),
        },
        options.spread ? i : 0,
      );
    }
  }

  /** Asks every bound connection to unbind, as an SMSC going down for maintenance does. */
  unbindAll(): void {
    for (const connection of this.connections) {
      if (connection.mode) connection.session.send(new smpp.PDU("unbind"));
    }
  }

  /** Sends enquire_link to the first bound connection and resolves with the answer's status. */
  enquireLink(): Promise<number> {
    const target = [...this.connections].find((connection) => connection.mode);
    if (!target) throw new Error("fake SMSC: no bound connection");
    return new Promise((resolve) =>
      target.session.send(new smpp.PDU("enquire_link"), (response) => resolve(response.command_status)),
    );
  }

  async waitFor(condition: () => boolean, timeoutMs = 10_000, what = "the condition"): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > until) throw new Error(`fake SMSC: ${what} not met within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  private deliver(fields: Record<string, unknown>, nth = 0): void {
    const receivers = [...this.connections].filter((c) => c.mode === "transceiver" || c.mode === "receiver");
    const target = receivers[nth % Math.max(1, receivers.length)];
    if (!target) throw new Error("fake SMSC: no bound transceiver or receiver to deliver to");
    target.session.send(new smpp.PDU("deliver_sm", fields));
  }

  private accept(session: Session): void {
    const connection: Connection = {
      id: this.nextConnection++,
      session,
      mode: null,
      waiting: 0,
      unanswered: new Set(),
    };
    session.on("error", () => {});
    if (this.refuseConnections) {
      session.destroy();
      return;
    }
    this.connections.add(connection);
    this.peerPorts.set(connection.id, session.socket.remotePort ?? 0);
    session.socket.setNoDelay(true);
    session.on("close", () => {
      this.connections.delete(connection);
      this.closed.set(connection.id, Date.now());
      if (!this.reliableReceipts || connection.unanswered.size === 0) return;
      // The ESME never answered these: a real SMSC keeps them and tries another bind.
      this.receiptQueue.push(...connection.unanswered);
      connection.unanswered.clear();
      this.pumpReceipts();
    });
    session.on("pdu", (pdu: Pdu) => this.receive(connection, pdu));
  }

  private receive(connection: Connection, pdu: Pdu): void {
    const { session } = connection;
    switch (pdu.command) {
      case "bind_transceiver":
      case "bind_transmitter":
      case "bind_receiver": {
        const accepted = pdu.system_id === this.systemId && pdu.password === this.password;
        const mode = pdu.command.slice("bind_".length);
        this.binds.push({ connection: connection.id, mode, systemId: String(pdu.system_id), accepted });
        if (accepted) connection.mode = mode;
        session.send(pdu.response({ command_status: accepted ? 0 : smpp.errors.ESME_RINVPASWD, system_id: "FAKE" }));
        return;
      }
      case "enquire_link":
        this.enquireLinks++;
        if (this.answerEnquireLink) session.send(pdu.response());
        return;
      case "unbind":
        this.unbinds++;
        connection.mode = null;
        session.send(pdu.response(), () => session.close());
        return;
      case "deliver_sm_resp":
        this.deliverAnswers.push(pdu.command_status);
        return;
      case "submit_sm":
        this.submit(connection, pdu);
        return;
    }
  }

  private submit(connection: Connection, pdu: Pdu): void {
    const answer = this.script.shift() ?? "ok";
    const message = pdu.short_message as { message: string; udh?: Buffer[] };
    const udh = message.udh?.length ? Buffer.concat([Buffer.from([0]), ...message.udh]) : null;
    if (udh) udh[0] = udh.length - 1;
    const tlvs: Record<number, string> = {};
    for (const [key, value] of Object.entries(pdu)) {
      const text = Buffer.isBuffer(value) ? value.toString("latin1") : String(value);
      const tag = /^tlv_0x([0-9a-f]{4})$/.exec(key)?.[1] ?? (/^\d+$/.test(key) ? Number(key).toString(16) : null);
      if (tag) {
        tlvs[Number.parseInt(tag, 16)] = text;
        continue;
      }
      // A vendor tag (0x1400-0x3fff) may have a name another test file gave it with smpp.addTLV,
      // which the package keeps for the whole process.
      const named = registeredTlvs[key]?.id;
      if (named !== undefined && named >= 0x1400 && named <= 0x3fff) tlvs[named] = text;
    }
    const record: RecordedSubmit = {
      connection: connection.id,
      messageId: null,
      source: String(pdu.source_addr),
      sourceTon: Number(pdu.source_addr_ton),
      destination: String(pdu.destination_addr),
      dataCoding: Number(pdu.data_coding),
      esmClass: Number(pdu.esm_class),
      registeredDelivery: Number(pdu.registered_delivery),
      udh,
      text: message.message,
      tlvs,
      answer,
      receivedAt: Date.now(),
    };
    this.submits.push(record);
    connection.waiting++;
    this.peakWaiting = Math.max(this.peakWaiting, connection.waiting);
    if (answer === "hang") return;
    if (answer === "drop") {
      connection.session.destroy();
      return;
    }
    const late = typeof answer === "object" && "late" in answer;
    const respond = () => {
      connection.waiting--;
      if (answer === "ok" || late) {
        const messageId = (this.nextId++).toString(16);
        record.messageId = messageId;
        connection.session.send(pdu.response({ message_id: messageId }));
        if (this.receiptAfterMs !== null) {
          const receipt = this.automaticReceipt();
          setTimeout(() => this.sendReceipt(messageId, receipt), this.receiptAfterMs);
        }
        return;
      }
      const status =
        answer === "throttle"
          ? smpp.errors.ESME_RTHROTTLED
          : answer === "queue_full"
            ? smpp.errors.ESME_RMSGQFUL
            : answer.status;
      connection.session.send(pdu.response({ command_status: status }));
    };
    setTimeout(() => (this.holding ? this.held.push(respond) : respond()), late ? answer.late : this.responseDelayMs);
  }
}
