export { BulkExpander, DEFAULT_EXPANDER_OPTIONS } from "./bulk-expander.js";
export { type Connector, DEFERRED, type InboundSms, type Outcome, outcomeOf, type SubmitResult } from "./connector.js";
export { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, QUEUED_SIGNAL, type Routing, retryDelayMs } from "./dispatcher.js";
export { type CarrierUpkeep, startHousekeeping } from "./housekeeping.js";
export { ReportIngester } from "./reports.js";
export { Router } from "./router.js";
export { SimulatorConnector } from "./simulator.js";
