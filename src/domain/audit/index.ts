// audit/: The audit log (issue 42, item 4; decision 0120): every change an operator or an account
// makes, who made it, from where, what it was before and after, appended in the transaction of
// the change and hash-chained, so that `audit verify` finds an entry deleted, edited or moved.
//
// Its files (others import this folder through this index only):
//   actor.ts         Actor: who made a change (account, channel, session or key, address); cliActor
//   record.ts        recordChange: the append, in the change's own transaction, behind the chain's head lock
//   verify.ts        verifyAuditChain: the walk that names the first entry that fails
//   export-check.ts  checkAuditExport: an operator's JSON Lines export checked without the database
//   rows.ts          the newest-first page with a cursor, every entry for an export, a row described
//   query.ts         the lists' query: from, to, action, actor, target, limit, cursor
//   audit-schemas.ts the answers' schemas (AuditEntry, AuditPage) and the export's columns
// The hash of an entry is base/store/audit-chain.ts's (the migration that made the log uses it too).
export { type Actor, type AuditChannel, cliActor } from "./actor.js";
export { AUDIT_EXPORT_COLUMNS, AuditEntry, AuditPage, AuditVerification } from "./audit-schemas.js";
export { checkAuditExport, type ExportReport } from "./export-check.js";
export {
  AUDIT_FILTER_PARAMS,
  AUDIT_LIMIT_MAX,
  AUDIT_PAGE_PARAMS,
  type AuditQuery,
  auditFilterOf,
  auditQuery,
} from "./query.js";
export { type Audited, type Change, recordChange } from "./record.js";
export {
  type AuditFilter,
  describeAuditEntry,
  eachAuditEntry,
  encodeAuditCursor,
  hashedFields,
  listAudit,
} from "./rows.js";
export { type ChainBreak, type ChainReport, verifyAuditChain } from "./verify.js";
