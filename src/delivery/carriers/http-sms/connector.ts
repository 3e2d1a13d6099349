// The http-sms connector: sends each SMS as one HTTP request to an aggregator described by
// its configuration (config.ts), over a keep-alive pool, at most `rate_per_second`.
//
// What is retried: 429 and 5xx answers (or the configured `retryable_statuses`), and requests
// that were never handed to a connected socket (refused or timed-out connections, DNS
// failures, a reset before the request was written). A request that was written may have
// made the aggregator send the SMS even when no answer came back, so a time-out or a broken
// connection after that fails the message for good (and refunds it) rather than risk a
// duplicate SMS. A 2xx answer without a readable message id also fails for good.
import type { Logger } from "pino";
import type { Pool } from "undici";
import { type Outbound, outboundPool } from "../../../base/http/outbound-pools.js";
import { REDACTED, scrubSecrets } from "../../../base/runtime/logging.js";
import type { MessageRow } from "../../../base/store/schema.js";
import type { TmChainBook } from "../../../domain/accounts/index.js";
import type { DeliveryReport } from "../../../domain/messages/index.js";
import { type Connector, DEFERRED, type SubmitResult } from "../../dispatch/index.js";
import { carrierSource, withCarrierSource } from "../promotional-header.js";
import { readAnswer } from "./answer.js";
import type { HttpSmsConfig } from "./config.js";
import { type Exchange, exchange } from "./exchange.js";
import { placeholderValues, RenderError, type RenderedRequest, renderRequest } from "./request.js";
import { TokenBucket } from "./token-bucket.js";

/**
 * New requests start only this long into a batch. With requests capped at 10 s (timeout_ms),
 * a batch returns within 14 s (the dispatcher's transaction holds its claim meanwhile); messages not started in
 * time (a slow rate cap, a slow aggregator) go back to the queue.
 */
const START_WINDOW_MS = 4_000;

export interface HttpSmsConnectorOptions {
  /** The value of {callback_url}: where this aggregator should send delivery reports (read at each send). */
  callbackUrl?: string | (() => string);
  /** How long into a batch new requests may start (default START_WINDOW_MS). */
  startWindowMs?: number;
  /** The DLT telemarketer chains, read when the configuration uses {dlt_tm_chain} or {dlt_tm_chain_hash}. */
  tmChains?: Pick<TmChainBook, "chainOf">;
  /** PROMOTIONAL_HEADER: the {from} of the generic sender PROMOTIONAL (promotional-header.ts). */
  promotionalHeader?: string | undefined;
  logger?: Logger;
}

export class HttpSmsConnector implements Connector {
  readonly name: string;
  readonly channel = "sms";
  readonly reportsDelivery: boolean;
  private readonly pool: Outbound<Pool>;
  private readonly origin: string;
  private readonly bucket: TokenBucket;
  private reportSink: ((reports: DeliveryReport[]) => void) | undefined;
  /** The connector's own credentials, as an aggregator's answer may echo them back. */
  private readonly credentials: string[];
  /** Whether a template names the chain: only then is it read. */
  private readonly usesTmChain: boolean;

  /** `config` must have passed parseHttpSmsConfig. */
  constructor(
    private readonly config: HttpSmsConfig,
    private readonly options: HttpSmsConnectorOptions = {},
  ) {
    this.name = config.name;
    this.reportsDelivery = config.dlr !== undefined;
    this.origin = new URL(config.url.replace(/\{[a-z0-9_]+\}/g, "x")).origin;
    this.pool = outboundPool(this.origin, {
      connections: config.max_connections,
      headersTimeout: config.timeout_ms,
      bodyTimeout: config.timeout_ms,
      keepAliveTimeout: 30_000,
      connect: { timeout: Math.min(config.timeout_ms, 5_000) },
    });
    this.bucket = new TokenBucket(config.rate_per_second);
    this.credentials = credentialsOf(config);
    this.usesTmChain = JSON.stringify(config).includes("{dlt_tm_chain");
  }

  private tmChainOf(message: MessageRow): Promise<string[] | undefined> | undefined {
    const { tmChains } = this.options;
    if (!this.usesTmChain || !tmChains || !message.dlt_entity_id) return undefined;
    return tmChains.chainOf(message.account_id, message.dlt_entity_id);
  }

