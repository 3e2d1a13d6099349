export * from "./accept.js";
export * from "./jobs.js";
export * from "./listing.js";
export * from "./lookup.js";
export * from "./sequence.js";
export * from "./stats.js";
export * from "./timeline.js";
export * from "./transitions.js";
