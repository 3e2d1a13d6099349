// dispatch/: From the queue to the carriers and back.
//
// Its files (others import this folder through this index only):
//   bulk-expander.ts   BulkExpander: turns bulk-job parts into messages, 1,000 per part per round, one
//                      part per account per round, only while under 5,000 messages are queued; woken by
//                      BULK_PARTS_SIGNAL (a committed bulk part), else every 500 ms; not the parts of an
//                      account that is not active (decision 0155)
//   dispatcher.ts      claims due messages (500 a round, transactional lane first), submits them
//                      (failover.ts) and records every outcome in one transaction (on PostgreSQL the
//                      one that claimed the batch, its row locks the claim); pauses after failed rounds;
//                      a message its BodyRevealer withholds (a verification code already void) fails, refunded;
//                      a message of an account that is not active is held (account_inactive, decision 0155)
//   held-accounts.ts   HeldAccounts: the accounts not active or below one (decision 0148), in memory, read
//                      again on the credential signals and every 30 s; an account active again has its
//                      held messages made due at once. The dispatcher holds their messages, the
//                      expander leaves their bulk parts
//   failover.ts        a batch to the connectors of each message's plan, from the router (its Routing:
//                      the carrier registry's current router); a message refused retryably moves to its
//                      plan's next connector within the batch
//   submit-outcomes.ts each message filed as submitted, retried after a back-off, held while its route
//                      has no connector up or its account is not active, or failed; the batch's record
//                      and its webhook events; REPORTED_CHANNELS (sms, voice, email), the channels whose states go out as
//                      delivery_report webhooks (used by the dispatcher and the ReportIngester)
//   promotional-release.ts  a promotional SMS taken over a minute after its acceptance checked again
//                      (decision 0178): hours closed → scheduled again; DND or opted out since → failed, refunded
//   unrecorded-submits.ts  what the carriers took of a batch whose record failed: recorded before the
//                      next claim, not sent again
//   router.ts          message → the connectors to try, in order: SMS and voice by the operator's routes
//                      (own route code before *, then the longest prefix; smooth weighted round robin
//                      among the connectors that are up, the rest as failover, standbys last); no SMS
//                      route at all → the simulator; routes but no match → no_route; all down →
//                      connectors_down; email and WhatsApp → their channel's connector
//   route-strategies.ts  how a route orders its connectors: weighted (round robin by weight),
//                      least_cost (by the connectors' cost cards), adaptive (by the shares of its scores)
//   connector.ts       the Connector interface: submit(batch) → results with a `retryable` flag,
//                      onReports(sink), onInbound(sink) for connectors that receive SMS,
//                      reportsDelivery (false: its messages never expire), recordedLate(ids) for
//                      messages whose submit the dispatcher could record only after a failed try
//   simulator.ts       the simulated SMS carrier: seeded outcomes, latency, magic recipients, capture file;
//                      inbound messages (generateInbound; recipient 0005 answers a numeric sender STOP)
//   reports.ts         ReportIngester: applies delivery reports in groups; holds a report that overtakes
//                      the record of its submit for up to 60 s
//   carrier-reasons.ts a failed report's carrier code mapped to its reason (the connector's error_codes)
//                      before it is applied; the refund of the reasons REFUND_CARRIER_REASONS names
//   housekeeping.ts    every second: releases due scheduled messages, requeues leases earlier versions left, asks the
//                      simulator again for lost reports, expires unreported messages; once a minute
//                      of the clock, deletes login failures that no longer count
//   expiry.ts          messages `submitted` longer than MESSAGE_VALIDITY_HOURS fail as `expired` with
//                      their webhook (not refunded); connectors that never report delivery are skipped
export { BULK_PARTS_SIGNAL, BulkExpander, DEFAULT_EXPANDER_OPTIONS } from "./bulk-expander.js";
export type { CarrierReasons } from "./carrier-reasons.js";
export {
  type Connector,
  DEFERRED,
  type InboundSms,
  type Outcome,
  outcomeOf,
  type SubmitResult,
  VOICE_HTTP_CONNECTOR,
  VOICE_SIMULATOR_CONNECTOR,
} from "./connector.js";
export {
  type AccountsHeld,
  type BodyRevealer,
  DEFAULT_DISPATCHER_OPTIONS,
  Dispatcher,
  QUEUED_SIGNAL,
  type RevealedBatch,
} from "./dispatcher.js";
export type { Routing } from "./failover.js";
export { HeldAccounts } from "./held-accounts.js";
export { type CarrierUpkeep, type Housekeeping, startHousekeeping } from "./housekeeping.js";
export { type PromotionalRelease, promotionalRelease, RELEASE_GRACE_MS } from "./promotional-release.js";
export { ReportIngester } from "./reports.js";
export type { ConnectorScore, RouteScoresSource } from "./route-strategies.js";
export { Router, routeCodeOf, routeKey } from "./router.js";
export { SimulatorConnector } from "./simulator.js";
export { retryDelayMs } from "./submit-outcomes.js";
