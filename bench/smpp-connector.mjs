// The SMPP connector alone: SmppConnector.submit() with batches of 500 claimed-message rows, one
// batch after another as the dispatcher calls it, against bench/smsc.mjs in its own process,
// with a real store (message_parts) and the receipts coming back into a counting report sink.
// Prints messages/s submitted and reported, and the CPU this process spent per message (the
// connector, the smpp client and the store: what the gateway would spend on this path).
// Checks: every submitted message reported once, delivered, every part stored and final.
// Usage: npm run build && node bench/smpp-connector.mjs [--messages 100000] [--batch 500]
//        [--connections 4] [--window 50] [--receipt-delay-ms 100] [--database postgres://…]
//        [--text "…"] [--decimal-receipt-ids]
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { cpuSeconds, machine, postgresCpuSeconds, startSmsc, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "100000" },
    batch: { type: "string", default: "500" },
    connections: { type: "string", default: "4" },
    window: { type: "string", default: "50" },
    "receipt-delay-ms": { type: "string", default: "100" },
    database: { type: "string" },
    text: { type: "string", default: "Your OTP is 482913. Do not share it with anyone." },
    "decimal-receipt-ids": { type: "boolean", default: false },
  },
});
const total = Number(values.messages);
const batchSize = Number(values.batch);
const dist = new URL("../dist/", import.meta.url).pathname;
const { openStore } = await import(`${dist}store/store.js`);
const { SmppConnector } = await import(`${dist}carriers/smpp/index.js`);
const { createLogger } = await import(`${dist}app/gateway.js`);

const smsc = await startSmsc([
  "--receipt-delay-ms",
  values["receipt-delay-ms"],
  ...(values["decimal-receipt-ids"] ? ["--decimal-receipt-ids"] : []),
]);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-smpp-"));
const schema = `bench_smpp_${randomBytes(4).toString("hex")}`;
if (values.database) await adminQuery(`create schema ${schema}`);
const store = values.database
  ? await openStore({ engine: "postgres", url: values.database }, { pgSchema: schema })
  : await openStore({ engine: "sqlite", file: path.join(dir, "bench.db") }, { sqliteSynchronous: "FULL" });
await store.migrate();

const reports = new Map();
let duplicates = 0;
let firstSubmitAt = 0;
let lastReportAt = 0;
const connector = new SmppConnector({
  name: "bench-smsc",
  store,
  logger: createLogger({ logLevel: "warn" }),
  connections: Number(values.connections),
  session: {
    host: "127.0.0.1",
    port: smsc.port,
    systemId: "bench",
    password: "bench",
    window: Number(values.window),
  },
});
connector.onReports((batch) => {
  for (const report of batch) {
    if (reports.has(report.upstreamId)) duplicates++;
    reports.set(report.upstreamId, report.status);
  }
  lastReportAt = performance.now();
});
await connector.start();
await connector.waitBound(10_000);

const run = randomBytes(3).toString("hex");
const row = (n) => ({
  id: `bench${run}${String(n).padStart(10, "0")}`,
  account_id: 1,
  channel: "sms",
  broadcast_id: `1_20261122_${n}`,
  recipient: `98${String(n % 100_000_000).padStart(8, "0")}`,
  sender: "SWBRD",
  body: values.text,
  encoding: "gsm7",
  segments: 1,
  flash: 0,
  route: "T",
  lane: 0,
  wallet: "sms",
  credits: 1000,
  status: "queued",
  due_at: 0,
  lease_until: Date.now() + 15_000,
  attempts: 1,
  connector: null,
  upstream_id: null,
  error_code: null,
  error_message: null,
  dlt_entity_id: "1101234567890123456",
  dlt_template_id: "1107161234567890123",
  meta: null,
  template_id: null,
  job_id: null,
  created_at: Date.now(),
  submitted_at: null,
  done_at: null,
  delivered_at: null,
  read_at: null,
});

