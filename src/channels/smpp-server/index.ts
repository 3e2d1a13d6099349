// The SMPP server side (issue 21): account holders bind as ESMEs and submit through the same
// rules and acceptor as the HTTP families; receipts and MO wait in smpp_outbox for a receiver.
// The PDUs it reads and writes are base/smpp's, the codec it shares with the carriers' client.
//
//   server.ts       listeners (plain, TLS), binds per account and their limits
//   deliver-pump.ts the deliver_sm each account is owed, sent over its receiving binds in order
//   unbound.ts      connections not bound yet, limited per address and in all
//   bind.ts         one connection: bind, window and back-pressure, bind timeout, keep-alive, unbind
//   bind-host.ts    what a connection asks of its server: settings, authentication, its requests handled
//   client-commands.ts the requests a connection takes, by kind (binds; submits, query_sm, cancel_sm, windowed)
//   client-output.ts what the server writes to a client, one write a turn, closed past the unread bound
//   outgoing-requests.ts a bind's own requests (deliver_sm, enquire_link, unbind) and their answers
//   requests.ts     a bind's windowed requests answered: submits (counted, refusals logged), query_sm, cancel_sm
//   submit.ts       submit_sm / data_sm / submit_multi → SmsPolicy and the Acceptor; long messages
//   query.ts        query_sm: the state of a message by the id a submit answered, the account's only
//   cancel.ts       cancel_sm: a held (scheduled) message cancelled and refunded, by id or by addresses
//   message-state.ts a message's status as message_state, stat: and err:, for receipts and query_sm
//   held-parts.ts   the parts of long messages waiting for the rest, bounded per account and in total
//   abandoned.ts    failed receipts for parts answered ESME_ROK whose message never came to be
//   status.ts       every refusal as a command_status (docs/smpp-server.md prints the table)
//   refusal-record.ts a refused submit to the log of refusals, its answer as command_status
//   outbox.ts       receipts and MO written in the transaction of the change they report
//   outbox-writes.ts the deliver_sm pump's writes, committed by the worker thread on SQLite
//   registry.ts     every process's binds in smpp_binds: listing and disconnecting them
//   admin-routes.ts the operator API over the registry
//   admin-schemas.ts  its answers as schemas (typebox only: the console's types too)
//   v2-routes.ts    the account's own binds and SMPP access on v2 (a reseller's sub-accounts' too)
//   v2-schemas.ts   its answer as schemas (the console's types too)
//   settings.ts     an account's SMPP password and limits
export { registerSmppAdminRoutes } from "./admin-routes.js";
export { SmppOutbox } from "./outbox.js";
export { type ClaimedRow, localOutboxWriter, type OutboxWrite } from "./outbox-writes.js";
export { type BindListing, disconnectBind, listBinds } from "./registry.js";
export { type BindView, SmppServer, type SmppServerDeps } from "./server.js";
export {
  describeSmppSettings,
  hasSmppChanges,
  type SmppSettingsChanges,
  type SmppSettingsView,
  setSmppSettings,
  smppSettingsOf,
} from "./settings.js";
export { REFUSALS, STATUS } from "./status.js";
export { registerV2SmppRoutes } from "./v2-routes.js";
