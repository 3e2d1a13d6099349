export * from "./accounts.js";
export * from "./dlt.js";
export * from "./dnd.js";
export * from "./ledger.js";
export * from "./ledger-batch.js";
export * from "./registrations.js";
export * from "./sender-ids.js";
export * from "./templates.js";
export { registerV2AccountRoutes } from "./v2-routes.js";
