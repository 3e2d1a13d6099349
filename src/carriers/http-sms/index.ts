// The http-sms connector: a generic HTTP SMS aggregator client and its DLR callback.

export { type HttpSmsConfig, HttpSmsConfigError, parseHttpSmsConfig } from "./config.js";
export { HttpSmsConnector } from "./connector.js";
export { type DlrRequest, parseDlr, registerHttpSmsDlrRoute } from "./dlr.js";
