export { BulkExpander, DEFAULT_EXPANDER_OPTIONS } from "./bulk-expander.js";
export { type Connector, DEFERRED, type InboundSms, type SubmitResult } from "./connector.js";
export { DEFAULT_DISPATCHER_OPTIONS, Dispatcher, QUEUED_SIGNAL, retryDelayMs } from "./dispatcher.js";
export { startHousekeeping } from "./housekeeping.js";
export { ReportIngester } from "./reports.js";
export { Router } from "./router.js";
export { SimulatorConnector } from "./simulator.js";
