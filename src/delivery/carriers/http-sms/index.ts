// The http-sms connector: a generic HTTP SMS aggregator client and its DLR callback.
//
// Its files (others import this folder through this index only):
//   config.ts          one aggregator's configuration (TypeBox schema) and its checks
//   dlr-checks.ts      whether a delivery-report check protects anything (checked when stored)
//   connector.ts       sends each SMS as one HTTP request over a keep-alive pool, rate-capped
//   request.ts         a message rendered into the aggregator's request, each value encoded for its place
//   exchange.ts        one request with a deadline, telling whether it reached a socket (safe resend)
//   answer.ts          the aggregator's answer read as accepted, refused for good, or for now
//   dlr.ts             delivery-report callbacks: parsed per the configuration, served on the API role
//   token-bucket.ts    the send rate cap shared by the connector's lanes

export {
  callbackAuthentication,
  type HttpSmsConfig,
  HttpSmsConfigError,
  parseHttpSmsConfig,
} from "./config.js";
export { HttpSmsConnector } from "./connector.js";
export { type DlrRequest, parseDlr, registerHttpSmsDlrRoute } from "./dlr.js";
export { weakCallbackCheck } from "./dlr-checks.js";
