// One webhook delivery POSTed as JSON, signed the Standard Webhooks way with each of the
// account's active secrets, over keep-alive connections whose DNS answers the SSRF guard checks.
import { createHmac } from "node:crypto";
import type { LookupFunction } from "node:net";
import type { Agent } from "undici";
import { BoundedMap } from "../../base/core/bounded-map.js";
import { GatewayError } from "../../base/core/errors.js";
import { type Outbound, outboundAgent } from "../../base/http/outbound-pools.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { WebhookDeliveryRow } from "../../base/store/schema.js";
import type { Outcome } from "./sender-queries.js";
import { activeSecrets } from "./settings.js";
import { checkWebhookUrl, resolveWebhookTarget } from "./url-guard.js";

/** A rotated-out secret stops signing at its expiry; this is how late that can be noticed. */
const SIGNERS_TTL_MS = 5_000;

/**
 * The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` under the
 * decoded secret. Node's native HMAC, 6x faster than the reference package's JavaScript
 * SHA-256; the tests verify every signature with the `standardwebhooks` package itself.
 */
export function signWebhook(key: Buffer, id: string, at: Date, body: string): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`;
}

/** The webhook sender's HTTP side: its connections, and each URL's target and account's keys remembered. */
export class WebhookPoster {
  private readonly agent: Outbound<Agent>;
  /** Each URL checked and parsed, remembered (the same few URLs carry almost every delivery). */
  private readonly targets = new BoundedMap<string, { origin: string; path: string }>(10_000);
  /** Each account's signers (current secret first), briefly; dropped when its settings change. */
  private readonly signers = new BoundedMap<number, { value: Promise<Buffer[]>; expires: number }>(10_000);

  constructor(
    private readonly deps: Pick<Runtime, "store" | "clock">,
    /** SenderOptions' request time-out, and whether private targets are allowed. */
    private readonly options: { timeoutMs: number; allowPrivate: boolean },
  ) {
    // Keep-alive connections per origin, reused across deliveries. Every connection's DNS answer
    // goes through the SSRF guard, and the socket connects to the address the guard checked.
    const allowPrivate = options.allowPrivate;
    const lookup: LookupFunction = (hostname, lookupOptions, callback) => {
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      resolveWebhookTarget(new URL(`https://${host}/`), { allowPrivate }).then(
        ({ address, family }) =>
          lookupOptions.all ? callback(null, [{ address, family }]) : callback(null, address, family),
        (error: Error) => callback(error as NodeJS.ErrnoException, "", 0),
      );
    };
    this.agent = outboundAgent({
      connections: 64,
      keepAliveTimeout: 30_000,
      pipelining: 1,
      connect: { lookup, timeout: options.timeoutMs },
    });
  }

  /** Forgets an account's signers: its webhook settings changed. */
  forgetSigners(accountId: number): void {
    this.signers.delete(accountId);
  }

  /** Closes the connections. */
  close(): Promise<void> {
    return this.agent.close();
  }

  /**
   * A URL's origin and path, once checkWebhookUrl accepted it (scheme; an IP-literal host is
   * never looked up, so it is checked here); both remembered per URL.
   */
  private targetOf(url: string): { origin: string; path: string } {
    let target = this.targets.get(url);
    if (!target) {
      checkWebhookUrl(url, { allowPrivate: this.options.allowPrivate });
      const parsed = new URL(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      this.targets.set(url, target);
    }
    return target;
  }

  /** The account's signing keys: each active `whsec_` secret, base64-decoded. */
  private signersOf(accountId: number): Promise<Buffer[]> {
    const now = Date.now();
    const hit = this.signers.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const value = activeSecrets(this.deps.store, accountId, this.deps.clock.now().getTime()).then((secrets) =>
      secrets.map((secret) => Buffer.from(secret.replace(/^whsec_/, ""), "base64")),
    );
    this.signers.set(accountId, { value, expires: now + SIGNERS_TTL_MS });
    value.catch(() => this.signers.delete(accountId));
    return value;
  }

  /** POSTs one delivery; a failure (time-out, refused URL, connection error) is its outcome, never thrown. */
  async post(delivery: WebhookDeliveryRow): Promise<Outcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const { origin, path } = this.targetOf(delivery.url);
      const signers = await this.signersOf(delivery.account_id);
      const at = this.deps.clock.now();
      const signature = signers.map((key) => signWebhook(key, delivery.webhook_id, at, delivery.payload));
      const response = await (await this.agent.get()).request({
        origin,
        path,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "Switchboard-Webhooks/1",
          "webhook-id": delivery.webhook_id,
          "webhook-timestamp": String(Math.floor(at.getTime() / 1000)),
          "webhook-signature": signature.join(" "),
        },
        body: delivery.payload,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      // The answer's body is not ours to keep; read it away so the connection can be reused.
      await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        statusCode: response.statusCode,
        error: ok ? null : `HTTP ${response.statusCode}`,
        latencyMs: elapsed(),
      };
    } catch (error) {
      return {
        statusCode: null,
        error: attemptError(error, this.options.timeoutMs).slice(0, 500),
        latencyMs: elapsed(),
      };
    }
  }
}

const TIMEOUTS = new Set(["UND_ERR_CONNECT_TIMEOUT", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT"]);

/**
 * Why an attempt got no answer, in words support reads on a message's page and the delivery log:
 * the gateway's own refusal as it is worded (an unresolvable or private host), a refused
 * connection or no answer in time said so, anything else as the error names itself.
 */
function attemptError(error: unknown, timeoutMs: number): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof GatewayError) return error.message;
  const code = (error as NodeJS.ErrnoException).code ?? "";
  if (code === "ECONNREFUSED") return `The endpoint refused the connection (${error.message}).`;
  if (TIMEOUTS.has(code)) return `The endpoint did not answer within ${timeoutMs / 1000} s (${error.name}).`;
  return `${error.name}: ${error.message}`;
}
