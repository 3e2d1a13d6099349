// What the server writes to one client. The answers written in one turn of the event loop (a
// socket read's requests, the submits decided together) leave in one buffer and one write,
// instead of a system call each, and a socket destroyed with answers unsent drops one write's
// worth, not thousands (Node makes an error with a stack for each write it drops: 16,000 answers
// to a flood cost 230 ms). What the kernel's buffers did not take waits in memory; past
// `maxBytes` of it the client is not reading, and `overflow` is told.
import type { Socket } from "node:net";

export class ClientOutput {
  private pending: Buffer[] = [];
  /** When the server last wrote to the client. */
  lastSent = Date.now();

  constructor(
    private readonly socket: Socket,
    private readonly maxBytes: number,
    private readonly overflow: (unread: number) => void,
  ) {}

  write(bytes: Buffer): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.lastSent = Date.now();
    if (this.pending.length === 0) process.nextTick(() => this.flush());
    this.pending.push(bytes);
  }

  /** Hands this turn's writes to the socket; `checked`: and tells `overflow` when too much of them waits. */
  flush(checked = true): void {
    if (this.pending.length === 0) return;
    const bytes = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending);
    this.pending = [];
    if (this.socket.destroyed || this.socket.writableEnded) return;
    this.socket.write(bytes);
    if (checked && this.socket.writableLength > this.maxBytes) this.overflow(this.socket.writableLength);
  }

  /** Ends the connection after this turn's writes. */
  end(): void {
    this.flush(false);
    this.socket.end();
  }
}
