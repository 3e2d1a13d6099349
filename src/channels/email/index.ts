// The email family (issue 8): /httpemailapi/v1/send and its aliases, sending domains with DKIM,
// stored templates, the smtp and simulator connectors, tracking and notifications.
//
// Its files (others import this folder through this index only):
//   routes.ts          /httpemailapi/v1/send, /httpemailapiv2/send, /httpemailapi/send: GET and POST
//                      (query, form, multipart with named `attachment` files, its boundary and closing
//                      boundary checked; no HEAD), legacy credentials,
//                      GatewayError code → -7, -11 or -14 as plain text; the tracking endpoints
//                      /e/o/{id}/{mac}.gif (pixel) and /e/c/{id}/{mac}?u= (click redirect)
//   unsubscribe-routes.ts  one-click unsubscribe (RFC 8058): /e/u/{id}/{mac}, public, GET a page,
//                      POST unsubscribes (any body); v2 /email/suppressions; the operator's list
//                      and DELETE of an address (audited email_suppression.remove)
//   suppressions.ts    the account's email suppression list: the send path's check, the
//                      unsubscribe (row, `unsubscribed` event and notification in one transaction)
//   v2-send-route.ts   POST /api/v2/email/send: the JSON fields as the family's parameters, sendEmail,
//                      the broadcast id in the v2 envelope (no attachments)
//   send.ts            sendEmail and emailOrder (the send as the Acceptor takes it): the parameters checked (1,000 recipients, 10 attachments / 10 MB,
//                      998-character subject, 2 MB HTML, 1,000-character callbackdata, approved
//                      sender domain), to + cc + bcc de-duplicated, one message per recipient through
//                      the Acceptor (wallet email, 1 credit each; lane 1 for more than one), the
//                      content and attachments handed over as SendOrder.shared (data), written by
//                      content-rows.ts in the same transaction
//   content-rows.ts    EmailContentDraft, and writeEmailContent: the Acceptor's writer of a send's
//                      content and attachments (registered by app/); what retention removes with
//                      the messages it retires
//   addresses.ts       `Name <user@example.com>` or bare addresses, comma-separated lists (RFC 5322
//                      quoting and groups, via nodemailer's address parser)
//   domains.ts         sending domains: added pending with a fresh DKIM key (selector `switchboard`),
//                      approved or rejected by an operator, removed; isApprovedSender for the send
//                      path; the DNS record to publish; the pending ones for the approval queue
//   templates.ts       stored templates with {{placeholders}} filled from `defaultplaceholders`
//                      (HTML-escaped in HTML, {{{name}}} as it is; unknown ones stay as written)
//   content.ts         a send's content, attachments and the DKIM key of its from domain as the
//                      connectors read them, through EmailContentCache (LRU, 64 contents, 64 MiB,
//                      60 s; overlapping loads share one query); DKIM key pairs (RSA 2048); a content
//                      stored with a masked code filled from the row the dispatcher revealed (revealedContent)
//   mime.ts            one recipient's message as nodemailer options: the send's To and Cc (never
//                      Bcc), our Message-ID, the VERP envelope sender, DKIM (List-Unsubscribe-Post
//                      signed too); List-Unsubscribe for list mail; click links rewritten at
//                      parse5's source offsets, the open pixel before </body>
//   tracking.ts        EmailTracker: pixel, click and unsubscribe URLs carrying an HMAC under the installation's
//                      secret (`settings` table, made on first use), and their checks
//   smtp-connector.ts  SmtpConnector: a nodemailer pool to SMTP_URL (STARTTLS when offered), one
//                      transaction per recipient; 5xx final (refunded), 4xx, connection and login
//                      failures retried; the 4 s start window; the relay's queue id as upstream id
//   simulator.ts       EmailSimulator (default connector): composes like the smtp connector, keeps the
//                      message in email_captured, reports it delivered; magic +bounce / +defer
//                      recipients; the inbox queries
//   events.ts          after the relay took it: a bounce received back (failed, not refunded) and
//                      opens and clicks, each in email_events with its notification in one transaction
//   notify-targets.ts  emailNotifyTargets: a message's send's notifyurl and callbackdata with the
//                      message's fields, in one statement; the webhook outbox's EmailTargets (via app/)
//   bounces.ts         parseDsn: a DSN (mailparser) read into the bounce of one message of ours, found
//                      from the VERP envelope recipient, else the returned message's headers
//   bounce-listener.ts the SMTP server for EMAIL_BOUNCE_DOMAIN on EMAIL_BOUNCE_PORT (smtp-server; no
//                      AUTH, no STARTTLS, 10 MiB): 250 once the bounces are stored, 451 otherwise
//   resource-routes.ts v2 /email/status/{broadcast_id} and operator /email/inbox; registers the v2 and
//                      operator resources below in the order the OpenAPI document lists them
//   domain-routes.ts   v2 /email/domains; operator /accounts/{username}/email/domains
//   template-routes.ts v2 /email/templates, /email/templates/{id}
//   v2-schemas.ts      the v2 answers' schemas (EmailDomain, EmailTemplate, EmailSendStatus)
//   admin-schemas.ts   the operator answers' schemas (the captured inbox; domains as on v2)
//   operator-mail.ts   operatorMailer: plain-text mail to the operator (alerts) through SMTP_URL

