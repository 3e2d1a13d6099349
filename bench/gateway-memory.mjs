// The gateway's memory (issue 43): `switchboard start` as the README runs it (SQLite,
// synchronous=FULL, the simulated carriers), on a fresh file. Prints the process's RSS (VmRSS of
// /proc, all threads), its threads and the parts of its memory (smaps_rollup: anonymous, file),
// idle --idle-seconds after start; then under `wrk -t2 -c50` legacy sends for --seconds (the
// peak, VmHWM); then idle again once the load's messages are delivered. The targets: ≤ 80 MB
// idle after start, ≤ 150 MB peak under load.
// --snapshot writes a heap snapshot of the main thread when idle (--heapsnapshot-signal, SIGUSR2)
// and lists what holds its heap: the largest constructors by retained-free self size.
// The CPU per message (utime + stime of the process, all threads, from the load's start until its
// messages are delivered) is printed beside, to weigh a memory setting against its cost, and the
// bytes read per message (rchar: the requests, and the SQLite pages its page caches did not hold).
// BENCH_SWITCHBOARD_ENV (URL-encoded) adds settings, e.g. SWITCHBOARD_THREADS=1; BENCH_SERVER_NODE_ARGS
// adds node flags (bench/lib.mjs).
// Usage: npm run build && node bench/gateway-memory.mjs [--idle-seconds 5] [--seconds 10] [--snapshot]
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchEnvOverrides, cli, cpuSeconds, freshSqliteUrl, machine, metric, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "idle-seconds": { type: "string", default: "5" },
    seconds: { type: "string", default: "10" },
    connections: { type: "string", default: "50" },
    snapshot: { type: "boolean", default: false },
  },
});
const db = freshSqliteUrl();
const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-heap-"));
if (values.snapshot) {
  process.env.BENCH_SERVER_NODE_ARGS =
    `${process.env.BENCH_SERVER_NODE_ARGS ?? ""} --heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${snapshotDir}`.trim();
}
const port = String(19_000 + Math.floor(Math.random() * 1_000));
const env = {
  PORT: port,
  DATABASE_URL: db.url,
  LOG_LEVEL: "warn",
  LEGACY_THROTTLE_PER_SECOND: "0",
  SIMULATOR_FAILURE_RATE: "0",
  ...benchEnvOverrides(),
};
const base = `http://127.0.0.1:${port}`;
const server = await startServer("start", env);
const pid = server.child.pid;
cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
const password = /Demo account[\s\S]*?password:\s+(\S+)/.exec(server.output())?.[1];

console.log(`machine: ${machine()}; settings: ${process.env.BENCH_SWITCHBOARD_ENV ?? "defaults"}`);
await sleep(Number(values["idle-seconds"]) * 1000);
report("idle after start");
if (values.snapshot) await snapshot();

const url = `${base}/httpapi/send?${new URLSearchParams({ username: "demo", password, sender_id: "SWBRD", route: "T", phonenumber: "9876543210", message: "Your OTP is 482913. Do not share it with anyone." })}`;
const cpuBefore = cpuSeconds(pid);
const readBefore = bytesRead();
const acceptedBefore = await metric(base, "switchboard_messages_accepted_total");
const wrk = spawn("wrk", [`-t2`, `-c${values.connections}`, `-d${values.seconds}s`, url], { stdio: "ignore" });
let peakSampled = 0;
const sampler = setInterval(() => {
  peakSampled = Math.max(peakSampled, status().VmRSS ?? 0);
}, 200);
await new Promise((resolve) => wrk.once("exit", resolve));
clearInterval(sampler);
const accepted = await metric(base, "switchboard_messages_accepted_total");
report(
  `under load (${accepted - acceptedBefore} accepted in ${values.seconds} s; sampled VmRSS peak ${mb(peakSampled)} MB)`,
);
await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= accepted, {
  timeoutMs: 120_000,
});
// The CPU of the load's messages, from its start until they are delivered (the gateway's threads).
console.log(
  `CPU ${(((cpuSeconds(pid) - cpuBefore) * 1e6) / (accepted - acceptedBefore)).toFixed(0)} µs per message accepted; read ${((bytesRead() - readBefore) / (accepted - acceptedBefore)).toFixed(0)} bytes per message`,
);
await sleep(Number(values["idle-seconds"]) * 1000);
report("idle after the load's messages are delivered");

server.child.kill("SIGTERM");
await new Promise((resolve) => server.child.once("exit", resolve));
db.cleanup();
fs.rmSync(snapshotDir, { recursive: true, force: true });
process.exit(0);

function status() {
  const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { VmRSS: kb("VmRSS"), VmHWM: kb("VmHWM"), Threads: kb("Threads") };
}

/** Bytes the process read by system calls (rchar): sockets, and SQLite's pages its caches did not hold. */
function bytesRead() {
  return Number(/^rchar:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/io`, "utf8"))?.[1] ?? 0);
}

function report(label) {
  const s = status();
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, "m").exec(rollup)?.[1] ?? 0);
  console.log(
    `${label}: VmRSS ${mb(s.VmRSS)} MB, peak (VmHWM) ${mb(s.VmHWM)} MB, ${s.Threads} threads; anonymous ${mb(kb("Anonymous"))} MB, files ${mb(kb("Rss") - kb("Anonymous"))} MB`,
  );
}

/** A heap snapshot of the main thread, and its largest holders by self size. */
async function snapshot() {
  process.kill(pid, "SIGUSR2");
  const file = await waitFor(
    () => {
      const name = fs.readdirSync(snapshotDir).find((f) => f.endsWith(".heapsnapshot"));
      if (!name) return undefined;
      const full = path.join(snapshotDir, name);
      // Written in one go; complete once it parses.
      try {
        return JSON.parse(fs.readFileSync(full, "utf8")) && full;
      } catch {
        return undefined;
      }
    },
    { timeoutMs: 60_000, intervalMs: 500 },
  );
  const heap = JSON.parse(fs.readFileSync(file, "utf8"));
  const fields = heap.snapshot.meta.node_fields;
  const types = heap.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f));
  const bySize = new Map();
  let total = 0;
  for (let i = 0; i < heap.nodes.length; i += fields.length) {
    const type = types[heap.nodes[i + typeAt]];
    const name = type === "object" || type === "native" ? heap.strings[heap.nodes[i + nameAt]] : `(${type})`;
    const size = heap.nodes[i + sizeAt];
    total += size;
    const entry = bySize.get(name) ?? { size: 0, count: 0 };
    entry.size += size;
    entry.count++;
    bySize.set(name, entry);
  }
  console.log(`main thread heap snapshot: ${mb(total / 1024)} MB of objects; the largest by self size:`);
  for (const [name, { size, count }] of [...bySize].sort((a, b) => b[1].size - a[1].size).slice(0, 15)) {
    console.log(`  ${mb(size / 1024).padStart(6)} MB  ${String(count).padStart(8)}  ${name.slice(0, 80)}`);
  }
}

function mb(kb) {
  return (kb / 1024).toFixed(1);
}

function sleep(ms) {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
