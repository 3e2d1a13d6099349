// The voice-http connector: places each call with a Twilio-compatible call API
// (POST {base}/2010-04-01/Accounts/{AccountSid}/Calls.json, HTTP Basic AccountSid:AuthToken,
// form fields To, From, Twiml, StatusCallback…) over one keep-alive pool. Its statuses come
// back as signed callbacks to the API (status-callback.ts), not through this object.
//
// Only what certainly placed no call is retried: 429 and 5xx answers, and connections that
// could not be opened. A time-out or a broken connection after the request was sent may have
// placed the call, so it fails (and is refunded) instead of ringing the callee twice; a
// 4xx refusal fails and is refunded.
import type { Logger } from "pino";
import type { Pool } from "undici";
import { type Outbound, outboundPool } from "../../base/http/outbound-pools.js";
import { REDACTED, scrubSecrets } from "../../base/runtime/logging.js";
import type { MessageRow } from "../../base/store/schema.js";
import { type Connector, type SubmitResult, VOICE_HTTP_CONNECTOR } from "../../delivery/dispatch/index.js";
import { dialString } from "./numbers.js";
import { type SayOptions, sayDocument } from "./twiml.js";

/**
 * New requests start only this long into a batch. With requests capped at 10 s, a batch
 * returns within 14 s: the dispatcher's transaction, whose row locks keep other workers from a
 * call still being placed, stays short; calls not started in time go back to the queue.
 */
const START_WINDOW_MS = 4_000;

/** Errors raised before any byte of the request left: the call was certainly not placed. */
const NEVER_SENT = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
]);

export interface VoiceHttpOptions {
  /** e.g. https://api.twilio.com (a local fake in tests); a path prefix is kept. */
  baseUrl: string;
  accountSid: string;
  authToken: string;
  /** The full status-callback URL given with every call. */
  statusCallbackUrl: string;
  timeoutMs: number;
  concurrency: number;
  say: SayOptions;
  /** How long into a batch new requests may start (default START_WINDOW_MS). */
  startWindowMs?: number;
  /** The clock the start window is read on (tests). */
  now?: () => number;
}

export class VoiceHttpConnector implements Connector {
  readonly name = VOICE_HTTP_CONNECTOR;
  readonly channel = "voice";
  private readonly pool: Outbound<Pool>;
  private readonly path: string;
  private readonly authorization: string;

  constructor(
    private readonly options: VoiceHttpOptions,
    private readonly logger: Logger,
  ) {
    const base = new URL(options.baseUrl);
    this.pool = outboundPool(base.origin, {
      connections: options.concurrency,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 30_000,
      connect: { timeout: Math.min(options.timeoutMs, 5_000) },
    });
    const prefix = base.pathname.replace(/\/+$/, "");
    this.path = `${prefix}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Calls.json`;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString("base64")}`;
  }

  /** Statuses arrive as callbacks at the API process; nothing is reported from here. */
  onReports(): void {}

  async stop(): Promise<void> {
    await this.pool.close();
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const results: SubmitResult[] = new Array(messages.length);
    const now = this.options.now ?? Date.now;
    const started = now();
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const index = next++;
        results[index] =
          now() - started > (this.options.startWindowMs ?? START_WINDOW_MS)
            ? { ok: false, retryable: true, code: "deferred", message: "Not placed in this round; queued again." }
            : this.hideCredentials(await this.placeCall(messages[index]!));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, messages.length) }, lane));
    return results;
  }

  /**
   * A refusal's text is stored on the call (the account reads it) and logged: the provider's
   * message must not carry the auth token back to either (as the http-sms connector does).
   */
  private hideCredentials(result: SubmitResult): SubmitResult {
    if (result.ok) return result;
    let message = scrubSecrets(result.message);
    if (this.options.authToken.length >= 4) message = message.replaceAll(this.options.authToken, REDACTED);
    return message === result.message ? result : { ...result, message };
  }

  private async placeCall(message: MessageRow): Promise<SubmitResult> {
    const form = new URLSearchParams({
      To: dialString(message.recipient),
      From: message.sender,
      Twiml: sayDocument(message.body, this.options.say),
      StatusCallback: this.options.statusCallbackUrl,
      StatusCallbackMethod: "POST",
    });
    for (const event of ["initiated", "ringing", "answered", "completed"]) form.append("StatusCallbackEvent", event);
    let status: number;
    let text: string;
    try {
      const response = await (await this.pool.get()).request({
        method: "POST",
        path: this.path,
        headers: {
          authorization: this.authorization,
          "content-type": "application/x-www-form-urlencoded",
          accept: "application/json",
        },
        body: form.toString(),
      });
      status = response.statusCode;
      text = await response.body.text();
    } catch (error) {
      return this.failure(error);
    }
    return this.result(status, text);
  }

  private result(status: number, text: string): SubmitResult {
    let body: { sid?: unknown; message?: unknown; code?: unknown } = {};
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      // A proxy's HTML error page: the status alone decides.
    }
    if (status >= 200 && status < 300) {
      if (typeof body.sid === "string" && body.sid !== "") return { ok: true, upstreamId: body.sid };
      return { ok: false, retryable: false, code: "bad_response", message: `HTTP ${status} without a call sid.` };
    }
    const reason = `HTTP ${status}${typeof body.message === "string" ? `: ${body.message}` : ""}${
      typeof body.code === "number" ? ` (provider code ${body.code})` : ""
    }`.slice(0, 500);
    if (status === 429) return { ok: false, retryable: true, code: "throttled", message: reason };
    if (status >= 500) return { ok: false, retryable: true, code: "upstream_unavailable", message: reason };
    if (status === 401 || status === 403) {
      this.logger.error(
        { status },
        "the voice provider refused the gateway's credentials; check VOICE_HTTP_ACCOUNT_SID and VOICE_HTTP_AUTH_TOKEN",
      );
    }
    return { ok: false, retryable: false, code: "rejected", message: reason };
  }

  private failure(error: unknown): SubmitResult {
    const err = error as { code?: string; message?: string; cause?: { code?: string } };
    const code = err.code ?? err.cause?.code ?? "";
    const detail = `${code ? `${code}: ` : ""}${err.message ?? String(error)}`.slice(0, 500);
    if (NEVER_SENT.has(code) || NEVER_SENT.has(err.cause?.code ?? "")) {
      return {
        ok: false,
        retryable: true,
        code: "connect_failed",
        message: `Could not reach the voice provider (${detail}).`,
      };
    }
    if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return {
        ok: false,
        retryable: false,
        code: "timeout",
        message: `No answer from the voice provider within ${this.options.timeoutMs} ms; not retried, as the call may have been placed.`,
      };
    }
    return {
      ok: false,
      retryable: false,
      code: "unknown_outcome",
      message: `The request to the voice provider broke off (${detail}); not retried, as the call may have been placed.`,
    };
  }
}
