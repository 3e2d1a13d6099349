export * from "./accounts.js";
export * from "./ledger.js";
export * from "./ledger-batch.js";
export * from "./sender-ids.js";
