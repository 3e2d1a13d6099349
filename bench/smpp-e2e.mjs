// SMS end to end through a real SMPP connector: POST /api/v2/sms/send (autocannon, as
// bench/sms-send.mjs) into a real gateway process (`switchboard start`) whose only SMS route
// goes, by SWITCHBOARD_CARRIERS_FILE, to the `smpp` connector `bench-smsc`, bound to
// bench/smsc.mjs in its own process on loopback, which answers every submit_sm at once and sends
// each part's DELIVRD receipt after --receipt-delay-ms. Samples every second what was accepted,
// submitted at the SMSC and delivered, and the queue (messages not yet submitted, and submitted
// but not yet delivered) to show whether it grows; then waits for every accepted message to be
// delivered and checks: SMSC submits == accepted, every message delivered once (messages and
// message_parts), and the ledger charged exactly the messages accepted.
// Usage: npm run build && node bench/smpp-e2e.mjs [--seconds 30] [--connections 100]
//        [--binds 4] [--window 50] [--receipt-delay-ms 200] [--rate N] [--database postgres://…]
//        [--database-delay-ms N]
// --database-delay-ms puts a proxy between the gateway and PostgreSQL that holds every chunk
// N ms each way, as a database on another machine would (lib.mjs, delayProxy).
// --rate holds the sends to N a second, so that runs compare at the same table sizes and batch
// sizes when the machine's other work changes how fast a run can go.
// PostgreSQL: a schema of its own in that database, dropped at the end. The PostgreSQL CPU is
// given twice: every `postgres` process on the machine (other sessions' work included, an upper
// bound), and this run's own: the backends of its gateway plus the server's own processes.
// BENCH_PG_OPTIONS adds settings to the gateway's sessions (bench/lib.mjs), and
// BENCH_SERVER_NODE_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof") goes to the gateway's node.
import os from "node:os";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import {
  cpuSeconds,
  delayProxy,
  machine,
  metric,
  postgresCpuSeconds,
  scrapeMetrics,
  startGatewayOnSmsc,
  waitFor,
} from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "30" },
    connections: { type: "string", default: "100" },
    // Sends per second over all connections (autocannon's overallRate); unlimited when absent.
    rate: { type: "string" },
    database: { type: "string" },
    "database-delay-ms": { type: "string" },
    port: { type: "string", default: "18090" },
    binds: { type: "string", default: "4" },
    window: { type: "string", default: "50" },
    "receipt-delay-ms": { type: "string", default: "200" },
    text: { type: "string", default: "Your OTP is 482913. Do not share it with anyone." },
  },
});
const seconds = Number(values.seconds);
const base = `http://127.0.0.1:${values.port}`;

const proxy =
  values.database && values["database-delay-ms"]
    ? await delayProxy(values.database, Number(values["database-delay-ms"]))
    : undefined;
const { server, smsc, db, stop } = await startGatewayOnSmsc({
  port: values.port,
  database: proxy?.url ?? values.database,
  schemaPrefix: "bench_e2e",
  connections: Number(values.binds),
  window: Number(values.window),
  receiptDelayMs: values["receipt-delay-ms"],
});

