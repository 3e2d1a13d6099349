// accounts/: Account holders and their money.
//
// Its files (others import this folder through this index only):
//   accounts.ts        create (wallets funded through the ledger), find, update, public view; the
//                      switches the SMS rules read, and the few columns other folders ask for
//                      (international calls, routes)
//   account-names.ts   accounts' usernames and statuses by id, for lists that show whose a row is
//   account-fields.ts  the values of an account's status, role, routes and DLT matching (no imports: the
//                      console's too)
//   credentials.ts     accountCredentials: the select of the account's row that auth/ reads with a
//                      credential (principal, password hash, login state), handed to it by app/
//   ledger.ts          credit, conditional debit, transfer, balances, recent entries, ledger sum
//   ledger-totals.ts   a ledger added up over a window, per wallet: opening, each kind, closing, balance
//   ledger-batch.ts    the hot-path ledger: one conditional debit per account and wallet for a group of
//                      sends (all or nothing), refunds for many messages at once
//   sender-ids.ts      sender IDs: normalise, add, approve/reject, list, check approval
//   approval-rows.ts   approvalBefore: a sender ID's, template's or DLT registration's owner and status
//                      before a decision (the audit log's `before`)
//   dlt.ts             DLT entity IDs and headers white-listed per account (an account's request is
//                      pending until approved); the default entity must be one of them (removing it
//                      clears the default); DLT_CHANGED signal
//                      (dltMatchingMode checks the account's template matching)
//   dlt-chains.ts      per DLT entity, the declared telemarketer chain (the operator's TM ID last): set,
//                      clear, list, the chains indexed per entity for the send path and the carriers
//   dlt-version.ts     dltChanged (the signal, and on SQLite the version other processes read) and
//                      DltVersionWatch, a cache's read of that version at most every 2 s
//   dlt-links.ts       per DLT entity, the approved links (exact or prefix) and callback numbers an SMS
//                      may carry: add (operator: approved; account: pending), remove, list, approve,
//                      the approved set indexed per entity for the send path
//   registrations.ts   registrationFixes: the operator's CLI command and API call that add each
//                      registration (sender ID, DLT header or entity, default entity, template,
//                      credits), quoted by the refusals and by the account's readiness
//   pending-requests.ts  PendingRequest, the shape in which each owner of a kind of request gives its
//                      pending rows to the operator's approval queue (admin/approvals.ts); the
//                      requester's username for it; the approve/reject bodies and a rejection's reason
//   templates.ts       content templates ({#var#}): create, approve/reject, list, the approved set that
//                      scrubbing matches; TEMPLATES_CHANGED signal
//   dnd.ts             the DND registry: streamed CSV import, whole or not at all (staged to a file,
//                      then one transaction, 5,000 numbers a statement), add, remove, count, one
//                      primary-key probe per lookup
//   dnd-swap.ts        a large import on SQLite: written beside the registry in short transactions
//                      (triggers mirror the adds and removes made meanwhile), then swapped in
//   v2-routes.ts       v2 account resources: account status, sender-ID requests; registers the others
//   template-routes.ts GET/POST /api/v2/templates, GET /api/v2/templates/{id}
//   credit-routes.ts   GET /api/v2/credits, /credits/history, /credits/totals, /credits/export (every ledger entry,
//                      CSV or JSON Lines; the operator's export of an account's too), POST /credits/transfer
//   usage.ts           what an account spent in a window of its own days; its current row;
//                      AccountTraffic, what the routes read of messages/ (handed in by app/); every
//                      customer's balance in one wallet (the low-balance alert's)
//   key-routes.ts      GET/POST /api/v2/keys, PATCH|DELETE /api/v2/keys/{id}: the account's own keys
//   key-changes.ts     a key's request body, its limits as answered, a key's name, scopes and
//                      allowed addresses changed after it is made, a key revoked with its entry
//                      (v2, the operator API, the CLI)
//   dlt-routes.ts      GET /api/v2/dlt, POST /api/v2/dlt/entities|headers: the account's DLT
//                      registrations and its requests for them (pending until approved)
//   v2-schemas.ts      their request bodies and answers as schemas
//   price-cards.ts     price cards: a card replaced whole, listed, shown; what an account is priced by;
//                      PRICE_CARDS_CHANGED
//   price-card-pages.ts  a card a page at a time (by channel, prefix start) and whole, in chunks, for its export
//   price-row-order.ts the card's order (channel, prefix, route, effective_from), sorted in turns for an upload
//   price-changes.ts   what replacing a card changed (rows added, removed, repriced, in credits): its audit entry
//   price-rows.ts      the rows of a price card or a carrier's cost card: checked (an API body's, a
//                      bad one named by index), read back, described; no luxon (the CLI's carriers
//                      group loads it)
//   price-setting.ts   the operator's choice of an account's card (a sub-account's held to its
//                      parent's price, its markup cleared) and the change's before and after; a
//                      card by the name given (cardNamed, the reseller's choice too)
//   price-csv.ts       those rows from CSV (`prices import`, the operator API's text/csv PUT), a bad
//                      line named by its number; whole, or a slice per turn of the event loop
//   pricing-route.ts   GET /api/v2/pricing: the account's price of one unit to a number
//   price-lookup.ts    CompiledCard (own route code before *, then the longest prefix, the row in
//                      force) and PriceBook, the per-process cache of cards and accounts' prices
//                      (a sub-account's: its tree's, each level's own card or its parent's marked up)
//   resellers.ts       parents and sub-accounts: list, fund (a topup noting the parent), the
//                      markup's rounding, a message's upline (each ancestor's charge) and its refunds;
//                      readableAccount, the account a read's `?subaccount=` names (any depth below the
//                      reader; another tree's is 404), with placeBelow (its levels and the accounts
//                      between, `subaccount_via`)
//   subaccount-changes.ts  a parent's new sub-account, and its changes of one's price and status
//   subaccount-prices.ts   a sub-account's card checked against its parent's price at every prefix,
//                      route and moment either side names (decision 0149)
//   subaccounts-below.ts  the sub-accounts whose own card prices a unit below their parent's price
//                      (a change of a card or of a parent's price may leave them so: decision 0168)
//   subaccount-routes.ts  /api/v2/subaccounts: a parent's create, list, change, keys and funding of its sub-accounts
export { DLT_MATCHING_MODES, type DltMatching } from "./account-fields.js";
export * from "./account-names.js";
export * from "./accounts.js";
export { type ApprovalTable, approvalBefore } from "./approval-rows.js";
export { accountCredentials } from "./credentials.js";
export { LEDGER_EXPORT_COLUMNS, LedgerWindowQuery, ledgerExportRows } from "./credit-routes.js";
export * from "./dlt.js";
export * from "./dlt-chains.js";
export * from "./dlt-links.js";
export * from "./dlt-version.js";
export * from "./dnd.js";
export { changeKey, KeyChange, KeyRequest, keyLimits, revokeKeyRecorded } from "./key-changes.js";
export * from "./ledger.js";
export * from "./ledger-batch.js";
export * from "./ledger-totals.js";
export * from "./pending-requests.js";
export * from "./price-card-pages.js";
export * from "./price-cards.js";
export * from "./price-changes.js";
export * from "./price-csv.js";
export * from "./price-lookup.js";
export * from "./price-rows.js";
export * from "./price-setting.js";
export * from "./registrations.js";
export * from "./resellers.js";
export * from "./sender-ids.js";
export * from "./subaccount-changes.js";
export * from "./subaccounts-below.js";
export * from "./templates.js";
export { type AccountTraffic, customerBalances } from "./usage.js";
export { registerV2AccountRoutes } from "./v2-routes.js";
