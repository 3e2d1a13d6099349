// A local HTTP SMS aggregator over real HTTP on 127.0.0.1: records every send request, answers
// what the test scripts (JSON or text, any status, after a delay, never, or by resetting the
// connection once the request arrived), and calls delivery reports back like an Indian
// aggregator does (GET query, form POST or JSON POST, optionally with a secret header or an
// HMAC-SHA256 of the body).
import { createHmac } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface AggregatorRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The connection it came on, numbered from 1 (keep-alive reuse shows as repeats). */
  socket: number;
  /** performance.now() when the request's head arrived. */
  at: number;
}

export type AggregatorAnswer =
  | { status: number; json?: unknown; text?: string; delayMs?: number }
  /** Never answers (the client's deadline decides). */
  | "hang"
  /** Destroys the connection with a TCP reset after reading the request. */
  | "reset";

export interface DlrCallback {
  method: "GET" | "POST";
  query?: Record<string, string>;
  form?: Record<string, string>;
  json?: unknown;
  headers?: Record<string, string>;
  /** Adds `header: hex HMAC-SHA256(secret, raw body)`. */
  hmac?: { header: string; secret: string };
}

export class FakeAggregator {
  readonly requests: AggregatorRequest[] = [];
  answer: (request: AggregatorRequest, index: number) => AggregatorAnswer = (_request, index) => ({
    status: 200,
    json: { status: "success", data: { message_id: `up-${index + 1}` } },
  });
  /** Resets every new connection as soon as it is accepted, before any request on it is read. */
  resetConnections = false;
  private server: http.Server | undefined;
  private readonly sockets = new Map<Socket, number>();
  private socketCount = 0;
  port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      const at = performance.now();
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => this.handle(req, res, Buffer.concat(chunks).toString("utf8"), at));
    });
    this.server.on("connection", (socket) => {
      if (this.resetConnections) {
        socket.resetAndDestroy();
        return;
      }
      this.sockets.set(socket, ++this.socketCount);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get connections(): number {
    return this.socketCount;
  }

  reset(): void {
    this.requests.length = 0;
    this.resetConnections = false;
    this.answer = new FakeAggregator().answer;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets.keys()) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse, body: string, at: number): void {
    const url = req.url ?? "/";
    const parsed = new URL(url, this.url);
    const request: AggregatorRequest = {
      method: req.method ?? "",
      url,
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: req.headers,
      body,
      socket: this.sockets.get(req.socket) ?? 0,
      at,
    };
    const answer = this.answer(request, this.requests.length);
    this.requests.push(request);
    if (answer === "hang") return;
    if (answer === "reset") {
      req.socket.resetAndDestroy();
      return;
    }
    const send = () => {
      if (answer.json !== undefined) {
        res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.json));
      } else {
        res.writeHead(answer.status, { "content-type": "text/plain" }).end(answer.text ?? "");
      }
    };
    if (answer.delayMs) setTimeout(send, answer.delayMs);
    else send();
  }

  /** Calls a delivery report back to `url` the way an aggregator does; returns the gateway's answer. */
  async callback(url: string, dlr: DlrCallback): Promise<{ status: number; text: string }> {
    const target = new URL(url);
    for (const [name, value] of Object.entries(dlr.query ?? {})) target.searchParams.append(name, value);
    const headers: Record<string, string> = { "user-agent": "fake-aggregator/1.0", ...dlr.headers };
    let body: string | undefined;
    if (dlr.form) {
      body = new URLSearchParams(dlr.form).toString();
      headers["content-type"] = "application/x-www-form-urlencoded";
    } else if (dlr.json !== undefined) {
      body = JSON.stringify(dlr.json);
      headers["content-type"] = "application/json";
    }
    if (dlr.hmac)
      headers[dlr.hmac.header] = createHmac("sha256", dlr.hmac.secret)
        .update(body ?? "")
        .digest("hex");
    const response = await fetch(target, { method: dlr.method, headers, ...(body === undefined ? {} : { body }) });
    return { status: response.status, text: await response.text() };
  }
}

/** A loopback port nothing listens on: connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
