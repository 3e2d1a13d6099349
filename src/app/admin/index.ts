// admin/: Operator actions.
//
// Its files (others import this folder through this index only):
//   operations.ts      the actions themselves, shared by the CLI and the operator API so both behave alike
//   key-credit-operations.ts  an account's API keys (make, list, revoke) and money (top-up, adjust),
//                      for the CLI and the operator API alike, each change with its audit entry
//   sender-id-operations.ts  an account's sender IDs (add, list, approve or reject), for the CLI and
//                      the operator API alike; each path that leaves one approved white-lists it as
//                      the account's DLT header too, unless told not to (decision 0151)
//   change-entries.ts  the audit entries of changes whose transaction a lower folder opens (an account's
//                      settings and price card, a price card's rows), as hooks those changes run
//   onboarding.ts      createAccountWithKey: an account with its first key, approved sender IDs (also
//                      DLT headers), DLT entities and default, approved templates and credits, in the
//                      one transaction of accounts.createAccount (a bad field writes nothing)
//   readiness.ts       readinessOf: an account's registrations, and each one it lacks to send SMS with
//                      the command and call that add it (the gaps follow sms/policy.ts's refusals)
//   routes.ts          the operator API under /admin/api (operator key): its hooks and admin/'s own
//                      routes (accounts with search and pages, credits, sender IDs, approvals); app/server.ts adds each family's operator routes to the same scope
//   key-routes.ts      an account's API keys: list, make one, its rate limit, revoke
//   approvals.ts       pendingApprovals: the one approval queue (sender IDs, templates, keywords, DLT
//                      entities and headers, email domains, caller numbers) across accounts, oldest first:
//                      one union of the pending rows each owner's folder selects
//   approval-kinds.ts  APPROVAL_KINDS, what the queue holds (no imports: the console's too)
//   account-schemas.ts the answers of routes.ts and login-lock-routes.ts as schemas (typebox only: the
//                      console types its operator pages with them)
//   login-lock-routes.ts  GET /admin/api/login-locks, DELETE /admin/api/accounts/{username}/login-locks
//   two-factor-routes.ts  DELETE /admin/api/accounts/{username}/two-factor: resets a console login's factor
//   nul-text.ts        refuseNulText: no path parameter, query value or JSON field of an operator route
//                      holds U+0000 (the two engines stored and refused it differently), named in a 400
//   message-routes.ts  GET /admin/api/messages (every account's, the v2 list's filters and the
//                      operator's: account, connector, error_code, route), /messages/export and
//                      /messages/{id}
//   message-facts.ts   what the operator's page of a message adds: its DLT facts, every level's charge
//   credit-routes.ts   an account's top-ups, corrections (adjust), ledger and its export
//   desk-schemas.ts    the answers of message-routes.ts and credits adjust as schemas
//   sms-rule-routes.ts the operator API for templates, DLT registrations and the DND registry (a text/csv
//                      body is handed through as a stream)
//   sms-rule-schemas.ts  their answers as schemas
//   dlt-link-routes.ts the operator API and actions (shared with the CLI) for an account's DLT link and
//                      callback white-lists per entity, and the decision on an account's request
//   dlt-chain-routes.ts the operator API and actions (shared with the CLI) for the telemarketer chain of
//                      each DLT entity of an account
//   price-card-routes.ts  PUT (JSON rows or text/csv)/GET (a page)/DELETE /admin/api/price-cards/{name},
//                      GET /admin/api/price-cards/{name}/export (CSV, JSON Lines), GET /admin/api/price-cards
//   price-card-schemas.ts its answers as schemas

export * from "./change-entries.js";
export { clearTmChainFor, setTmChainFor, tmChainsOf } from "./dlt-chain-routes.js";
export { addDltLinkFor, dltLinksOf, removeDltLinkFor, setDltLinkStatusFor } from "./dlt-link-routes.js";
export * from "./key-credit-operations.js";
export {
  operatorExportRows,
  operatorMessageDetail,
  operatorMessagePage,
  registerAdminMessageRoutes,
} from "./message-routes.js";
export * from "./onboarding.js";
export * from "./operations.js";
export { registerAdminRoutes } from "./routes.js";
export * from "./sender-id-operations.js";
