// The http-sms connector: a generic HTTP SMS aggregator client and its DLR callback.

export {
  type HttpSmsConfig,
  HttpSmsConfigError,
  HttpSmsConfigSchema,
  type HttpSmsDlrConfig,
  PLACEHOLDERS,
  parseHttpSmsConfig,
} from "./config.js";
export { HttpSmsConnector, type HttpSmsConnectorOptions } from "./connector.js";
export { type DlrOutcome, type DlrRequest, parseDlr, registerHttpSmsDlrRoute } from "./dlr.js";
