// Fallback on any send (issue 41, item 3): POST /api/v2/send sends a chain of steps, each a send
// of its own channel, the next one only when its condition on the one before is met.
//   schemas.ts       the request and the chain's answer
//   step-fields.ts   each step's fields checked by its channel's own schema; the conditions' rules
//   conditions.ts    whether a waiting step goes, waits or is skipped (no I/O)
//   rows.ts          send_chains and chain_steps: each change one conditional statement
//   step-send.ts     a step sent through its channel's rules and charge, under a key of chain and step
//   chains.ts        Chains: start, get, and the worker's pass (advance) that sends, skips and completes
//   listing.ts       a chain as the API and the CLI show it; every account's chains for the operator's CLI
//   retention.ts     MESSAGE_RETENTION_DAYS: chains done with pruned with their steps
//   routes.ts        POST /api/v2/send, GET /api/v2/send/{chain_id}

export { Chains, startChainPasses } from "./chains.js";
export { operatorChain, operatorChains } from "./listing.js";
export { registerV2ChainRoutes } from "./routes.js";
