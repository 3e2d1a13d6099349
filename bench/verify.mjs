// The Verify API against a real gateway process (simulated carrier, its capture file standing for
// the phone that reads the code):
//   1. throughput: --flows start → check flows, --concurrency at a time, each reading its code
//      from the capture file and checking it; flows/s and the flow's latency (start sent → approved).
//   2. the pumping guards' cost per start: alternated rounds (A, B, A, B…) of --starts starts on
//      one database whose prefix holds --history verifications of the last hour (70 % approved,
//      the rest expired), A with every guard effective (per recipient, per client_ip, the prefix's
//      conversion over that hour) and B with guards that cannot trigger (their settings 0). Each
//      round restarts the gateway with its settings; the cost is the server's CPU per start (the
//      gateway process, and with --database its PostgreSQL backends) once every start's SMS is
//      dispatched and reported, and the start request's median latency.
// Usage: node bench/verify.mjs [--flows 2000] [--concurrency 50] [--rounds 5] [--starts 1000]
//        [--history 5000] [--database postgres://…] [--port 18091]
// (each round restarts the gateway: on a loaded machine set BENCH_START_TIMEOUT_MS=120000)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { cpuSeconds, freshDatabase, machine, median, metric, range, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    flows: { type: "string", default: "2000" },
    concurrency: { type: "string", default: "50" },
    rounds: { type: "string", default: "5" },
    starts: { type: "string", default: "1000" },
    history: { type: "string", default: "5000" },
    database: { type: "string" },
    port: { type: "string", default: "18091" },
  },
});
const PREFIX_NUMBERS = "9876"; // 91 9876: the prefix every number here shares
const HOUR_MS = 3_600_000;
const ADDRESSES = 200;
const base = `http://127.0.0.1:${values.port}`;
const db = await freshDatabase(values.database, "bench_verify");
const captureFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-bench-verify-")), "capture.jsonl");
const commonEnv = {
  SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: "warn",
  SIMULATOR_LATENCY_MS: "50",
  SIMULATOR_FAILURE_RATE: "0",
  SIMULATOR_CAPTURE_FILE: captureFile,
};
const GUARDED = {
  VERIFY_STARTS_PER_RECIPIENT_PER_HOUR: "5",
  VERIFY_STARTS_PER_ADDRESS_PER_HOUR: "100000",
  VERIFY_PUMPING_MIN_SAMPLES: "50",
  VERIFY_PUMPING_MIN_CONVERSION: "0.2",
};
const UNGUARDED = {
  VERIFY_STARTS_PER_RECIPIENT_PER_HOUR: "0",
  VERIFY_STARTS_PER_ADDRESS_PER_HOUR: "0",
  VERIFY_PUMPING_MIN_CONVERSION: "0",
};

let serial = 0;
/**
 * A number of the bench's prefix no start used before (so the per-recipient limit never refuses),
 * ending in 7: the simulator fails numbers of some endings (0001, 0002).
 */
const freshNumber = () => `${PREFIX_NUMBERS}${String(serial++).padStart(5, "0")}7`;
const addressOf = (n) => `10.0.${Math.floor(n / 250) % 250}.${(n % 250) + 1}`;

// The first start prints the credentials; later ones (other settings, same database) do not.
let server = await startServer("start", { ...commonEnv, ...GUARDED });
const banner = server.output();
const demoKey = server.demoKey;
const operatorKey = /Operator[\s\S]*?api key:\s+(\S+)/.exec(banner)?.[1];
const templateId = /template:.*DLT template (\S+)\)/.exec(banner)?.[1];
const senderId = /sender id: (\S+)/.exec(banner)?.[1];
const demo = { authorization: `Bearer ${demoKey}`, "content-type": "application/json" };