import type { FastifyInstance } from "fastify";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Connector } from "../../delivery/dispatch/index.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import type { Authenticator } from "../../domain/auth/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import type { WebhookOutbox } from "../../domain/webhooks/outbox.js";
import { type BounceListener, startBounceListener } from "./bounce-listener.js";
import { EmailContentCache } from "./content.js";
import { applyReturnedBounce } from "./events.js";
import { registerEmailFamilyRoutes } from "./routes.js";
import { EmailSimulator } from "./simulator.js";
import { SmtpConnector } from "./smtp-connector.js";
import type { EmailTracker } from "./tracking.js";

export { EMAIL_CONTENT, removeRetiredEmailData, writeEmailContent } from "./content-rows.js";
export { type DomainHolder, holderList, isApprovedSender, pendingEmailDomains, sharedWith } from "./domains.js";
export { emailNotifyTargets } from "./notify-targets.js";
export { type OperatorMail, operatorMailer } from "./operator-mail.js";
export { registerEmailAdminRoutes, registerV2EmailRoutes } from "./resource-routes.js";
export { EMAIL_SEND_PATHS } from "./routes.js";
export { emailOrder } from "./send.js";
export { EmailTracker, trackingSecret } from "./tracking.js";
export { EmailSend, type EmailSendBody, familyParams, registerV2EmailSendRoute } from "./v2-send-route.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger"> & {
  acceptor: AcceptService;
  /** A sub-account's email is charged at every level of its tree (resellers). */
  prices: PriceBook;
  authenticator: Authenticator;
  emailTracker: EmailTracker;
  webhooks: WebhookOutbox;
};

/** The email channel's connector (the relay in SMTP_URL, or the simulator's captured inbox), for the worker role. */
export function emailConnectors(ctx: Deps): Connector[] {
  const { email } = ctx.config;
  const common = {
    contents: new EmailContentCache(ctx.store.db),
    bounceDomain: email.bounceDomain,
    tracker: ctx.emailTracker,
    logger: ctx.logger,
    now: () => ctx.clock.now().getTime(),
  };
  if (email.connector === "smtp" && email.smtpUrl) {
    return [
      new SmtpConnector({
        ...common,
        url: email.smtpUrl,
        poolSize: email.smtpPoolSize,
        timeoutMs: email.smtpTimeoutMs,
        tlsRejectUnauthorized: email.smtpTlsRejectUnauthorized,
      }),
    ];
  }
  return [new EmailSimulator({ ...common, db: ctx.store.db })];
}

/** The SMTP listener for bounces (EMAIL_BOUNCE_PORT), in the worker role; undefined when off. */
export async function startEmailBounces(ctx: Deps): Promise<BounceListener | undefined> {
  if (ctx.config.email.bouncePort === 0) return undefined;
  return startBounceListener({
    port: ctx.config.email.bouncePort,
    host: ctx.config.host,
    bounceDomain: ctx.config.email.bounceDomain,
    logger: ctx.logger,
    onBounce: async (bounce) => {
      await applyReturnedBounce(ctx, { messageId: bounce.messageId, diagnostic: bounce.diagnostic });
    },
  });
}

/** Mounts the email family's paths and the tracking endpoints. */
export async function registerEmailRoutes(app: FastifyInstance, ctx: Deps): Promise<void> {
  await registerEmailFamilyRoutes(app, ctx);
}
