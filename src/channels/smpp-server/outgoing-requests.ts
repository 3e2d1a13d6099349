// A bind's own requests to its client (deliver_sm, enquire_link, unbind): numbered here, matched
// to the client's answers by sequence, and resolved "unanswered" past the response timeout or
// "closed" when the connection goes first.
import { COMMAND, encodePdu, type Pdu } from "../../base/smpp/index.js";
import { STATUS } from "./status.js";

/** The client's command_status for a request of ours; "unanswered" past the response timeout; "closed" when the connection went first. */
export type RequestOutcome = number | "unanswered" | "closed";

interface Outgoing {
  commandId: number;
  resolve: (outcome: RequestOutcome) => void;
  timer: NodeJS.Timeout;
}

export class OutgoingRequests {
  private sequence = 0;
  private readonly waiting = new Map<number, Outgoing>();

  constructor(
    private readonly responseTimeoutMs: number,
    private readonly write: (bytes: Buffer) => void,
    /** A request was answered or timed out: its slot is free. */
    private readonly freed: () => void,
  ) {}

  /** Requests awaiting the client's answer. */
  get size(): number {
    return this.waiting.size;
  }

  /** Sends a request of ours; resolves with the client's command_status, or why there is none. */
  send(commandId: number, body?: Buffer): Promise<RequestOutcome> {
    this.sequence = this.sequence >= 0x7fffffff ? 1 : this.sequence + 1;
    const sequence = this.sequence;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(sequence);
        resolve("unanswered");
        this.freed();
      }, this.responseTimeoutMs);
      timer.unref();
      this.waiting.set(sequence, { commandId, resolve, timer });
      this.write(encodePdu(commandId, sequence, 0, body));
    });
  }

  /**
   * The client's answer to a request of ours: `onMatched` is told the request's command before
   * the request resolves. A late answer, or one to nothing we asked: no one waits for it.
   */
  answered(pdu: Pdu, onMatched: (commandId: number) => void): void {
    const waiting = this.waiting.get(pdu.sequence);
    if (!waiting) return;
    onMatched(waiting.commandId);
    this.waiting.delete(pdu.sequence);
    clearTimeout(waiting.timer);
    waiting.resolve(pdu.commandId === COMMAND.generic_nack && pdu.status === 0 ? STATUS.ESME_RINVCMDID : pdu.status);
    this.freed();
  }

  /** The connection went: every request still waiting resolves "closed". */
  closeAll(): void {
    for (const waiting of this.waiting.values()) {
      clearTimeout(waiting.timer);
      waiting.resolve("closed");
    }
    this.waiting.clear();
  }
}
