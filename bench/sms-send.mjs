// Send throughput against a real gateway process (simulated carrier delivering everything),
// then checks that every accepted message was delivered and that the ledger charged exactly
// what the server accepted.
//   --family v2      POST /api/v2/sms/send with the demo API key (default)
//   --family legacy  GET /httpapi/send with username+password on every request, as legacy
//                    clients do (DLT scrubbing on: the text matches the demo's template)
//   --tool autocannon|wrk  the load generator (wrk costs the shared cores less)
//   --numbers N      v2 with autocannon: each request to one of N numbers at random (default
//                    1: always 9876543210), so the indexes by number see real insert positions
// Usage: node bench/sms-send.mjs [--family v2|legacy] [--tool autocannon|wrk] [--seconds 30]
//        [--connections 100] [--numbers 1] [--database postgres://…] [--log-level warn|info]

import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import { cli, freshSqliteUrl, machine, metric, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    connections: { type: "string", default: "100" },
    database: { type: "string" },
    port: { type: "string", default: "18090" },
    family: { type: "string", default: "v2" },
    tool: { type: "string", default: "autocannon" },
    numbers: { type: "string", default: "1" },
    // info writes the per-request log lines a default start writes (to the pipe this script reads).
    "log-level": { type: "string", default: "warn" },
  },
});
const db = values.database ? { url: values.database, cleanup: () => undefined } : freshSqliteUrl();
const env = {
  LEGACY_THROTTLE_PER_SECOND: "0",
  SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: values["log-level"],
  SIMULATOR_LATENCY_MS: "200",
  SIMULATOR_FAILURE_RATE: "0",
};
const base = `http://127.0.0.1:${values.port}`;

const server = await startServer("start", env);
cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");

const text = "Your OTP is 482913. Do not share it with anyone.";
const demoPassword = /Demo account[\s\S]*?password:\s+(\S+)/.exec(server.output())?.[1];
const query = {
  username: "demo",
  password: demoPassword,
  sender_id: "SWBRD",
  route: "T",
  phonenumber: "9876543210",
  message: text,
};
const request =
  values.family === "legacy"
    ? { url: `${base}/httpapi/send?${new URLSearchParams(query)}`, method: "GET" }
    : {
        url: `${base}/api/v2/sms/send`,
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${server.demoKey}` },
        body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: text }),
      };
// A legacy refusal is an HTTP 200 with a negative code: check that the request is accepted first.
const probe = await fetch(request.url, request);
const probeText = await probe.text();
if (!probe.ok || (values.family === "legacy" && !/^\d+_\d{8}_\d+$/.test(probeText))) {
  throw new Error(`the ${values.family} send is refused: ${probeText}`);
}
const result =
  values.tool === "wrk"
    ? runWrk(request)
    : await autocannon({
        ...request,
        connections: Number(values.connections),
        duration: Number(values.seconds),
        ...(Number(values.numbers) > 1 && values.family === "v2" ? { setupRequest: toRandomNumber } : {}),
      });

const accepted = result["2xx"];
const perSecond = accepted / Number(values.seconds);
console.log(
  `accepted ${accepted} in ${values.seconds}s = ${perSecond.toFixed(0)}/s; non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}`,
);
console.log(
  `latency ms: p50 ${result.latency.p50} p90 ${result.latency.p90} p99 ${result.latency.p99} max ${result.latency.max}`,
);

// autocannon stops counting at the deadline; up to one request per connection was still in
// flight. Wait until the server's own count stops moving, then audit against it.
let acceptedByServer = -1;
for (let stable = 0; stable < 4; ) {
  await new Promise((r) => setTimeout(r, 250));
  const n = await metric(base, "switchboard_messages_accepted_total");
  stable = n === acceptedByServer ? stable + 1 : 0;
  acceptedByServer = n;
}
console.log(
  `server accepted ${acceptedByServer - 1} during the load (${acceptedByServer - 1 - accepted} answered after the deadline; ${((acceptedByServer - 1) / Number(values.seconds)).toFixed(0)}/s durably accepted)`,
);
const drainStarted = Date.now();
await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= acceptedByServer, {
  timeoutMs: 300_000,
});
const drainSeconds = (Date.now() - drainStarted) / 1000;
console.log(`all ${acceptedByServer} delivered ${drainSeconds.toFixed(1)}s after the load stopped`);

const balance = await (
  await fetch(`${base}/api/v2/balance`, { headers: { authorization: `Bearer ${server.demoKey}` } })
).json();
// acceptedByServer includes the probe.
const expected = 10_000 + 100_000_000 - acceptedByServer;
console.log(
  `balance ${balance.data.balance}, expected ${expected}: ${balance.data.balance === expected ? "exact" : "MISMATCH"}`,
);
console.log(
  `family: ${values.family}; machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}`,
);

server.child.kill("SIGTERM");
await new Promise((r) => server.child.on("exit", r));
db.cleanup();

/** The v2 request to one of --numbers numbers, drawn at random (ending in 7: no simulator magic). */
function toRandomNumber(req) {
  const number = 9_000_000_007 + 10 * Math.floor(Math.random() * Number(values.numbers));
  return { ...req, body: JSON.stringify({ sender_id: "SWBRD", recipient: String(number), message: text }) };
}

/** wrk (C, one thread) leaves the gateway more of the two cores than autocannon does. */
function runWrk(request) {
  const script = new URL("./wrk-send.lua", import.meta.url).pathname;
  const run = spawnSync(
    "wrk",
    ["-t1", `-c${values.connections}`, `-d${values.seconds}s`, "--latency", "-s", script, request.url],
    {
      encoding: "utf8",
      env: {
        ...process.env,
        BENCH_METHOD: request.method,
        BENCH_BODY: request.body ?? "",
        BENCH_AUTH: request.headers?.authorization ?? "",
      },
    },
  );
  if (run.status !== 0) throw new Error(`wrk failed: ${run.stderr}`);
  const out = run.stdout;
  const ms = (label) => {
    const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!m) return Number.NaN;
    const v = Number(m[1]);
    return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
  };
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    "2xx": total - non2xx,
    non2xx,
    errors: /Socket errors: (.*)/.exec(out)?.[1] ?? 0,
    timeouts: 0,
    latency: { p50: ms(50), p90: ms(90), p99: ms(99), max: Number.NaN },
  };
}