const request = {
  url: `${base}/api/v2/sms/send`,
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${server.demoKey}` },
  body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: values.text }),
};
const probe = await fetch(request.url, request);
if (!probe.ok) throw new Error(`the send is refused: ${await probe.text()}`);
await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= 1, { timeoutMs: 15_000 });

const pids = { gateway: server.child.pid, smsc: smsc.child.pid, driver: process.pid };
const cpuBefore = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid)]));
const postgresBefore = postgresCpuSeconds();
const ownPostgres = await db.ownCpu();
/** The gateway's message counters (one /metrics read) and the SMSC's latest. */
const counters = async () => {
  const text = await scrapeMetrics(base);
  const sum = (name) =>
    text
      .split("\n")
      .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      .reduce((total, line) => total + Number(line.slice(line.lastIndexOf(" ") + 1)), 0);
  return {
    accepted: sum("switchboard_messages_accepted_total"),
    dispatched: sum("switchboard_messages_dispatched_total"),
    delivered: sum("switchboard_messages_delivered_total"),
    failed: sum("switchboard_messages_failed_total"),
    ...smsc.last(),
    at: Date.now(),
  };
};

// Every second: what happened in it, and the queue at its end.
const samples = [];
let previous = await counters();
const loadStarted = Date.now();
console.log("   t  accepted/s  smsc submits/s  delivered/s  not yet submitted  submitted, not delivered");
const sampler = setInterval(async () => {
  await ownPostgres.sample();
  const now = await counters();
  const t = ((now.at - loadStarted) / 1000).toFixed(0).padStart(4);
  const perSecond = (key) => Math.round(((now[key] - previous[key]) * 1000) / (now.at - previous.at));
  const waiting = now.accepted - now.dispatched;
  const inFlight = now.dispatched - now.delivered - now.failed;
  samples.push({ t: Number(t), waiting, inFlight });
  console.log(
    `${t}  ${String(perSecond("accepted")).padStart(10)}  ${String(perSecond("submits")).padStart(14)}  ${String(perSecond("delivered")).padStart(11)}  ${String(waiting).padStart(17)}  ${String(inFlight).padStart(24)}`,
  );
  previous = now;
}, 1000);

const result = await autocannon({
  ...request,
  connections: Number(values.connections),
  duration: seconds,
  ...(values.rate ? { overallRate: Number(values.rate) } : {}),
});
const loadEnded = Date.now();

// autocannon stops counting at the deadline with up to one request per connection in flight:
// settle on the server's own count (it includes the probe).
let accepted = -1;
for (let stable = 0; stable < 4; ) {
  await new Promise((r) => setTimeout(r, 250));
  const n = await metric(base, "switchboard_messages_accepted_total");
  stable = n === accepted ? stable + 1 : 0;
  accepted = n;
}
let lastDelivered = Date.now();
for (let seen = -1, quietSince = Date.now(); ; ) {
  const done =
    (await metric(base, "switchboard_messages_delivered_total")) +
    (await metric(base, "switchboard_messages_failed_total"));
  if (done > seen) [seen, quietSince, lastDelivered] = [done, Date.now(), Date.now()];
  if (done >= accepted) break;
  if (Date.now() - quietSince > 60_000) {
    console.error(`nothing delivered for 60 s: ${done} of ${accepted}`);
    break;
  }
  await new Promise((r) => setTimeout(r, 100));
}
clearInterval(sampler);
const cpu = Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuSeconds(pid) - cpuBefore[name]]));
const postgresCpu = postgresCpuSeconds() - postgresBefore;
const ownPostgresCpu = await ownPostgres.seconds();
// The SMSC prints its counters every second: wait for a line written after the last receipt.
const smscSeen = smsc.last().t;
await waitFor(() => smsc.last().t > smscSeen + 1, { timeoutMs: 5_000, intervalMs: 50 });
const final = await counters();
const balance = await (
  await fetch(`${base}/api/v2/balance`, { headers: { authorization: `Bearer ${server.demoKey}` } })
).json();
const audit = summarise(
  await db.query({
    byStatus: "select status, count(*) as n from messages group by status",
    parts: "select count(*) as n from message_parts",
    partsDelivered: "select count(*) as n from message_parts where status = 'delivered'",
  }),
);

const duringLoad = accepted - 1;
const drainSeconds = (lastDelivered - loadEnded) / 1000;
const endToEnd = (lastDelivered - loadStarted) / 1000;
console.log(
  `\naccepted ${result["2xx"]} answered in ${seconds} s (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts}); latency ms p50 ${result.latency.p50} p99 ${result.latency.p99} max ${result.latency.max}`,
);
console.log(`server accepted ${duringLoad} during the load: ${(duringLoad / seconds).toFixed(0)}/s durably accepted`);
console.log(
  `SMSC: ${final.submits} submit_sm (${((final.submits - 1) / seconds).toFixed(0)}/s over the load), ${final.receiptsAcked} receipts acknowledged, ${final.receiptsRefused} refused`,
);
console.log(
  `delivered ${final.delivered}, failed ${final.failed}: first accept to last delivered ${endToEnd.toFixed(1)} s = ${(final.delivered / endToEnd).toFixed(0)}/s; last delivered ${drainSeconds.toFixed(1)} s after the load stopped`,
);
const peak = (key) => Math.max(0, ...samples.filter((s) => s.t <= seconds).map((s) => s[key]));
const lastThird = samples.filter((s) => s.t > (seconds * 2) / 3 && s.t <= seconds);
console.log(
  `queue during the load: not yet submitted peak ${peak("waiting")}, last third ${lastThird.map((s) => s.waiting).join(" ")}; submitted, not delivered peak ${peak("inFlight")}`,
);
console.log(
  `CPU seconds over the run: gateway ${cpu.gateway.toFixed(1)}, SMSC ${cpu.smsc.toFixed(1)}, driver+autocannon ${cpu.driver.toFixed(1)}${values.database ? `, PostgreSQL server ${postgresCpu.toFixed(1)} (this run's backends and the server's own processes ${ownPostgresCpu.toFixed(1)})` : ""} (of ${(2 * ((lastDelivered - loadStarted) / 1000)).toFixed(1)} on 2 cores); gateway ${((cpu.gateway * 1e6) / final.delivered).toFixed(0)} µs per message`,
);
if (values.database) {
  console.log(
    `PostgreSQL CPU per message: ${((ownPostgresCpu * 1e6) / final.delivered).toFixed(0)} µs this run's (${((postgresCpu * 1e6) / final.delivered).toFixed(0)} µs every postgres process); load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")}`,
  );
}
const expectedBalance = 10_000 + 100_000_000 - accepted;
const checks = {
  "SMSC submits == accepted": final.submits === accepted,
  "every accepted message delivered": audit.delivered === accepted && final.delivered === accepted,
  "one part each, all delivered, no receipt twice": audit.parts === accepted && audit.partsDelivered === accepted,
  "receipts acknowledged == submits": final.receiptsAcked === final.submits,
  "ledger exact": balance.data.balance === expectedBalance,
};
console.log(
  `messages by status: ${JSON.stringify(audit.byStatus)}; balance ${balance.data.balance}, expected ${expectedBalance}`,
);
for (const [check, ok] of Object.entries(checks)) console.log(`${ok ? "ok  " : "FAIL"} ${check}`);
if (!Object.values(checks).every(Boolean)) await explainFailure();
console.log(
  `machine: ${machine()}; database: ${values.database ? `postgres${proxy ? ` (${values["database-delay-ms"]} ms each way)` : ""}` : "sqlite (WAL, synchronous=FULL)"}; ${values.binds} binds x window ${values.window}, receipts after ${values["receipt-delay-ms"]} ms, ${values.connections} HTTP connections`,
);

