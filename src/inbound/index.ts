export { OPERATOR_CONNECTOR, registerInboundAdminRoutes } from "./admin-routes.js";
export * from "./ingest.js";
export * from "./keywords.js";
export * from "./messages.js";
export * from "./numbers.js";
export * from "./operations.js";
export { SUPPRESSIONS_CHANGED, SuppressionList } from "./suppression.js";
export { registerV2InboundRoutes } from "./v2-routes.js";
