// What the server writes to one client. The answers written in one turn of the event loop (a
// socket read's requests, the submits decided together) leave in one write instead of one system
// call each. What the kernel's buffers did not take waits in memory; past `maxBytes` of it the
// client is not reading, and `overflow` is told.
import type { Socket } from "node:net";

export class ClientOutput {
  private corked = false;
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
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => this.flush());
    }
    this.socket.write(bytes);
  }

  /** Hands this turn's writes to the socket; `checked`: and tells `overflow` when too much of them waits. */
  flush(checked = true): void {
    if (!this.corked) return;
    this.corked = false;
    this.socket.uncork();
    if (checked && this.socket.writableLength > this.maxBytes) this.overflow(this.socket.writableLength);
  }
}