const cpuBefore = process.cpuUsage();
const smscCpuBefore = cpuSeconds(smsc.child.pid);
const postgresCpuBefore = postgresCpuSeconds();
const started = performance.now();
firstSubmitAt = started;
let submitted = 0;
let refused = 0;
const batchMs = [];
for (let n = 0; n < total; n += batchSize) {
  const batch = Array.from({ length: Math.min(batchSize, total - n) }, (_, i) => row(n + i));
  const at = performance.now();
  const results = await connector.submit(batch);
  batchMs.push(performance.now() - at);
  for (const result of results) {
    if (result.ok) submitted++;
    else refused++;
  }
}
const submitSeconds = (performance.now() - started) / 1000;
// Waits for the last report; gives up only when none came for 30 s.
for (let seen = reports.size, quietSince = Date.now(); reports.size < submitted; ) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  if (reports.size > seen) [seen, quietSince] = [reports.size, Date.now()];
  if (Date.now() - quietSince > 30_000) {
    console.error(`no report for 30 s: ${reports.size} of ${submitted}; SMSC ${JSON.stringify(smsc.last())}`);
    process.exit(1);
  }
}
const cpu = process.cpuUsage(cpuBefore);
const smscCpu = cpuSeconds(smsc.child.pid) - smscCpuBefore;
const postgresCpu = postgresCpuSeconds() - postgresCpuBefore;
const endToEnd = (lastReportAt - firstSubmitAt) / 1000;
const cpuMs = (cpu.user + cpu.system) / 1000;

// The SMSC prints its counters every second: wait for a line written after the last report.
const seen = smsc.last().t;
await waitFor(() => smsc.last().t > seen + 1, { timeoutMs: 5_000, intervalMs: 50 });
batchMs.sort((a, b) => a - b);
const parts = await store.db
  .selectFrom("message_parts")
  .select((eb) => ["status", eb.fn.countAll().as("n")])
  .groupBy("status")
  .execute();
const delivered = [...reports.values()].filter((status) => status === "delivered").length;
console.log(
  `submitted ${submitted} (refused ${refused}) in ${submitSeconds.toFixed(2)} s = ${(submitted / submitSeconds).toFixed(0)}/s; batch of ${batchSize}: p50 ${batchMs[batchMs.length >> 1]?.toFixed(0)} ms, max ${batchMs.at(-1)?.toFixed(0)} ms`,
);
console.log(
  `reported ${reports.size} (${delivered} delivered, ${duplicates} duplicates), first submit to last report ${endToEnd.toFixed(2)} s = ${(reports.size / endToEnd).toFixed(0)}/s`,
);
console.log(
  `CPU of this process ${cpuMs.toFixed(0)} ms = ${((cpuMs * 1000) / submitted).toFixed(1)} µs per message (user ${(cpu.user / 1000).toFixed(0)} ms, system ${(cpu.system / 1000).toFixed(0)} ms); SMSC process ${(smscCpu * 1000).toFixed(0)} ms${values.database ? `; PostgreSQL server ${(postgresCpu * 1000).toFixed(0)} ms = ${((postgresCpu * 1e6) / submitted).toFixed(1)} µs per message` : ""}`,
);
console.log(`message_parts: ${parts.map((p) => `${p.status} ${p.n}`).join(", ")}`);
const exact =
  duplicates === 0 &&
  delivered === submitted &&
  refused === 0 &&
  smsc.last().submits === submitted &&
  parts.every((p) => p.status === "delivered") &&
  parts.reduce((sum, p) => sum + Number(p.n), 0) === submitted;
console.log(`SMSC: ${JSON.stringify(smsc.last())}`);
console.log(`exact: ${exact ? "yes" : "NO"}`);
console.log(
  `machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}; connections ${values.connections}, window ${values.window}`,
);

await connector.stop();
await store.close();
if (values.database) await adminQuery(`drop schema ${schema} cascade`);
fs.rmSync(dir, { recursive: true, force: true });
smsc.child.kill("SIGTERM");
process.exit(exact ? 0 : 1);

async function adminQuery(text) {
  const client = new pg.Client({ connectionString: values.database });
  await client.connect();
  await client.query(text);
  await client.end();
}
