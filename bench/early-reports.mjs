// Send latency while an http-sms connector's callback URL is flooded with reports for ids no
// message carries (issue 36: 10,000 of them raised the send p95 from 13 to 97 ms while they were
// retried every 250 ms). A `switchboard start` on SQLite; v2 sends with the demo key for
// --seconds, then --reports such reports posted, then v2 sends again for --seconds while the
// gateway keeps and retries them.
// Usage: flock /tmp/switchboard-heavy.lock node bench/early-reports.mjs [--reports 10000] [--seconds 15]
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cli, freshSqliteUrl, machine, metric, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    reports: { type: "string", default: "10000" },
    seconds: { type: "string", default: "15" },
    connections: { type: "string", default: "20" },
    port: { type: "string", default: "18095" },
  },
});
const db = freshSqliteUrl();
const env = {
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: "warn",
  SIMULATOR_LATENCY_MS: "200",
  SIMULATOR_FAILURE_RATE: "0",
};
const base = `http://127.0.0.1:${values.port}`;
const server = await startServer("start", env);
cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");

// An aggregator whose callbacks anyone may call (as every connector could before issue 36).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-early-"));
const definition = {
  name: "agg",
  type: "http-sms",
  method: "GET",
  url: "http://127.0.0.1:9/send?to={to}&text={text}",
  auth: { type: "none" },
  response: { type: "json", id_path: "id" },
  timeout_ms: 1000,
  max_connections: 1,
  rate_per_second: 10,
  dlr: {
    method: "GET",
    source: "query",
    id_field: "id",
    status_field: "status",
    delivered_values: ["DELIVRD"],
    failed_values: ["UNDELIV"],
  },
};
const file = path.join(dir, "agg.json");
fs.writeFileSync(file, JSON.stringify(definition));
try {
  cli(env, "carriers", "add", "--file", file);
} catch {
  // This version refuses callbacks without a secret unless told.
  fs.writeFileSync(file, JSON.stringify({ ...definition, dlr: { ...definition.dlr, unauthenticated: true } }));
  cli(env, "carriers", "add", "--file", file);
}
while ((await fetch(`${base}/carriers/http-sms/agg/dlr?id=warm&status=ACCEPTD`)).status === 404) {
  await new Promise((resolve) => setTimeout(resolve, 250));
}

const text = "Your OTP is 482913. Do not share it with anyone.";
const send = {
  url: `${base}/api/v2/sms/send`,
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${server.demoKey}` },
  body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: text }),
};
const sends = async () => {
  const result = await autocannon({
    ...send,
    connections: Number(values.connections),
    duration: Number(values.seconds),
  });
  return `${result["2xx"]} sends, latency ms p50 ${result.latency.p50} p97.5 ${result.latency.p97_5} p99 ${result.latency.p99}`;
};

console.log(`before the reports: ${await sends()}`);
let n = 0;
const posted = await autocannon({
  url: `${base}/carriers/http-sms/agg/dlr`,
  connections: 20,
  amount: Number(values.reports),
  requests: [
    { setupRequest: (request) => ({ ...request, path: `/carriers/http-sms/agg/dlr?id=nobody-${n++}&status=DELIVRD` }) },
  ],
});
console.log(`posted ${posted["2xx"]} reports for ids no message carries (non-2xx ${posted.non2xx})`);
console.log(`while they are kept: ${await sends()}`);
const retried = await metric(base, "switchboard_delivery_report_retries_total");
console.log(`retries from memory so far: ${retried} (0 as well where the version does not count them)`);
console.log(`machine: ${machine()}; load average ${os.loadavg()[0].toFixed(1)}`);

server.child.kill("SIGTERM");
await new Promise((resolve) => server.child.on("exit", resolve));
db.cleanup();
fs.rmSync(dir, { recursive: true, force: true });
