// messages/: Messages in the database, for every channel.
//
// Its files (others import this folder through this index only):
//   accept.ts          Acceptor: group commit of sends (idempotency claims, debits, ledger entries,
//                      message rows in one transaction per group; a bulk send's job created or
//                      extended in the same transaction); resolves only after the commit
//   send-order.ts      what a family hands the Acceptor (SendOrder of MessageDrafts, JobRequest) and what
//                      it gets back (AcceptOutcome, AcceptedSend); AcceptService
//   accept-job.ts      a send's bulk job in the Acceptor's transaction: the job row created or extended,
//                      the part holding the recipients until the expander makes them messages
//   accept-upline.ts   a sub-account's send in the Acceptor: each ancestor's charge, the debits at every
//                      level (taken all or none), the refusal when a level is short; shortLevel, which
//                      level was short (its own or an ancestor), in words for the log of refusals
//                      (decisions 0158, 0192)
//   bulk-expansion.ts  the bulk expander's statements: due parts, the queued messages due (counted up to
//                      a cap), a part advanced by a chunk with its messages inserted, conditional on
//                      its next_index
//   flood-counter.ts   the per-account daily SMS counter behind the flood limit; a day's count
//   jobs.ts            bulk-job bookkeeping: queued → processing on a first submit; delivered, failed
//                      and cancelled counters (and completed) moved in the transactions that move
//                      the messages, so a job's delivery summary is exact at every moment; an
//                      account's jobs by id or a page at a time, and where a job's pending messages are
//   transitions.ts     the batched status changes: claim (row locks on PostgreSQL), submitted, retry,
//                      fail and refund, release of scheduled messages, requeue of leases earlier
//                      versions left (and of all dispatching ones at SQLite's start), cancellation of
//                      scheduled messages with refund; which of a lost claim's messages still wait
//                      (stillWaiting, for the dispatcher's late record)
//   carrier-refunds.ts messages a carrier failed, refunded when the policy refunds their reason
//   report-transitions.ts delivery reports applied, the connectors awaiting reports, and messages
//                      whose report never came failed as expired
//                      Also the reads around them: statuses by upstream id (a report that changed
//                      nothing), messages still awaiting their report (the simulators' lost reports and calls).
//                      For carriers/smpp/: those awaiting it a page at a time (awaitingReportPage), and
//                      messageAwaitsReport, a condition its own statements take. The bounds of what a
//                      report carries (UPSTREAM_ID_MAX_LENGTH, REPORT_CODE_MAX_LENGTH).
//   early-reports.ts   reports that came before any message carried their id (`early_reports`): kept
//                      (at most so many per connector), applied once their message is submitted (only to
//                      one that was due when they came), dropped when spent or 48 hours old
//   lookup.ts          an account's messages by queue id, broadcast id or vendor id; a broadcast's
//                      message to one recipient; what an SMPP client's receipt quotes (receiptSources)
//                      and its query_sm reads (queriedMessagesQuery)
//   tree-reads.ts      what a reseller reads of its tree: a message of the tree by queue id (any depth
//                      below the reader); another tree's: 404 (the account `?subaccount=` names is
//                      accounts/' readableAccount)
//   listing.ts         an account's messages newest first, a page after a (created_at, id) position, with
//                      filters; number, channel and status checked on at most 10,000 rows read per page;
//                      the opaque cursor; the stored forms of a number (recipientForms); pages by
//                      offset for the legacy mis call; every message a filter matches, a page at a
//                      time (eachMessage, for exports); any account's message by queue or carrier id
//   retention.ts       MESSAGE_RETENTION_DAYS: retired messages accepted before the cutoff removed in
//                      batches with what only they need (the owners' removals, handed in)
//   stats.ts           traffic per channel today and over 7 days (the account's days), messages per
//                      minute over the last hours, and a window's messages by status or in all, read
//                      through (account_id, created_at); the queued backlog per channel and lane; a
//                      connector's last final messages counted (the delivery-rate alert's)
//   traffic-channels.ts  TRAFFIC_CHANNELS, the summary's channels in order (no imports: the console's too)
//   timeline.ts        one message's history: accepted, scheduled, submitted, each part's receipt (the
//                      parts read by carriers/smpp/' reader, handed in), the end with its reason, the
//                      refund (ledger entry whose ref is the message id)
//   rows.ts            messageRow: the one builder of a messages row, with every column's default
//   idempotency.ts     Idempotency-Key: header check, request hash (JSON with sorted members), the one
//                      claim (claimIdempotencyKey) every family makes in its transaction, the stored answer
//                      and its storing once known (storeIdempotentAnswer)
//                      Also the keys forgotten after a day (pruneIdempotencyKeys).
//   email-steps.ts     the email channel's own steps: a bounce after the relay took the message (failed,
//                      `bounced`), the email an open or click names, a send's recipients for its status
//   voice-steps.ts     the voice channel's own steps: a call's status in its message's meta by
//                      compare-and-set
//   whatsapp-steps.ts  the WhatsApp channel's own steps: the row written `sending` before the upstream
//                      call, then sent or failed; Meta's delivered, read and failed; stale sends failed;
//                      sends left sent or delivered (the simulator's lost statuses); a message by
//                      numeric or upstream id; which of some wamids a message carries
//   analytics.ts       delivery analytics: the rollups of a window grouped by account, connector, route,
//                      prefix, error code, or the caller's hours or days; latency percentiles from their
//                      histogram; ANALYTICS_PREFIX_DIGITS recorded
//   submit-transitions.ts  markSubmitted: a batch's accepted submits, with their cost and routing note
//   margin.ts          revenue (charged, less refunds), carriers' cost and margin of a window's SMS and
//                      voice, by account, connector or cost prefix
//   connector-receipts.ts  a connector's recent messages and receipts (adaptive routes' scores)
//   rollups.ts         RollupChanges: what a batch of message writes changes in the rollups, summed per
//                      rollup row and written once per commit group (every writer of messages calls it)
//   sequence.ts        SequenceAllocator: hi/lo blocks of 1,000 numbers from the `sequences` table
//   short-links.ts     tracked short links: a body's links replaced by SHORT_LINK_BASE/<code>, clicks
export * from "./accept.js";
export { shortLevel } from "./accept-upline.js";
export * from "./analytics.js";
export * from "./bulk-expansion.js";
export * from "./carrier-refunds.js";
export * from "./connector-receipts.js";
export * from "./early-reports.js";
export * from "./email-steps.js";
export { floodCount } from "./flood-counter.js";
export * from "./idempotency.js";
export * from "./jobs.js";
export * from "./listing.js";
export * from "./lookup.js";
export * from "./margin.js";
export * from "./report-transitions.js";
export * from "./retention.js";
export { RollupChanges } from "./rollups.js";
export * from "./rows.js";
export * from "./send-order.js";
export * from "./sequence.js";
export * from "./short-links.js";
export * from "./stats.js";
export * from "./submit-transitions.js";
export * from "./timeline.js";
export * from "./transitions.js";
export * from "./tree-reads.js";
export * from "./voice-steps.js";
export * from "./whatsapp-steps.js";
