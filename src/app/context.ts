// What the gateway assembles: the runtime and the shared services. Known only to app/: each
// feature declares the narrow dependencies it takes, and app/ passes this context to them.

import type { Runtime } from "../base/runtime/runtime.js";
import type { Chains } from "../channels/chains/index.js";
import type { EmailTracker } from "../channels/email/index.js";
import type { SmsPolicy } from "../channels/sms/index.js";
import type { CodeKeeper, Verifier } from "../channels/verify/index.js";
import type { WhatsApp } from "../channels/whatsapp/index.js";
import type { PriceBook } from "../domain/accounts/index.js";
import type { Authenticator, RateLimits, Sessions } from "../domain/auth/index.js";
import type { AcceptService } from "../domain/messages/index.js";
import type { RefusalLog } from "../domain/refusals/index.js";
import type { WebhookOutbox } from "../domain/webhooks/outbox.js";

/** The runtime and every shared service, built once by the gateway; features take narrow parts of it. */
export interface AppContext extends Runtime {
  authenticator: Authenticator;
  /** Console sign-ins, accepted by the v2 and operator APIs in place of an API key. */
  sessions: Sessions;
  /** Requests per minute per API key (v2). */
  rateLimits: RateLimits;
  /** Durable acceptance of sends (group commit). */
  acceptor: AcceptService;
  /** Price cards compiled and cached, shared by every send family (and the quote). */
  prices: PriceBook;
  /** The SMS rules, one instance so every family shares its per-account caches. */
  smsPolicy: SmsPolicy;
  /** Writes webhook events into the outbox, inside the transaction of the change they report. */
  webhooks: WebhookOutbox;
  /** WhatsApp sends, templates and Meta's events (the synchronous upstream lives in the API process). */
  whatsapp: WhatsApp;
  /** Signs and checks the email open pixels and click links. */
  emailTracker: EmailTracker;
  /** The Verify API's service: one-time codes sent, checked, resent, expired. */
  verifier: Verifier;
  /** Fallback sends (POST /api/v2/send): chains of steps, each a send of its channel. */
  chains: Chains;
  /** Hashes, compares and seals verification codes with this installation's verify secret. */
  codeKeeper: CodeKeeper;
  /** The log of refused sends: taken off the request's path, written in batches (domain/refusals/). */
  refusals: RefusalLog;
}
