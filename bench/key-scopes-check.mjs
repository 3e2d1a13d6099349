// Issue 42, item 3: the work a key's scopes and allow-list add to each request, in-process and
// without the rest of a send, so a loaded machine cannot hide it: admitCaller (domain/auth/http.ts)
// on a principal as the key cache holds it, plain (no scopes, no list: the early return) and
// limited (scope bits and an 8-range allow-list whose last range holds the client), alternated in
// blocks, CPU time per call. Usage: npm run build && node bench/key-scopes-check.mjs [--calls 2000000] [--blocks 10]
import { parseArgs } from "node:util";
import { admitCaller, allowListMatcher, scopeBits } from "../dist/domain/auth/index.js";
import { machine, median, range } from "./lib.mjs";

const { values } = parseArgs({
  options: { calls: { type: "string", default: "2000000" }, blocks: { type: "string", default: "10" } },
});
const RANGES = "203.0.113.0/24,198.51.100.0/24,192.0.2.0/24,2001:db8::/32,10.0.0.0/8,172.16.0.0/12,::1,127.0.0.0/8";
const base = { accountId: 1, username: "demo", role: "customer", status: "active", timeZone: "Asia/Kolkata", keyId: 1 };
const principals = {
  plain: { ...base },
  limited: { ...base, scopes: scopeBits("send"), allowedFrom: allowListMatcher(RANGES), allowedBy: "key" },
};
// What admitCaller reads of a request: the route's scope (set when the route was added) and the client's address.
const request = {
  method: "POST",
  ip: "127.0.0.1",
  routeOptions: { url: "/api/v2/sms/send", config: { keyScope: "send" } },
};

function block(principal, calls) {
  const start = process.cpuUsage();
  for (let i = 0; i < calls; i++) admitCaller(request, principal);
  const used = process.cpuUsage(start);
  return ((used.user + used.system) * 1000) / calls; // ns per call
}

console.log(machine());
const calls = Number(values.calls);
for (const variant of ["plain", "limited"]) block(principals[variant], calls / 10); // warm-up
const results = { plain: [], limited: [] };
for (let round = 0; round < Number(values.blocks); round++) {
  const order = round % 2 === 0 ? ["plain", "limited"] : ["limited", "plain"];
  for (const variant of order) results[variant].push(block(principals[variant], calls));
}
for (const variant of ["plain", "limited"]) {
  const ns = results[variant];
  console.log(`${variant}: ${median(ns).toFixed(0)} ns CPU per request (range ${range(ns, 0)})`);
}
const added = results.limited.map((ns, i) => ns - results.plain[i]);
console.log(
  `added by scopes + allow-list: ${(median(added) / 1000).toFixed(2)} µs per request (median of ${added.length} alternated pairs)`,
);
