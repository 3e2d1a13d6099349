// A local Twilio-compatible call API over real HTTP on 127.0.0.1: records every create-call
// request, answers what the test says (201 with a call sid by default, an error status, or
// never), and sends status callbacks to the gateway signed the way the provider signs them.
// The callback URL the gateway hands out is its public one; like a reverse proxy, the fake
// delivers to the gateway's real address but signs the public URL.
import { createHmac, randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";

export interface CreateCallRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  form: URLSearchParams;
  sid: string;
  /** The socket it arrived on (keep-alive reuse shows as repeated numbers). */
  socket: number;
}

export type CreateAnswer = { status: number; body?: unknown } | "hang";

/** An independent implementation of X-Twilio-Signature (the gateway's own is not used here). */
export function signTwilio(authToken: string, url: string, params: [string, string][]): string {
  const sorted = [...params].sort(([a, av], [b, bv]) => (a === b ? (av < bv ? -1 : 1) : a < b ? -1 : 1));
  const data = url + sorted.map(([name, value]) => name + value).join("");
  return createHmac("sha1", authToken).update(data, "utf8").digest("base64");
}

export class FakeCallProvider {
  readonly accountSid = `AC${randomBytes(16).toString("hex")}`;
  readonly authToken = randomBytes(16).toString("hex");
  readonly calls: CreateCallRequest[] = [];
  /** How to answer the n-th create request (0-based) for a call to `to`; default 201 with the sid. */
  answer: (request: CreateCallRequest, index: number) => CreateAnswer = (request) => ({
    status: 201,
    body: { sid: request.sid, status: "queued", to: request.form.get("To"), from: request.form.get("From") },
  });
  /** Statuses called back before the create request is answered (a provider faster than the gateway's commit). */
  callbacksBeforeAnswer: (request: CreateCallRequest) => string[] = () => [];
  /** The gateway's real base URL; callbacks are delivered there. */
  gatewayUrl = "";
  /** The gateway's public base URL (VOICE_CALLBACK_URL), whose path a reverse proxy strips. */
  publicBase = "https://switchboard.example.test/gw";
  private server: http.Server | undefined;
  private readonly sockets = new Map<Socket, number>();
  private socketCount = 0;
  port = 0;

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      let body = "";
      req.setEncoding("utf8");
      req.on("data", (chunk: string) => {
        body += chunk;
      });
      req.on("end", () => void this.handle(req, res, body));
    });
    this.server.on("connection", (socket) => {
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

  async stop(): Promise<void> {
    for (const socket of this.sockets.keys()) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  callsTo(to: string): CreateCallRequest[] {
    return this.calls.filter((call) => call.form.get("To") === to);
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse, body: string): Promise<void> {
    const expectedAuth = `Basic ${Buffer.from(`${this.accountSid}:${this.authToken}`).toString("base64")}`;
    if (req.headers.authorization !== expectedAuth) {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ code: 20003, message: "Authenticate", status: 401 }));
      return;
    }
    if (req.method !== "POST" || req.url !== `/2010-04-01/Accounts/${this.accountSid}/Calls.json`) {
      res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ code: 20404, status: 404 }));
      return;
    }
    const request: CreateCallRequest = {
      method: req.method,
      path: req.url,
      headers: req.headers,
      form: new URLSearchParams(body),
      sid: `CA${randomBytes(16).toString("hex")}`,
      socket: this.sockets.get(req.socket) ?? 0,
    };
    const index = this.callsTo(request.form.get("To") ?? "").length;
    this.calls.push(request);
    for (const status of this.callbacksBeforeAnswer(request)) await this.callback(request, status);
    const answer = this.answer(request, index);
    if (answer === "hang") return;
    res.writeHead(answer.status, { "content-type": "application/json" }).end(JSON.stringify(answer.body ?? {}));
  }

  /** Builds the status callback Twilio sends for `call`, with `extra` fields added or replaced. */
  callbackParams(call: CreateCallRequest, status: string, extra: Record<string, string> = {}): [string, string][] {
    const fields: Record<string, string> = {
      AccountSid: this.accountSid,
      ApiVersion: "2010-04-01",
      CallSid: call.sid,
      CallStatus: status,
      Called: call.form.get("To") ?? "",
      Caller: call.form.get("From") ?? "",
      Direction: "outbound-api",
      From: call.form.get("From") ?? "",
      To: call.form.get("To") ?? "",
      Timestamp: new Date().toUTCString().replace("GMT", "+0000"),
      CallbackSource: "call-progress-events",
      SequenceNumber: "0",
      ...(status === "completed" ? { CallDuration: "7", Duration: "1" } : {}),
      ...extra,
    };
    return Object.entries(fields);
  }

  /**
   * Posts a status callback for `call` to the gateway, signed over the callback URL the call was
   * created with. `tamper` changes the request after signing (forgeries).
   */
  async callback(
    call: CreateCallRequest,
    status: string,
    options: {
      extra?: Record<string, string>;
      signature?: string | null;
      signedUrl?: string;
      token?: string;
      tamper?: (params: [string, string][]) => [string, string][];
    } = {},
  ): Promise<{ status: number; text: string }> {
    const publicUrl = call.form.get("StatusCallback") ?? "";
    const params = this.callbackParams(call, status, options.extra);
    const signature =
      options.signature === undefined
        ? signTwilio(options.token ?? this.authToken, options.signedUrl ?? publicUrl, params)
        : options.signature;
    const sent = options.tamper ? options.tamper(params) : params;
    const prefix = new URL(this.publicBase).pathname.replace(/\/+$/, "");
    const target = `${this.gatewayUrl}${new URL(publicUrl).pathname.slice(prefix.length)}`;
    const response = await fetch(target, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded; charset=utf-8",
        "user-agent": "TwilioProxy/1.1",
        ...(signature === null ? {} : { "x-twilio-signature": signature }),
      },
      body: new URLSearchParams(sent).toString(),
    });
    return { status: response.status, text: await response.text() };
  }
}
