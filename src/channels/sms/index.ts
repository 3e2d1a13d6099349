// sms/: SMS API families (thin adapters) and the SMS rules.
//
// Its files (others import this folder through this index only):
//   v2-routes.ts       POST /api/v2/sms/send and its GET variant (behind the account's GET switch),
//                      POST /api/v2/sms/schedule, DELETE /api/v2/sms/schedule/{id},
//                      GET /api/v2/sms/status/{id}, GET /api/v2/balance, GET /api/v2/sender-ids,
//                      GET /api/v2/reports/{id} (one message's delivery report, an account resource)
//   bulk-send-route.ts POST /api/v2/sms/bulk (recipients or a contact group; per-recipient refusals,
//                      duplicates sent once; job_id extends a job), and /sms/bulk/preview (what
//                      it would send and charge)
//   bulk-job-routes.ts GET /api/v2/bulk-jobs[/{id}] with the delivery summary and pending stages,
//                      POST /api/v2/bulk-jobs/{id}/cancel
//   message-list.ts    GET /api/v2/messages: the filters read and checked (400 naming the parameter),
//                      each row rendered as the status call does (report-format.ts)
//   message-export.ts  GET /api/v2/messages/export: every message the list's filters match, CSV or
//                      JSON Lines, streamed; the rows and columns the operator's export writes too
//   message-views.ts   GET /api/v2/messages/summary, /messages/per-minute and /messages/{id}
//   message-detail.ts  one message as support reads it: the timeline with its webhook attempts, its
//                      cost, carrier and parts (the account's /messages/{id}, the operator's too)
//   v2-accept.ts       acceptIdempotent: Idempotency-Key around an accept, shared by send, its GET
//                      variant, schedule and bulk
//   send-fields.ts     the v2 send fields, defined once for send, schedule, the GET variant and bulk
//   v2-schemas.ts      the SMS answers' schemas (SmsAccepted, DeliveryReport, BulkJob, Balance, the
//                      message views, …), shared with the console: typebox only
//   legacy-routes.ts   legacyRoute() (GET+POST, plain text, negative codes; an account not active -16 on
//                      every call but accountstatus; HEAD as GET on reads, 405 on sends) and GET /api/getcredits
//   legacy-encoding.ts percent-escapes read as UTF-8: a parameter that is not refused -8 (-9 xmlstring); the form reader;
//                      a parameter given twice with different values refused -8 (-9 xmlstring, -7 credentials)
//   legacy-json.ts     a JSON body's numbers and booleans read as form text ({"type": 2}); one past 2^53 -8
//   legacy-send.ts     the legacy send's parameters → SmsSendInput (`type=2`, `text`; at most 100,000 numbers)
//   ucs2-hex.ts        `type=2` messages: UTF-16BE hex decoded, never throwing
//   xml-send.ts        the XML API's `xmlstring` document, parsed as text, no DOCTYPE, at most 2 MiB,
//                      a chunk a turn of the event loop
//   xml-scan.ts        the XML document's bounds (elements, depth, attributes), checked before the parse
//   policy.ts          SmsPolicy.decide: the SMS rules every family shares (links and callback numbers
//                      of the text checked against the entity's lists: base/core/dlt-links.ts) → a SendOrder (and the
//                      recipients refused one by one) or a GatewayError
//   route-gate.ts      rule 5: the route enabled for the account (PS, and P from an own sender ID,
//                      need promo sender: decision 0183)
//   account-rules.ts   an account's switches, DLT white-lists, default entity, template index and its
//                      entities' approved links and callback numbers, cached on the send path
//   dlt-entity.ts      the DLT entity a send carries: named, else its template's, else the account's
//                      default or only white-listed one; the -31 refusals saying what is missing
//   dlt-link-check.ts  the rule on a text's links and callback numbers: on the entity's lists, or refused
//                      (dlt_url_not_whitelisted / dlt_callback_not_whitelisted) naming the first that is not
//   dlt-chain-check.ts the rule on the telemarketer chain: declared when required (dlt_chain_missing), and
//                      the one a client sent equal to it (dlt_chain_mismatch)
//   dlt-matcher.ts     DLT content scrubbing: TemplateIndex, a trie of templates' leading literal text,
//                      whitespace strict (as registered) or lenient (runs as one space)
//   dlt-mismatch.ts    where a message stopped matching a template: the refusal's position and expected
//   dlt-template-check.ts  the rule on DLT content: the matched template, or dlt_template_mismatch saying where
//   recipients.ts      Indian mobile numbers: 10 digits starting 6–9, also written +91…, 91…, 0…; a
//                      number given twice sent once (withoutRepeats: bulk, legacy, XML, SMPP submit_multi)
//   sender-approvals.ts   sender-ID approval lookups on the send path, remembered for 2 s
//   report-format.ts   the v2 delivery report of one message, as the status call answers it (with its clicks)
//   short-link-plan.ts tracked short links: which links of a text are a {#var#}'s, the segments as sent,
//                      the short links' own domain on the entity's white-list
export { accountDltEntity } from "./dlt-entity.js";
export { registerLegacyRoutes } from "./legacy-routes.js";
export { messageDetail } from "./message-detail.js";
export { EXPORT_PARAMS, MESSAGE_EXPORT_COLUMNS } from "./message-export.js";
export { LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, LIST_PARAMS, listFilter, operatorFilter } from "./message-list.js";
export { MAX_SEGMENTS, SmsPolicy, type SmsSendInput } from "./policy.js";
export { withoutRepeats } from "./recipients.js";
export { clickCounts, deliveryReport } from "./report-format.js";
export { SEND_FIELDS } from "./send-fields.js";
export { registerV2SmsRoutes } from "./v2-routes.js";
export { parseXmlSend, type XmlSend, xmlCredentials } from "./xml-send.js";
