// Delivery analytics over 10 million messages (issue 38): the p95 latency of
// GET /admin/api/analytics/delivery for each group_by over 30 days, from a `switchboard api`
// process on a SQLite file. Target: p95 < 100 ms on 2 cores.
//
// The load: --messages messages (default 10,000,000) accepted over the 30 days before
// 2026-11-28T07:10Z, made up realistically by a seeded generator: a day curve peaking at Indian
// office hours; 20 accounts of Zipf-like sizes; routes T 55 %, P 33 %, PS 5 %, I 4 %, WhatsApp
// and email 1.5 % each; 4 SMS connectors; Indian numbers over the 40 prefixes 9160–9199 (weighted)
// and a few international ones; 90 % delivered, 8 % failed with six error codes, pending ones in
// the last hours; latency log-normal around 3 s. The rollups of these messages are computed by
// the generator, exactly as migration 0035's rule counts them, and written straight into
// delivery_rollups (the route never reads the messages table). To show the two agree,
// `--verify N` (default 100,000) first writes N of the same messages as message rows, each moved
// as a real one is (inserted queued, submitted to its connector, then delivered or failed),
// counts them with the migration's statement (countStoredMessages, the rule the writers of
// messages keep in domain/messages/rollups.ts), and compares those rollups with the generator's,
// row for row.
//
// Usage: npm run build && node bench/analytics-delivery.mjs [--messages 10000000] [--verify 100000] [--requests 40]
import os from "node:os";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { LATENCY_BOUNDS_MS } from "../dist/base/store/latency-buckets.js";
import { countStoredMessages } from "../dist/base/store/migrations/0035_delivery_rollups.js";
import { cli, cpuSeconds, freshSqliteUrl, machine, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "10000000" },
    verify: { type: "string", default: "100000" },
    requests: { type: "string", default: "40" },
  },
});
const MESSAGES = Number(values.messages);
const VERIFY = Number(values.verify);
const REQUESTS = Number(values.requests);
const END = Date.parse("2026-11-28T07:10:00Z");
const DAY = 86_400_000;
const Q = 900_000;
const START = END - 30 * DAY;
const ACCOUNTS = 20;
const H = LATENCY_BOUNDS_MS.length + 1;
const COLUMNS = [
  "sent",
  "delivered",
  "failed",
  "pending",
  ...Array.from({ length: H }, (_, k) => `h${String(k).padStart(2, "0")}`),
];