await stop();
await proxy?.close();
process.exit(Object.values(checks).every(Boolean) ? 0 : 1);

/**
 * What a failed run leaves to read: the messages not delivered with their parts (up to 50), and
 * what the gateway logged (warnings and errors, LOG_LEVEL=warn).
 */
async function explainFailure() {
  const { stuck } = await db.query({
    stuck: `select m.id, m.status, m.upstream_id, p.part_index, p.upstream_id as part_id, p.status as part_status
              from messages m left join message_parts p on p.message_id = m.id
             where m.status <> 'delivered' order by m.submitted_at, m.id, p.part_index limit 50`,
  });
  console.log("messages not delivered (message id, status, upstream id; part index, part id, part status):");
  for (const r of stuck) {
    console.log(`  ${r.id} ${r.status} ${r.upstream_id}; ${r.part_index} ${r.part_id} ${r.part_status}`);
  }
  const logged = server
    .output()
    .split("\n")
    .filter((line) => line.startsWith("{"));
  console.log(`the gateway logged ${logged.length} lines${logged.length > 200 ? " (the first 200)" : ""}:`);
  for (const line of logged.slice(0, 200)) console.log(`  ${line}`);
}

/** The messages by status, and the parts, of the database's rows. */
function summarise(rows) {
  return {
    byStatus: Object.fromEntries(rows.byStatus.map((r) => [r.status, Number(r.n)])),
    delivered: Number(rows.byStatus.find((r) => r.status === "delivered")?.n ?? 0),
    parts: Number(rows.parts[0].n),
    partsDelivered: Number(rows.partsDelivered[0].n),
  };
}
