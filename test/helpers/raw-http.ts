// HTTP/1.1 over a plain socket, for what fetch hides: several requests on one keep-alive
// connection (a refusal must leave it usable), a chosen source address (127.0.0.2…), and
// bodies that are not what their headers say.
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** A keep-alive connection to the gateway; `localAddress` picks the source address (any of 127/8). */
export class RawConnection {
  private buffered = Buffer.alloc(0);
  private closed = false;
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      this.waiter?.();
    });
    socket.on("close", () => {
      this.closed = true;
      this.waiter?.();
    });
    socket.on("error", () => {
      this.closed = true;
      this.waiter?.();
    });
  }

  static open(url: string, localAddress?: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port), ...(localAddress ? { localAddress } : {}) }, () =>
        resolve(new RawConnection(socket)),
      );
      socket.once("error", reject);
    });
  }

  /** True once the server closed the connection. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes bytes without waiting for an answer (a request sent in pieces, the rest by exchange()). */
  write(data: Buffer | string): void {
    this.socket.write(data);
  }

  /**
   * Sends one request (head and body as given) and reads its answer; rejects after `timeoutMs`:
   * 10 s by default, a bound for a hung connection, not for a slow answer (1 s failed tests whose
   * answers took longer amid the whole suite on the 2-core machine; the fuzz harness's likewise).
   */
  async exchange(head: string, body: Buffer | string = "", timeoutMs = 10_000): Promise<RawResponse> {
    this.socket.write(Buffer.concat([Buffer.from(head), Buffer.from(body)]));
    return this.read(timeoutMs);
  }

  /** A request with the usual headers: Host, Content-Length, and those given. */
  request(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: Buffer | string; timeoutMs?: number } = {},
  ): Promise<RawResponse> {
    const body = Buffer.from(options.body ?? "");
    const headers = { host: "127.0.0.1", "content-length": String(body.length), ...(options.headers ?? {}) };
    const head = `${method} ${path} HTTP/1.1\r\n${Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")}\r\n`;
    return this.exchange(head, body, options.timeoutMs);
  }

  private async read(timeoutMs: number): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed) return parsed;
      if (this.closed) throw new Error("the server closed the connection without an answer");
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answer within ${timeoutMs} ms on the kept-alive connection`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.waiter = undefined;
    }
  }

  private parse(): RawResponse | undefined {
    const end = this.buffered.indexOf("\r\n\r\n");
    if (end === -1) return undefined;
    const lines = this.buffered.subarray(0, end).toString("latin1").split("\r\n");
    const status = Number((lines[0] ?? "").split(" ")[1]);
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers["content-length"] ?? 0);
    if (headers["transfer-encoding"] === "chunked") {
      const decoded = dechunk(this.buffered.subarray(end + 4));
      if (!decoded) return undefined;
      this.buffered = this.buffered.subarray(end + 4 + decoded.consumed);
      return { status, headers, body: decoded.body.toString("utf8") };
    }
    if (this.buffered.length < end + 4 + length) return undefined;
    const body = this.buffered.subarray(end + 4, end + 4 + length).toString("utf8");
    this.buffered = this.buffered.subarray(end + 4 + length);
    return { status, headers, body };
  }

  close(): void {
    this.socket.destroy();
  }
}

function dechunk(data: Buffer): { body: Buffer; consumed: number } | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf("\r\n", at);
    if (lineEnd === -1) return undefined;
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (data.length < lineEnd + 2 + size + 2) return undefined;
    if (size === 0) return { body: Buffer.concat(parts), consumed: lineEnd + 4 };
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

/** A multipart/form-data body from fields and files, with the boundary to put in its Content-Type. */
export function multipartBody(
  fields: Record<string, string>,
  files: Array<{ field: string; filename?: string; content: Buffer | string; type?: string }> = [],
  boundary = `----sb${Math.random().toString(36).slice(2)}`,
): { body: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const file of files) {
    const filename = file.filename === undefined ? "" : `; filename="${file.filename}"`;
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"${filename}\r\n` +
          `Content-Type: ${file.type ?? "application/octet-stream"}\r\n\r\n`,
      ),
      Buffer.from(file.content),
      Buffer.from("\r\n"),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}
