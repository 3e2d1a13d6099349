// The log of refusals under a flood (issue 38, item 3): a `switchboard start` on a fresh SQLite
// database is sent refused sends as fast as wrk can (one account's v2 sends to a number too short:
// 422 invalid_recipient) for --seconds, and the bench reports what the log kept (rows written,
// the dropped counter), the process's RSS before and after, and the refusals' own latency. Then,
// in-process, what the log costs per request: the onSend hook on an answer that is not a refusal
// (every accepted send pays this), record() under the cap and over it, and the memory a million
// refusals from a million source addresses leave behind. Usage:
//   node bench/refusal-flood.mjs [--seconds 10] [--connections 50]
import { spawn } from "node:child_process";
import fs from "node:fs";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { freePort, freshSqliteUrl, machine, metric, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: { seconds: { type: "string", default: "10" }, connections: { type: "string", default: "50" } },
});
console.log(machine());

// In-process costs, on tsc's output (npm run build).
const { RefusalLog } = await import("../dist/domain/refusals/index.js");
const { captureRefusals } = await import("../dist/app/refusal-capture.js");
const counter = () => ({ inc() {} });
const deps = (cap) => ({
  clock: { now: () => new Date() },
  metrics: { refusalsRecorded: counter(), refusalsDropped: counter() },
  logger: { warn() {} },
  config: { refusalLogDays: 30, refusalLogPerAccountPerMinute: cap },
});
const details = () => ({
  operation: "POST /api/v2/sms/send",
  recipients: ["98765"],
  sender: "SWBRD",
  text: "Your OTP is 482913. Do not share it with anyone.",
  httpStatus: 422,
  code: "invalid_recipient",
  answer: "422 invalid_recipient",
  reason: "Missing or invalid mobile number.",
  requestId: "req-1",
});
const time = (n, fn) => {
  for (let i = 0; i < Math.min(n, 100_000); i++) fn(i);
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn(i);
  return Number(process.hrtime.bigint() - start) / n;
};
const noWrite = async () => undefined;
const hook = captureRefusals(new RefusalLog(deps(60), noWrite));
const accepted = { method: "POST", routeOptions: { url: "/api/v2/sms/send" }, refusal: undefined };
const done = () => undefined;
console.log(
  `onSend hook, an answer that is no refusal: ${time(10_000_000, () => hook(accepted, {}, "{}", done)).toFixed(1)} ns`,
);
let under = new RefusalLog(deps(1e9), noWrite);
console.log(
  `record() under the cap (buffered): ${time(1_000_000, (i) => {
    if (i % 5_000 === 0) under = new RefusalLog(deps(1e9), noWrite); // stays under the buffer's bound
    under.record({ family: "v2", accountId: 1, address: "127.0.0.1" }, details);
  }).toFixed(0)} ns`,
);
const over = new RefusalLog(deps(60), noWrite);
console.log(
  `record() over the cap (dropped, counted): ${time(10_000_000, () => over.record({ family: "v2", accountId: 1, address: "127.0.0.1" }, details)).toFixed(1)} ns`,
);
global.gc?.();
const heap0 = process.memoryUsage().heapUsed;
const flood = new RefusalLog(deps(60), noWrite);
for (let i = 0; i < 1_000_000; i++) {
  flood.record(
    { family: "v2", accountId: null, address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}` },
    details,
  );
}
global.gc?.();
console.log(
  `a million unauthenticated refusals from a million addresses: ${flood.buffer.length} buffered, ${flood.counts.size} addresses counted, heap +${((process.memoryUsage().heapUsed - heap0) / 2 ** 20).toFixed(1)} MiB`,
);

// The flood, end to end.
const db = freshSqliteUrl();
const port = String(await freePort());
const env = { DATABASE_URL: db.url, PORT: port, LOG_LEVEL: "warn", SIMULATOR_LATENCY_MS: "200" };
const server = await startServer("start", env);
const base = `http://127.0.0.1:${port}`;
const rss = () =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const refused = {
  url: `${base}/api/v2/sms/send`,
  body: JSON.stringify({ sender_id: "SWBRD", recipient: "98765", message: "Your OTP is 482913." }),
};
// Warm up (the first requests compile the routes), then measure.
for (let i = 0; i < 200; i++) {
  await fetch(refused.url, {
    method: "POST",
    headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
    body: refused.body,
  });
}
await new Promise((r) => setTimeout(r, 1_000));
const rss0 = rss();
const dropped0 = await metric(base, "switchboard_refusals_dropped_total");
const wrk = spawn(
  "wrk",
  [
    "-t2",
    `-c${values.connections}`,
    `-d${values.seconds}s`,
    "--latency",
    "-s",
    new URL("./wrk-send.lua", import.meta.url).pathname,
    refused.url,
  ],
  {
    env: { ...process.env, BENCH_METHOD: "POST", BENCH_BODY: refused.body, BENCH_AUTH: `Bearer ${server.demoKey}` },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let wrkOut = "";
wrk.stdout.on("data", (c) => {
  wrkOut += c;
});
let peak = rss0;
const sampler = setInterval(() => {
  peak = Math.max(peak, rss());
}, 200);
await new Promise((r) => wrk.on("exit", r));
clearInterval(sampler);
await new Promise((r) => setTimeout(r, 1_000));
const requests = Number(/(\d+) requests in/.exec(wrkOut)?.[1] ?? 0);
const dropped = (await metric(base, "switchboard_refusals_dropped_total")) - dropped0;
const written = new BetterSqlite3(db.url.replace(/^sqlite:/, ""), { readonly: true })
  .prepare("select count(*) as n from refusals")
  .get().n;
console.log(
  wrkOut
    .split("\n")
    .filter((l) => /Latency|50%|99%|Requests\/sec/.test(l))
    .join("\n"),
);
console.log(
  `${requests} refused sends in ${values.seconds} s: ${written} rows in refusals (the warm-up and the flood in one minute or two: 60 rows a minute per account), ${dropped} dropped and counted; RSS ${rss0.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB, ${rss().toFixed(0)} MB after`,
);
server.child.kill("SIGTERM");
await new Promise((r) => server.child.once("exit", r));
db.cleanup();
process.exit(0);
