// inbound/: SMS sent to the accounts' virtual numbers: keywords, replies, the opt-out list.
//
// Its files (others import this folder through this index only):
//   ingest.ts          ingestInbound: one transaction stores the message, matches its first word to an
//                      approved keyword and applies STOP/START to the suppression list; then the static
//                      keyword reply through the Acceptor. InboundIngester: the connectors' sink
//   keywords.ts        keywords: one word ≤ 30 letters/digits, `static` or `none`, pending until approved
//                      (the pending ones are a part of the operator's approval queue)
//   numbers.ts         virtual numbers: digits (an Indian mobile as its 10), assign, find the owner
//   suppression.ts     the per-account suppression list, and SuppressionList, the send path's copy of it
//                      (the whole list in memory up to 10,000 numbers, dropped on `suppressions_changed`)
//   messages.ts        an account's received messages, newest first
//   operations.ts      operator actions shared by the operator API and the CLI
//   admin-routes.ts    /admin/api: inbound numbers, keyword approval, suppressions, POST /inbound
//   admin-schemas.ts   their answers as schemas (typebox only: the console's types too)
//   v2-routes.ts       GET/POST /api/v2/keywords, GET /api/v2/keywords/{id}, GET /api/v2/inbound
//   v2-schemas.ts      the keyword body and the answers' schemas (Keyword, InboundMessage)
//   metrics.ts         switchboard_inbound_messages_total, switchboard_keyword_replies_total
export { registerInboundAdminRoutes } from "./admin-routes.js";
export * from "./ingest.js";
export * from "./keywords.js";
export * from "./messages.js";
export * from "./numbers.js";
export * from "./operations.js";
export { SuppressionList } from "./suppression.js";
export { registerV2InboundRoutes } from "./v2-routes.js";