async function post(url, headers, body, method = "POST") {
  const response = await fetch(`${base}${url}`, { method, headers, body: JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text);
}
await post(
  "/admin/api/accounts/demo/verify",
  { authorization: `Bearer ${operatorKey}`, "content-type": "application/json" },
  { verify_sender_id: senderId, verify_template_id: templateId, verify_channels: ["sms"] },
  "PUT",
);
await post(
  "/admin/api/accounts/demo/credits",
  { authorization: `Bearer ${operatorKey}`, "content-type": "application/json" },
  { wallet: "sms", amount: 1_000_000 },
);

/** The capture file followed: each code the simulator was handed, by recipient's last 10 digits. */
const codes = new Map();
const waiting = new Map();
let offset = 0;
let rest = "";
const follow = setInterval(() => {
  if (!fs.existsSync(captureFile)) return;
  const size = fs.statSync(captureFile).size;
  if (size <= offset) return;
  const fd = fs.openSync(captureFile, "r");
  const chunk = Buffer.alloc(size - offset);
  fs.readSync(fd, chunk, 0, chunk.length, offset);
  fs.closeSync(fd);
  offset = size;
  const lines = (rest + chunk.toString("utf8")).split("\n");
  rest = lines.pop() ?? "";
  for (const line of lines) {
    const { recipient, body } = JSON.parse(line);
    const key = String(recipient).slice(-10);
    const code = /\d{4,10}/.exec(body)?.[0];
    const resolve = waiting.get(key);
    if (resolve) {
      waiting.delete(key);
      resolve(code);
    } else codes.set(key, code);
  }
}, 5);
const codeFor = (recipient) =>
  codes.has(recipient)
    ? Promise.resolve(codes.get(recipient))
    : new Promise((resolve) => waiting.set(recipient, resolve));

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Runs `count` tasks, `concurrency` at a time; answers each one's milliseconds. */
async function pool(count, concurrency, task) {
  const times = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const n = next++;
      const began = performance.now();
      await task(n);
      times.push(performance.now() - began);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return times.sort((a, b) => a - b);
}

// 1. Throughput of start → check.
const flows = Number(values.flows);
const flowsBegan = performance.now();
const flowTimes = await pool(flows, Number(values.concurrency), async (n) => {
  const recipient = freshNumber();
  const started = await post("/api/v2/verify", demo, { recipient, client_ip: addressOf(n) });
  const code = await codeFor(recipient);
  const checked = await post(`/api/v2/verify/${started.data.verification_id}/check`, demo, { code });
  if (checked.data.status !== "approved") throw new Error(`flow ${n}: ${JSON.stringify(checked)}`);
});
const flowSeconds = (performance.now() - flowsBegan) / 1000;
console.log(
  `start → check: ${flows} flows approved in ${flowSeconds.toFixed(1)} s = ${(flows / flowSeconds).toFixed(0)} flows/s at concurrency ${values.concurrency}; flow latency ms p50 ${percentile(flowTimes, 50).toFixed(1)} p99 ${percentile(flowTimes, 99).toFixed(1)}`,
);

// 2. The guards' cost: a realistic hour behind the prefix, then alternated rounds.
const history = Number(values.history);
const demoId = Number((await db.query({ demo: "select id from accounts where username = 'demo'" })).demo[0].id);
await insertHistory(demoId, history);
const starts = Number(values.starts);
const results = { A: [], B: [] };
for (let round = 0; round < Number(values.rounds); round++) {
  for (const variant of ["A", "B"]) {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.on("exit", resolve));
    server = await startServer("start", {
      ...commonEnv,
      EXPECT_BANNER: "0",
      ...(variant === "A" ? GUARDED : UNGUARDED),
    });
    results[variant].push(await measureStarts());
    const r = results[variant].at(-1);
    console.log(
      `round ${round + 1} ${variant === "A" ? "guards effective" : "guards off     "}: ${r.cpuUs.toFixed(0)} µs CPU per start, start p50 ${r.p50.toFixed(2)} ms p99 ${r.p99.toFixed(2)} ms`,
    );
  }
}
const summary = (variant, key) => {
  const xs = results[variant].map((r) => r[key]);
  return { median: median(xs), min: Math.min(...xs), max: Math.max(...xs) };
};
const ratios = results.A.map((a, i) => a.cpuUs / results.B[i].cpuUs);
const deltas = results.A.map((a, i) => a.cpuUs - results.B[i].cpuUs);
const latencyDeltas = results.A.map((a, i) => (a.p50 - results.B[i].p50) * 1000);
for (const [label, variant] of [
  ["guards effective", "A"],
  ["guards off", "B"],
]) {
  const cpu = summary(variant, "cpuUs");
  const p50 = summary(variant, "p50");
  console.log(
    `${label}: CPU per start median ${cpu.median.toFixed(0)} µs (${cpu.min.toFixed(0)}–${cpu.max.toFixed(0)}); start p50 median ${p50.median.toFixed(2)} ms (${p50.min.toFixed(2)}–${p50.max.toFixed(2)})`,
  );
}
console.log(
  `guards' cost per start: CPU +${median(deltas).toFixed(0)} µs (pairs ${range(deltas, 0)}), ratio ${median(ratios).toFixed(3)} (${range(ratios)}); start p50 +${median(latencyDeltas).toFixed(0)} µs (${range(latencyDeltas, 0)})`,
);
console.log(
  `history: ${history} verifications to 919876 in the last hour; ${starts} starts a round at concurrency 8; machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL, synchronous=FULL)"}`,
);