// ---- The generator ------------------------------------------------------------------------------
let seed = 12345;
const random = () => {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const picker = (weights) => {
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative = [];
  let sum = 0;
  for (const w of weights) {
    sum += w / total;
    cumulative.push(sum);
  }
  return () => {
    const r = random();
    let i = 0;
    while (i < cumulative.length - 1 && cumulative[i] < r) i++;
    return i;
  };
};
const ROUTES = ["transactional", "promotional", "promotional_sender", "international", "whatsapp", "email"];
const ROUTE_CODES = ["T", "P", "PS", "I", "whatsapp", "email"];
const pickRoute = picker([55, 33, 5, 4, 1.5, 1.5]);
const pickAccount = picker(Array.from({ length: ACCOUNTS }, (_, i) => 1 / (i + 1) ** 1.1));
const CONNECTORS = ["smsc-airtel", "smsc-jio", "smsc-vi", "http-bulk"];
const pickConnector = picker([40, 35, 15, 10]);
// 9160..9199, the 98s and 99s busiest.
const INDIAN = Array.from({ length: 40 }, (_, i) => String(60 + i));
const pickIndian = picker(INDIAN.map((d) => (d >= "90" ? 3 : d >= "70" ? 2 : 1)));
const FOREIGN = ["4477", "1212", "9715", "6591", "4479", "1415"];
const pickForeign = picker([3, 2, 2, 1, 1, 1]);
const ERRORS = ["UNDELIV", "expired", "rejected", "dlt_template_mismatch", "ABSENT", "DND"];
const pickError = picker([45, 20, 10, 10, 10, 5]);
// The share of a day's messages in each UTC hour: IST office hours (03:30–13:30 UTC) busiest.
const pickHour = picker(Array.from({ length: 24 }, (_, h) => (h >= 3 && h < 14 ? 8 : h >= 14 && h < 17 ? 3 : 1)));
const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
const latencyBucket = (ms) => {
  let k = 0;
  while (k < LATENCY_BOUNDS_MS.length && ms >= LATENCY_BOUNDS_MS[k]) k++;
  return k;
};

/** One message: when accepted, whose, its route, connector, prefix, and what became of it. */
function message(i) {
  const day = Math.floor((i / MESSAGES) * 30);
  const at = Math.min(END - 1, START + day * DAY + pickHour() * 3_600_000 + Math.floor(random() * 3_600_000));
  const route = pickRoute();
  const channel = route === 4 ? "whatsapp" : route === 5 ? "email" : "sms";
  const account = 1 + pickAccount();
  let recipient;
  if (channel === "email") recipient = `user${i}@example.com`;
  else if (route === 3) recipient = `${FOREIGN[pickForeign()]}${String(i % 1e8).padStart(8, "0")}`;
  else recipient = `${INDIAN[pickIndian()]}${String(i % 1e8).padStart(8, "0")}`;
  const recent = END - at < 3 * 3_600_000;
  const r = random();
  let status = "delivered";
  if (recent && r < 0.3) status = r < 0.1 ? "queued" : "submitted";
  else if (r > 0.92) status = "failed";
  const connector =
    status === "queued"
      ? null
      : channel === "sms"
        ? CONNECTORS[pickConnector()]
        : channel === "email"
          ? "email"
          : "whatsapp";
  const error = status === "failed" ? ERRORS[pickError()] : null;
  const latency = Math.max(50, Math.round(3_000 * Math.exp(gauss())));
  return { at, account, route, channel, recipient, connector, status, error, latency };
}

/** The five keys of a message's rollup rows (as the writers of messages count them), and its counts' columns. */
function keysOf(m) {
  const prefix =
    m.channel === "email" ? "" : m.route !== 3 && /^[6-9]\d{9}$/.test(m.recipient) ? `91${m.recipient}` : m.recipient;
  return [
    ["", ""],
    ["connector", m.connector ?? ""],
    ["route", ROUTE_CODES[m.route]],
    ["prefix", prefix.slice(0, 4)],
    ["error_code", m.status === "failed" ? m.error : ""],
  ];
}
function addTo(map, key, m) {
  let sums = map.get(key);
  if (!sums) {
    sums = new Float64Array(COLUMNS.length);
    map.set(key, sums);
  }
  sums[0] += 1;
  if (m.status === "delivered") {
    sums[1] += 1;
    sums[4 + latencyBucket(m.latency)] += 1;
  } else if (m.status === "failed") sums[2] += 1;
  else sums[3] += 1;
}

/** A message's 13 rollup rows: each span and dimension for its account; for every account (0: `*`, `*prefix`), the quarter-hour total and the prefixes. */
function addRows(map, m) {
  const q = Math.floor(m.at / Q) * Q;
  const d = Math.floor(m.at / DAY) * DAY;
  for (const [dim, value] of keysOf(m)) {
    addTo(map, `q|${dim}|${q}|${m.account}|${value}`, m);
    addTo(map, `d|${dim}|${d}|${m.account}|${value}`, m);
    if (dim === "prefix") {
      addTo(map, `q|*prefix|${q}|0|${value}`, m);
      addTo(map, `d|*prefix|${d}|0|${value}`, m);
    }
    if (dim === "") addTo(map, `q|*|${q}|0|${value}`, m);
  }
}

/** Generates messages 0..count-1, handing each to `each`, and answers their rollups (span|dim|bucket|account|value → sums). */
function generate(count, each) {
  seed = 12345;
  const rollups = new Map();
  for (let i = 0; i < count; i++) {
    const m = message(i);
    each?.(m, i);
    addRows(rollups, m);
  }
  return rollups;
}

// ---- The database and its accounts ---------------------------------------------------------------
function freshDatabase() {
  const { url, cleanup } = freshSqliteUrl();
  const env = { DATABASE_URL: url, LOG_LEVEL: "warn", SQLITE_SYNCHRONOUS: "NORMAL" };
  const created = JSON.parse(
    cli(env, "accounts", "create", "--username", "ops", "--password", "ops-password-1", "--operator", "--json"),
  );
  const raw = new BetterSqlite3(url.slice("sqlite:".length));
  raw.pragma("synchronous = NORMAL");
  // The 20 customer accounts as copies of the operator's row (ids 2..21), customers.
  const columns = raw
    .prepare("select name from pragma_table_info('accounts')")
    .all()
    .map((c) => c.name)
    .filter((name) => name !== "id" && name !== "username" && name !== "role");
  for (let i = 1; i <= ACCOUNTS; i++) {
    raw
      .prepare(
        `insert into accounts (id, username, role, ${columns.join(", ")}) select ?, ?, 'customer', ${columns.join(", ")} from accounts where username = 'ops'`,
      )
      .run(100 + i, `customer${i}`);
  }
  return { env, raw, apiKey: created.api_key, cleanup };
}

const rowsOf = (raw) =>
  new Map(
    raw
      .prepare(`select span, dim, bucket, account_id, value, ${COLUMNS.join(", ")} from delivery_rollups`)
      .raw()
      .all()
      .filter((row) => row.slice(5).some((n) => n !== 0))
      .map((row) => [`${row[0]}|${row[1]}|${row[2]}|${row[3]}|${row[4]}`, row.slice(5).join(",")]),
  );

console.log(
  `${machine()}, load average ${os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")}`,
);

// ---- 1. The rule and the generator agree -----------------------------------------------------------
if (VERIFY > 0) {
  const db = freshDatabase();
  const insert = db.raw.prepare(
    `insert into messages (id, account_id, channel, broadcast_id, recipient, sender, body, segments, flash, route, lane,
       wallet, credits, status, due_at, attempts, created_at) values (?, ?, ?, 'b', ?, 'SWBRD', 'x', 1, 0, ?, 0, 'sms', 1000, 'queued', ?, 0, ?)`,
  );
  const submit = db.raw.prepare(
    "update messages set status = 'submitted', connector = ?, submitted_at = ?, attempts = 1 where id = ?",
  );
  const finish = db.raw.prepare("update messages set status = ?, error_code = ?, done_at = ? where id = ?");
  const all = [];
  const expected = generate(VERIFY, (m, i) => all.push({ ...m, id: `q${String(i).padStart(26, "0")}` }));
  // Accounts are 101..120 in this database.
  for (const m of all) m.account += 100;
  const started = process.hrtime.bigint();
  const write = db.raw.transaction((batch) => {
    for (const m of batch) {
      insert.run(m.id, m.account, m.channel, m.recipient, ROUTES[m.route], m.at, m.at);
      if (m.status === "queued") continue;
      submit.run(m.connector, m.at + 100, m.id);
      if (m.status === "submitted") continue;
      finish.run(m.status, m.error, m.at + m.latency, m.id);
    }
  });
  for (let i = 0; i < all.length; i += 1_000) write(all.slice(i, i + 1_000));
  db.raw.exec("delete from delivery_rollups");
  db.raw.exec(countStoredMessages("sqlite"));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const remapped = new Map(
    [...expected].map(([key, sums]) => {
      const parts = key.split("|");
      if (parts[3] !== "0") parts[3] = String(Number(parts[3]) + 100);
      return [parts.join("|"), [...sums].join(",")];
    }),
  );
  const actual = rowsOf(db.raw);
  const differing =
    [...remapped].filter(([key, sums]) => actual.get(key) !== sums).length + Math.max(0, actual.size - remapped.size);
  console.log(
    `verify: ${VERIFY} messages written (insert, submit, deliver/fail) and counted in ${seconds.toFixed(1)} s ` +
      `(${Math.round(VERIFY / seconds)} messages/s); ${actual.size} rollup rows, ${differing} differ from the generator's`,
  );
  db.raw.close();
  db.cleanup();
  if (differing > 0) process.exit(1);
}

// ---- 2. 10 million messages' rollups ----------------------------------------------------------------
const db = freshDatabase();
const loadStarted = Date.now();
// Generated a day at a time (the generator walks its days in order), written as each ends; a UTC
// day's row spans two of them and is summed.
const put = db.raw.prepare(
  `insert into delivery_rollups (span, dim, bucket, account_id, value, ${COLUMNS.join(", ")})
   values (?, ?, ?, ?, ?, ${COLUMNS.map(() => "?").join(", ")})
   on conflict (span, dim, bucket, account_id, value) do update set
     ${COLUMNS.map((c) => `${c} = delivery_rollups.${c} + excluded.${c}`).join(", ")}`,
);
const flush = db.raw.transaction((map) => {
  for (const [key, sums] of map) {
    const [span, dim, bucket, account, value] = key.split("|");
    put.run(span, dim, Number(bucket), account === "0" ? 0 : Number(account) + 100, value, ...sums);
  }
});
{
  seed = 12345;
  let current = new Map();
  let day = -1;
  for (let i = 0; i < MESSAGES; i++) {
    const m = message(i);
    const d = Math.floor((i / MESSAGES) * 30);
    if (d !== day && current.size > 0) {
      flush(current);
      current = new Map();
    }
    day = d;
    addRows(current, m);
  }
  flush(current);
}
db.raw.prepare("analyze").run();
const counts = db.raw.prepare("select span, count(*) as n from delivery_rollups group by span").all();
console.log(
  `loaded the rollups of ${MESSAGES} messages in ${((Date.now() - loadStarted) / 1000).toFixed(0)} s: ` +
    counts.map((c) => `${c.n} ${c.span === "q" ? "15-minute" : "day"} rows`).join(", "),
);
db.raw.close();

// ---- 3. The route, timed -----------------------------------------------------------------------------
const port = String(19_000 + Math.floor(Math.random() * 1_000));
const server = await startServer("api", { ...db.env, PORT: port, HOST: "127.0.0.1" });
const windows = [
  // The console's "last 30 days": ragged at both ends.
  ["last 30 days", new Date(END - 30 * DAY).toISOString(), new Date(END).toISOString()],
  // Whole days.
  ["30 whole days", "2026-10-29T00:00:00Z", "2026-11-28T00:00:00Z"],
];
const quantile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
const results = [];
for (const [label, from, to] of windows) {
  for (const group of ["account", "connector", "route", "prefix", "error_code", "hour", "day"]) {
    const url = `http://127.0.0.1:${port}/admin/api/analytics/delivery?from=${from}&to=${to}&group_by=${group}`;
    const times = [];
    let body;
    let cpu = 0;
    for (let i = 0; i < REQUESTS + 3; i++) {
      const started = performance.now();
      const cpuBefore = cpuSeconds(server.child.pid);
      const answer = await fetch(url, { headers: { authorization: `Bearer ${db.apiKey}` } });
      body = await answer.json();
      if (answer.status !== 200) throw new Error(`${answer.status}: ${JSON.stringify(body)}`);
      if (i >= 3) {
        times.push(performance.now() - started);
        cpu += cpuSeconds(server.child.pid) - cpuBefore;
      }
    }
    times.sort((a, b) => a - b);
    const sent = body.data.rows.reduce((sum, row) => sum + row.sent, 0);
    results.push({
      label,
      group,
      cpu: (cpu / REQUESTS) * 1000,
      p50: quantile(times, 0.5),
      p95: quantile(times, 0.95),
      max: times.at(-1),
      rows: body.data.rows.length,
      sent,
    });
  }
}
server.child.kill("SIGTERM");
console.log(`\nGET /admin/api/analytics/delivery, ${REQUESTS} requests each after 3 warm-up, one at a time (ms):`);
console.log("window         group_by    p50     p95     max  server CPU/request  rows  sent");
for (const r of results) {
  console.log(
    `${r.label.padEnd(14)} ${r.group.padEnd(11)} ${r.p50.toFixed(1).padStart(6)}  ${r.p95.toFixed(1).padStart(6)}  ${r.max.toFixed(1).padStart(6)}  ${r.cpu.toFixed(1).padStart(18)}  ${String(r.rows).padStart(5)}  ${r.sent}`,
  );
}
console.log(
  `load average ${os
    .loadavg()
    .map((n) => n.toFixed(1))
    .join(" ")}`,
);
const worst = Math.max(...results.map((r) => r.p95));
console.log(`\nworst p95 ${worst.toFixed(1)} ms (target < 100 ms): ${worst < 100 ? "met" : "NOT met"}`);
db.cleanup();
