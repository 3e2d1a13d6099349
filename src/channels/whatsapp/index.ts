// The WhatsApp family (issue 7): template, session-text and media sends over the WhatsApp
// Cloud API (or its simulator), statuses from Meta's webhook, and the 24-hour window.
//
// Its files (others import this folder through this index only):
//   whatsapp.ts        WhatsApp: the service the routes share (upstreams, events, catalog, sends), and
//                      the demo account's WhatsApp setup
//   send.ts            POST /whatsapp/send: checks in the spec's order, builds Meta's payload, holds the
//                      credit (T1), calls the upstream, then debits and marks `sent` or releases and
//                      marks `failed` (T2); Idempotency-Key claimed in T1; a text or media payload;
//                      sendSecret: a template send whose secret (a verification code) is stored masked
//   send-request.ts    what a send request may carry, and the checks of its fields (recipient, params,
//                      control characters, public https media links)
//   send-template.ts   a template send's payload, checked against what the template was approved with
//   send-refusal.ts    the client's answer and the failed row's code when the upstream refused a send
//   graph.ts           GraphClient: Meta's messages edge and template listing (paged) over an undici
//                      pool with a deadline per request; GraphError from Meta's error bodies
//   upstream.ts        WhatsAppUpstream: CloudUpstream (graph.ts) and SimulatedUpstream (demo templates,
//                      statuses on timers, magic numbers: simulatedStatuses)
//   meta-webhook.ts    X-Hub-Signature-256 check; a callback read into statuses, inbound messages and
//                      template updates, every field type-checked, what cannot be read counted
//   meta-routes.ts     GET/POST /webhooks/whatsapp (verify token, raw-body signature check)
//   events.ts          WhatsAppEvents: statuses moved forward only by conditional UPDATEs with the
//                      delivery_report event in the same transaction, those of unknown wamids kept and
//                      applied later (applyKept); inbound messages stored once, the window opened,
//                      inbound_whatsapp queued; template status updates
//   early-statuses.ts  Meta's statuses kept for a wamid no message carries yet (whatsapp_early_statuses):
//                      kept once per wamid and status, read in pages, dropped after an hour
//   catalog.ts         TemplateCatalog: the stored copy of an account's templates, synced when stale, on
//                      a miss and on Meta's updates; one sync per account at a time
//   templates.ts       what a template needs (shapeOf: params, header, code button) and whether this API
//                      can send it (sendabilityOf), storage of a sync
//   settings.ts        an account's module switch, connector, business account and test numbers
//   window.ts          the 24-hour customer service window (whatsapp_sessions)
//   upkeep.ts          fails `sending` rows past their lease and releases their holds, reports the
//                      simulator's lost statuses, applies or drops kept statuses; at the start and every
//                      5 s (worker role)
//   lost-statuses.ts   the simulator's messages a stopped process left `sent` (or `delivered`): their
//                      statuses reported by its rules at their due times, through WhatsAppEvents
//   v2-routes.ts       /api/v2/whatsapp: send, templates, status/{id}, account
//   v2-schemas.ts      the answers' schemas (WhatsAppSent, WhatsAppMessage, …)
//   admin-routes.ts    /admin/api/accounts/{username}/whatsapp: settings, template sync and test-only
//                      mark, simulated customer messages
//   admin-schemas.ts   their answers as schemas (typebox only: the console's types too)
export { registerWhatsAppAdminRoutes } from "./admin-routes.js";
export { registerMetaWebhookRoutes } from "./meta-routes.js";
export type { LinkedSend, WhatsAppSendResult } from "./send.js";
export { startWhatsAppUpkeep } from "./upkeep.js";
export { registerV2WhatsAppRoutes, WhatsAppSendBody } from "./v2-routes.js";
export { DEMO_WHATSAPP, setUpWhatsAppDemo, WhatsApp, type WhatsAppDeps } from "./whatsapp.js";
