// The memory of an export (issue 38): a `switchboard api` process on a SQLite file holding
// --rows messages of one account (default 1,000,000), and GET /api/v2/messages/export of all of
// them (CSV, then JSON Lines) read by a client that takes the body as it comes and counts it.
// Prints the server's RSS (VmRSS of /proc, all threads) when idle after start, its peak while
// each export runs (sampled every 50 ms), the rows and bytes read and the rate. The target:
// peak within 50 MB of idle.
// Usage: npm run build && node bench/export-memory.mjs [--rows 1000000]
// (EXPORT_ORDER=jsonl,csv changes the formats and their order.)
import fs from "node:fs";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { cli, freshSqliteUrl, machine, metric, startServer } from "./lib.mjs";

const { values } = parseArgs({ options: { rows: { type: "string", default: "1000000" } } });
const rows = Number(values.rows);
const { url: databaseUrl, cleanup } = freshSqliteUrl();
const file = databaseUrl.slice("sqlite:".length);
const port = String(19_000 + Math.floor(Math.random() * 1_000));
const env = {
  PORT: port,
  HOST: "127.0.0.1",
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: "warn",
  SQLITE_SYNCHRONOUS: "NORMAL",
};

// The account and its key through the CLI (it migrates the file); the messages written directly.
const created = JSON.parse(
  cli(env, "accounts", "create", "--username", "exporter", "--password", "exporter-pass", "--json"),
);
const raw = new BetterSqlite3(file);
const accountId = raw.prepare("select id from accounts where username = 'exporter'").get().id;
const insert = raw.prepare(
  `insert into messages (id, account_id, channel, broadcast_id, recipient, sender, body, encoding, segments, flash,
     route, lane, wallet, credits, status, due_at, attempts, created_at, submitted_at, done_at, connector, upstream_id)
   values (?, ?, 'sms', ?, ?, 'SWBRD', ?, 'gsm7', 1, 0, 'transactional', 0, 'sms', 1000, 'delivered', ?, 1, ?, ?, ?, 'simulator', ?)`,
);
const start = Date.parse("2026-11-01T00:00:00Z");
const fill = raw.transaction((from, to) => {
  for (let i = from; i < to; i++) {
    const at = start + i * 100;
    const id = `q0${i.toString(32).toUpperCase().padStart(25, "0")}`;
    insert.run(
      id,
      accountId,
      `${accountId}_20261101_${String(i % 1_000_000).padStart(6, "0")}`,
      `98${String(i % 100_000_000).padStart(8, "0")}`,
      `Your OTP is ${String(i % 1_000_000).padStart(6, "0")}. Do not share it with anyone.`,
      at,
      at,
      at + 1_000,
      at + 5_000,
      `SIM${i}`,
    );
  }
});
const filled = Date.now();
for (let i = 0; i < rows; i += 50_000) fill(i, Math.min(rows, i + 50_000));
raw.close();
console.log(`filled ${rows} messages in ${((Date.now() - filled) / 1000).toFixed(1)} s`);

const server = await startServer("api", env);
const rss = () => {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
};
// Idle: after start, one request answered, a second for the allocator to settle.
await fetch(`http://127.0.0.1:${port}/healthz`);
await new Promise((resolve) => setTimeout(resolve, 1_000));
const idle = rss();
const idleHeap = await metric(`http://127.0.0.1:${port}`, "switchboard_nodejs_heap_size_total_bytes");
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
console.log(`${machine()}\nidle RSS ${mb(idle)}`);

let worst = 0;
for (const format of (process.env.EXPORT_ORDER ?? "csv,jsonl").split(",")) {
  let peak = idle;
  let heapPeak = 0;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rss());
    metric(`http://127.0.0.1:${port}`, "switchboard_nodejs_heap_size_total_bytes")
      .then((heap) => {
        heapPeak = Math.max(heapPeak, heap);
      })
      .catch(() => undefined);
  }, 50);
  const began = Date.now();
  const answer = await fetch(`http://127.0.0.1:${port}/api/v2/messages/export?format=${format}`, {
    headers: { authorization: `Bearer ${created.api_key}` },
  });
  let bytes = 0;
  let lines = 0;
  for await (const chunk of answer.body) {
    bytes += chunk.length;
    for (const byte of chunk) if (byte === 10) lines++;
  }
  clearInterval(sampler);
  peak = Math.max(peak, rss());
  const seconds = (Date.now() - began) / 1000;
  const exported = format === "csv" ? lines - 1 : lines;
  worst = Math.max(worst, peak - idle);
  console.log(
    `${format}: ${exported} rows, ${mb(bytes)} in ${seconds.toFixed(1)} s (${Math.round(exported / seconds)} rows/s); ` +
      `peak RSS ${mb(peak)}, ${mb(peak - idle)} above idle; peak JS heap ${heapPeak > 0 ? mb(heapPeak) : "not read"} (${mb(idleHeap)} idle)`,
  );
  if (exported !== rows) throw new Error(`exported ${exported} of ${rows} rows`);
}
console.log(`worst: ${mb(worst)} above idle (target: within 50 MB)`);
server.child.kill("SIGTERM");
cleanup();