  /** Reports arrive at the DLR route (dlr.ts), which hands them to `report`. */
  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.reportSink = sink;
  }

  report(reports: DeliveryReport[]): void {
    this.reportSink?.(reports);
  }

  async stop(): Promise<void> {
    await this.pool.close();
  }

  async submit(messages: MessageRow[]): Promise<SubmitResult[]> {
    const results: SubmitResult[] = new Array(messages.length);
    const startedAt = performance.now();
    const latestStart = startedAt + (this.options.startWindowMs ?? START_WINDOW_MS);
    let next = 0;
    const lane = async () => {
      while (next < messages.length) {
        const index = next++;
        const wait = performance.now() > latestStart ? undefined : this.bucket.reserve(latestStart);
        if (wait === undefined) {
          results[index] = DEFERRED;
          continue;
        }
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        results[index] = this.hideCredentials(await this.send(messages[index]!));
      }
    };
    const lanes = Math.min(this.config.max_connections, messages.length);
    await Promise.all(Array.from({ length: lanes }, lane));
    return results;
  }

  private async send(message: MessageRow): Promise<SubmitResult> {
    const source = carrierSource(message, this.options.promotionalHeader);
    if (!source.ok) return source.result;
    let chain: string[] | undefined;
    try {
      chain = await this.tmChainOf(message);
    } catch (error) {
      // Without its chain the operator would drop it: tried again once the database answers.
      const reason = `the DLT telemarketer chain could not be read: ${(error as Error).message}`.slice(0, 300);
      return { ok: false, retryable: true, code: "dlt_chain_unavailable", message: reason };
    }
    let request: RenderedRequest;
    try {
      const { callbackUrl = "" } = this.options;
      const callback = typeof callbackUrl === "function" ? callbackUrl() : callbackUrl;
      request = renderRequest(this.config, placeholderValues({ ...message, sender: source.source }, callback, chain));
      if (request.origin !== this.origin) throw new RenderError(`The URL's origin changed to ${request.origin}.`);
    } catch (error) {
      return { ok: false, retryable: false, code: "bad_request", message: (error as Error).message };
    }
    const outcome = await exchange(await this.pool.get(), request, this.config.timeout_ms);
    if (outcome.kind === "error") return this.failure(outcome);
    if (outcome.status === 401 || outcome.status === 403) {
      this.options.logger?.error(
        { connector: this.name, status: outcome.status },
        "the SMS aggregator refused the gateway's credentials; check the connector's auth",
      );
    }
    // The aggregator answered: it got {from}, kept with the answer when not the sender.
    return withCarrierSource(readAnswer(this.config, outcome.status, outcome.text), message.sender, source.source);
  }

  /**
   * A refusal's text is stored on the message (the account reads it in its status answers) and
   * logged: an aggregator that echoes the request (`invalid password=…`, `{"api_key": …}`) must
   * not hand the gateway's credentials to either.
   */
  private hideCredentials(result: SubmitResult): SubmitResult {
    if (result.ok) return result;
    let message = scrubSecrets(result.message);
    for (const credential of this.credentials) message = message.replaceAll(credential, REDACTED);
    return message === result.message ? result : { ...result, message };
  }

  private failure(outcome: Extract<Exchange, { kind: "error" }>): SubmitResult {
    const { error, written } = outcome;
    const code = error.code ?? (error.cause as { code?: string } | undefined)?.code ?? "";
    const detail = `${code ? `${code}: ` : ""}${error.message}`.slice(0, 300);
    if (code === "UND_ERR_INVALID_ARG") {
      return {
        ok: false,
        retryable: false,
        code: "bad_request",
        message: `The request was not valid HTTP (${detail}).`,
      };
    }
    if (!written) {
      return {
        ok: false,
        retryable: true,
        code: "connect_failed",
        message: `Could not reach ${this.name} (${detail}).`,
      };
    }
    if (code === "deadline" || code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT") {
      return {
        ok: false,
        retryable: false,
        code: "timeout",
        message: `No answer from ${this.name} within ${this.config.timeout_ms} ms; not resent, as the SMS may have been sent.`,
      };
    }
    return {
      ok: false,
      retryable: false,
      code: "unknown_outcome",
      message: `The request to ${this.name} broke off (${detail}); not resent, as the SMS may have been sent.`,
    };
  }
}

/** The secret values of a connector's configuration: its auth, and its delivery reports' shared secret. */
function credentialsOf(config: HttpSmsConfig): string[] {
  const { auth, dlr } = config;
  const values = [
    auth.type === "basic" ? auth.password : undefined,
    auth.type === "bearer" ? auth.token : undefined,
    auth.type === "header" || auth.type === "query" ? auth.value : undefined,
    dlr?.secret?.type === "header" ? dlr.secret.value : undefined,
    dlr?.secret?.type === "hmac_sha256" ? dlr.secret.secret : undefined,
  ];
  // A value of a character or two would blank out ordinary text; such a secret protects nothing anyway.
  return values.filter((value): value is string => typeof value === "string" && value.length >= 4);
}
