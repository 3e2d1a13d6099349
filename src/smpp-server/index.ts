// The SMPP server side (issue 21): account holders bind as ESMEs and submit through the same
// rules and acceptor as the HTTP families; receipts and MO wait in smpp_outbox for a receiver.
export { SmppOutbox } from "./outbox.js";
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
