// Bulk acceptance: 1,000,000 recipients accepted into ONE bulk job through several calls of
// 100,000 (the first creates the job, the others extend it with job_id), against a real
// gateway process on SQLite (WAL, synchronous=FULL) with the simulated carrier. Then waits
// until every message is delivered, sampling the server's memory while the job is dispatched,
// and checks the job's summary and the ledger against what was accepted.
// Usage: node bench/bulk-send.mjs [--recipients 1000000] [--per-call 100000] [--database postgres://…]

import fs from "node:fs";
import { parseArgs } from "node:util";
import { cli, freshSqliteUrl, machine, metric, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    recipients: { type: "string", default: "1000000" },
    "per-call": { type: "string", default: "100000" },
    database: { type: "string" },
    port: { type: "string", default: "18091" },
  },
});
const total = Number(values.recipients);
const perCall = Number(values["per-call"]);
const db = values.database ? { url: values.database, cleanup: () => undefined } : freshSqliteUrl();
const env = {
  SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: "warn",
  SIMULATOR_LATENCY_MS: "200",
  SIMULATOR_FAILURE_RATE: "0",
};
const base = `http://127.0.0.1:${values.port}`;

const server = await startServer("start", env);
const credits = 2 * total;
cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", String(credits));
// Benchmarks use a key without a rate limit (the demo key has the default 60/minute).
const key = JSON.parse(cli(env, "keys", "create", "--account", "demo", "--rate-limit", "0", "--json")).api_key;
const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
const text = "Your OTP is 482913. Do not share it with anyone.";

const rss = () =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const rssBefore = rss();

let jobId;
let accepted = 0;
let charged = 0;
const calls = [];
const started = performance.now();
for (let offset = 0; offset < total; offset += perCall) {
  const recipients = [];
  for (let i = offset; i < Math.min(total, offset + perCall); i++) recipients.push(String(7_000_000_005 + i * 10)); // never a simulator magic suffix
  const body = JSON.stringify({
    sender_id: "SWBRD",
    message: text,
    recipients,
    ...(jobId === undefined ? {} : { job_id: jobId }),
  });
  const t0 = performance.now();
  const response = await fetch(`${base}/api/v2/sms/bulk`, { method: "POST", headers, body });
  const answer = await response.json();
  if (!response.ok) throw new Error(`bulk call failed: ${response.status} ${JSON.stringify(answer).slice(0, 500)}`);
  calls.push(performance.now() - t0);
  jobId = answer.data.job_id;
  accepted += answer.data.accepted;
  charged += answer.data.credits;
}
const acceptSeconds = (performance.now() - started) / 1000;
console.log(
  `accepted ${accepted} of ${total} recipients into job ${jobId} in ${acceptSeconds.toFixed(2)} s ` +
    `(${calls.length} calls: ${calls.map((ms) => (ms / 1000).toFixed(2)).join(", ")} s) = ${(accepted / acceptSeconds).toFixed(0)}/s`,
);

let peak = rss();
const drainStarted = Date.now();
const sampler = setInterval(() => {
  peak = Math.max(peak, rss());
}, 500);
// Memory at each tenth of the job delivered: flat if the dispatch of a job is bounded.
const timeline = [];
await waitFor(
  async () => {
    const delivered = await metric(base, "switchboard_messages_delivered_total");
    const heap = (await metric(base, "switchboard_nodejs_heap_size_used_bytes")) / 1024 / 1024;
    const tenth = Math.floor((10 * delivered) / accepted);
    if (tenth > timeline.length && tenth <= 10)
      timeline.push(`${tenth * 10}%: rss ${rss().toFixed(0)} MB heap ${heap.toFixed(0)} MB`);
    return delivered >= accepted;
  },
  { timeoutMs: 1_800_000, intervalMs: 1000 },
);
clearInterval(sampler);
console.log(`memory while the job was dispatched: ${timeline.join("; ")}`);
const drainSeconds = (Date.now() - drainStarted) / 1000;
console.log(
  `all ${accepted} delivered ${drainSeconds.toFixed(1)} s after acceptance (${(accepted / drainSeconds).toFixed(0)}/s); ` +
    `server RSS ${rssBefore.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB while dispatching, ${rss().toFixed(0)} MB after`,
);

const job = await (await fetch(`${base}/api/v2/bulk-jobs/${jobId}`, { headers })).json();
console.log(`job: ${JSON.stringify(job.data.job.status)} summary ${JSON.stringify(job.data.delivery_summary)}`);
const balance = await (await fetch(`${base}/api/v2/balance`, { headers })).json();
const expected = 10_000 + credits - accepted;
console.log(
  `charged ${charged}; balance ${balance.data.balance}, expected ${expected}: ${balance.data.balance === expected && charged === accepted ? "exact" : "MISMATCH"}`,
);
console.log(
  `machine: ${machine()}; database: ${values.database ? "postgres" : `sqlite (WAL, synchronous=${env.SQLITE_SYNCHRONOUS})`}`,
);

server.child.kill("SIGTERM");
await new Promise((r) => server.child.on("exit", r));
db.cleanup();