clearInterval(follow);
server.child.kill("SIGTERM");
await new Promise((resolve) => server.child.on("exit", resolve));
await db.cleanup();
fs.rmSync(path.dirname(captureFile), { recursive: true, force: true });

/** One round: --starts starts (never checked), then CPU once each one's SMS was reported. */
async function measureStarts() {
  const warmup = 100;
  await pool(warmup, 8, (n) => post("/api/v2/verify", demo, { recipient: freshNumber(), client_ip: addressOf(n) }));
  await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= warmup, {
    intervalMs: 50,
  });
  const own = await db.ownCpu();
  const sampling = setInterval(() => void own.sample(), 1000);
  const cpuBefore = cpuSeconds(server.child.pid);
  const times = await pool(starts, 8, (n) =>
    post("/api/v2/verify", demo, { recipient: freshNumber(), client_ip: addressOf(n) }),
  );
  await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= warmup + starts, {
    intervalMs: 50,
  });
  clearInterval(sampling);
  const cpu = cpuSeconds(server.child.pid) - cpuBefore + (await own.seconds());
  return { cpuUs: (cpu / starts) * 1e6, p50: percentile(times, 50), p99: percentile(times, 99) };
}

/** `count` verifications of the last hour to the prefix, 70 % approved and the rest expired unchecked. */
async function insertHistory(accountId, count) {
  const now = Date.now();
  const rows = Array.from({ length: count }, (_, i) => {
    const created = now - Math.floor(((i + 1) / (count + 1)) * (HOUR_MS - 120_000));
    const approved = i % 10 < 7;
    return [
      `vbench${String(i).padStart(20, "0")}`,
      accountId,
      `98764${String(i).padStart(5, "0")}`,
      "sms",
      "sms",
      approved ? "approved" : "expired",
      "0".repeat(64),
      6,
      0,
      created,
      created + 600_000,
      created,
      approved ? created + 20_000 : created + 600_000,
      "IN",
      "919876",
      addressOf(i % ADDRESSES),
    ];
  });
  const columns =
    "id, account_id, recipient, channel, channels, status, code_hash, code_length, attempts, created_at, expires_at, last_sent_at, done_at, country, prefix, client_ip";
  if (!values.database) {
    const raw = new BetterSqlite3(db.url.slice("sqlite:".length));
    const insert = raw.prepare(
      `insert into verifications (${columns}) values (${columns
        .split(",")
        .map(() => "?")
        .join(", ")})`,
    );
    raw.transaction(() => {
      for (const row of rows) insert.run(...row);
    })();
    raw.close();
    return;
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    const params = chunk.flat();
    const tuples = chunk.map((row, r) => `(${row.map((_, c) => `$${r * row.length + c + 1}`).join(", ")})`);
    await client.query(`insert into verifications (${columns}) values ${tuples.join(", ")}`, params);
  }
  await client.query("analyze verifications");
  await client.end();
}
