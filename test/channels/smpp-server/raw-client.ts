// A client that writes PDUs byte by byte on a raw socket (plain or TLS), for what no ESME library
// does: malformed PDUs, floods without waiting for answers, not reading at all.
import net from "node:net";
import tls from "node:tls";
import { encodePdu, type Pdu, PduReader } from "../../../src/base/smpp/index.js";
import type { SmppAccount } from "./client.js";

export const BIND_TRANSMITTER = 0x00000002;
export const BIND_TRANSCEIVER = 0x00000009;
export const SUBMIT_SM = 0x00000004;
export const ENQUIRE_LINK = 0x00000015;
export const UNBIND = 0x00000006;

export class RawClient {
  readonly socket: net.Socket;
  private readonly reader = new PduReader();
  private readonly received: Pdu[] = [];
  private waiting: (() => void) | undefined;
  closed = false;

  /**
   * `answerEnquireLink`: answer the server's enquire_link instead of queueing it with the rest;
   * `localAddress`: the loopback address to connect from (127.0.0.2, …: another client address).
   */
  constructor(
    port: number,
    options: { tls?: tls.ConnectionOptions; answerEnquireLink?: boolean; localAddress?: string } = {},
  ) {
    this.socket = options.tls
      ? tls.connect({ ...options.tls, port, host: "127.0.0.1" })
      : net.connect({
          port,
          host: "127.0.0.1",
          ...(options.localAddress ? { localAddress: options.localAddress } : {}),
        });
    this.socket.on("data", (chunk: Buffer) => {
      for (const pdu of this.reader.push(chunk)) {
        if (options.answerEnquireLink && pdu.commandId === ENQUIRE_LINK) {
          this.send(encodePdu(0x80000015, pdu.sequence));
        } else {
          this.received.push(pdu);
        }
      }
      this.waiting?.();
    });
    this.socket.on("error", () => undefined);
    this.socket.on("close", () => {
      this.closed = true;
      this.waiting?.();
    });
  }

  connected(): Promise<void> {
    const event = this.socket instanceof tls.TLSSocket ? "secureConnect" : "connect";
    return new Promise((resolve, reject) => {
      this.socket.once(event, resolve);
      this.socket.once("error", reject);
    });
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next PDU the server sent; rejects when the connection closed first. */
  async next(timeoutMs = 15_000): Promise<Pdu> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length === 0) {
      if (this.closed) throw new Error("closed before an answer came");
      if (Date.now() > deadline) throw new Error("no answer");
      await new Promise<void>((resolve) => {
        this.waiting = resolve;
        setTimeout(resolve, 100);
      });
    }
    return this.received.shift()!;
  }

  /** Binds (transceiver unless told) and checks the answer. */
  async bind(account: SmppAccount, commandId = BIND_TRANSCEIVER): Promise<void> {
    this.send(encodePdu(commandId, 1, 0, bindBody(account)));
    const answer = await this.next();
    if (answer.status !== 0) throw new Error(`bind refused: ${answer.status}`);
  }

  /** Resolves when the connection closes (its close event); rejects after `timeoutMs`. */
  untilClosed(timeoutMs = 15_000): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onClose = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.socket.off("close", onClose);
        reject(new Error("still open"));
      }, timeoutMs);
      this.socket.once("close", onClose);
    });
  }

  destroy(): void {
    this.socket.destroy();
  }
}

export function cstrings(...values: string[]): Buffer {
  return Buffer.concat(values.map((value) => Buffer.from(`${value}\0`, "latin1")));
}

export function bindBody(account: SmppAccount): Buffer {
  return Buffer.concat([cstrings(account.username, account.smppPassword, ""), Buffer.from([0x34, 0, 0, 0])]);
}

/** One TLV: tag, length, value. */
export function tlv(tag: number, value: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value]);
}

/** A submit_sm body: text as Latin-1 bytes, data_coding 0 (GSM-7 for ASCII text) unless told, no TLVs. */
export function submitBody(
  source: string,
  destination: string,
  text: string,
  registeredDelivery = 0,
  dataCoding = 0,
): Buffer {
  return Buffer.concat([
    cstrings(""),
    Buffer.from([0, 0]),
    cstrings(source),
    Buffer.from([1, 1]),
    cstrings(destination),
    Buffer.from([0, 0, 0]),
    cstrings("", ""),
    Buffer.from([registeredDelivery, 0, dataCoding, 0, text.length]),
    Buffer.from(text, "latin1"),
  ]);
}
