// POST /api/v2/sms/send throughput: keep-alive connections against a real gateway process
// (simulated carrier delivering everything), then checks that every accepted message was
// delivered and that the ledger charged exactly what was accepted.
// Usage: node bench/sms-send.mjs [--seconds 30] [--connections 100] [--database postgres://…]
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
  },
});
const db = values.database ? { url: values.database, cleanup: () => undefined } : freshSqliteUrl();
const env = {
  LEGACY_THROTTLE_PER_SECOND: "0",
  SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: "warn",
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
const result = await autocannon({
  ...request,
  connections: Number(values.connections),
  duration: Number(values.seconds),
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
