// The storage floor of an SMS on SQLite: the CPU that the database work of one message's life
// costs with no HTTP, no application code and no thread hand-offs around it. It takes a real
// message row and ledger entry from a Switchboard `start` (v2 sends to the simulated carrier),
// then, on one connection of that database with the gateway's settings (WAL, a COMMIT at
// synchronous=NORMAL followed by an fdatasync of the WAL: the group commit's durability), runs
// the gateway's own hot statements in groups of --group messages, each group in one
// transaction: the dispatcher's claim of the previous group and its `submitted` update (an
// upstream id like the simulator's, a hash), the delivery reports of the group before that
// (update … returning by upstream id), and the accept of a new group (the wallet's debit, the
// message rows, the ledger entries). Prints the process's CPU per message (user + system, the
// fsync included), the rate one thread reaches and, counted apart, the bytes of WAL a message
// writes (the pages its group's commits change). With --sequential-ids the upstream ids are
// in the order of the messages (as SMSCs that number their messages give), for comparison.
// The database is the gateway's, with its page size (src/base/store/sqlite-store.ts); with
// --page-size N the file is made with pages of N bytes before the gateway opens it, as a database
// made before decision 0136 (4096) is. --by-btree prints the counted WAL's pages per
// message by the table or index they belong to.
// The WAL is counted first, once the database holds --count-at messages, then the CPU is timed.
// Usage: node bench/storage-floor.mjs [--seconds 10] [--group 32] [--sequential-ids] [--page-size N] [--by-btree]
//   [--count-at 40000]
import { createHash } from "node:crypto";
import fs from "node:fs";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import { freshSqliteUrl, machine, metric, presetPageSize, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "10" },
    group: { type: "string", default: "32" },
    "sequential-ids": { type: "boolean", default: false },
    "page-size": { type: "string" },
    "by-btree": { type: "boolean", default: false },
    "count-at": { type: "string", default: "40000" },
  },
});
const seconds = Number(values.seconds);
const G = Number(values.group);
const countAt = Number(values["count-at"]);

// 1. Real rows: a few sends through a gateway, delivered by the simulated carrier.
const db = freshSqliteUrl();
const file = db.url.slice("sqlite:".length);
const port = String(20000 + Math.floor(Math.random() * 20000));
const env = {
  DATABASE_URL: db.url,
  PORT: port,
  LOG_LEVEL: "warn",
  SIMULATOR_LATENCY_MS: "50",
  SIMULATOR_FAILURE_RATE: "0",
};
if (values["page-size"]) presetPageSize(db.url, values["page-size"]);
const server = await startServer("start", env);
const base = `http://127.0.0.1:${port}`;
for (let i = 0; i < 20; i++) {
  const r = await fetch(`${base}/api/v2/sms/send`, {
    method: "POST",
    headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
    body: JSON.stringify({
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 482913. Do not share it with anyone.",
    }),
  });
  if (!r.ok) throw new Error(`send refused: ${await r.text()}`);
}
await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= 20);
server.child.kill("SIGTERM");
await new Promise((r) => server.child.once("exit", r));

// 2. The statements, on one connection with the gateway's settings (src/store/sqlite-store.ts).
const raw = new BetterSqlite3(file);
raw.pragma("journal_mode = WAL");
raw.pragma("synchronous = NORMAL"); // the group commit's COMMIT; the WAL's fdatasync follows
raw.pragma("foreign_keys = ON");
raw.pragma("cache_size = -65536");
raw.pragma("temp_store = MEMORY");
raw.pragma("automatic_index = OFF");
const pageSize = raw.pragma("page_size", { simple: true });
raw.pragma(`wal_autocheckpoint = ${Math.round((32 * 1024 * 1024) / pageSize)}`);
const message = raw.prepare("select * from messages where status = 'delivered' limit 1").get();
const ledger = raw.prepare("select * from ledger_entries where kind = 'debit' limit 1").get();
if (!message || !ledger) throw new Error("no delivered message to copy");
delete ledger.id;
const messageColumns = Object.keys(message);
const ledgerColumns = Object.keys(ledger);
const insert = (table, columns) =>
  raw.prepare(
    `insert into "${table}" (${columns.map((c) => `"${c}"`).join(", ")}) values (${columns.map(() => "?").join(", ")})`,
  );
const insertMessage = insert("messages", messageColumns);
const insertLedger = insert("ledger_entries", ledgerColumns);
const debit = raw.prepare(
  "update wallets set balance = balance - ? where account_id = ? and wallet = ? and balance - held >= ? returning balance",
);
const claim = raw.prepare(
  "select * from messages where status = 'queued' and due_at <= ? order by lane, due_at limit ?",
);
const submitted = raw.prepare(
  `update messages set status = 'submitted', lease_until = null, error_code = null, error_message = null,
     connector = ?, upstream_id = ?, submitted_at = ?, attempts = ? where id = ? and status in ('dispatching', 'queued')`,
);
const report = raw.prepare(
  `update messages set status = ?, done_at = ?, error_code = ?, error_message = ?
    where connector = ? and upstream_id = ? and status in ('submitted')
   returning id, account_id, channel, status, created_at, job_id, recipient, done_at, error_code, error_message`,
);
const begin = raw.prepare("begin immediate");
const commit = raw.prepare("commit");
raw
  .prepare("update wallets set balance = 1e15 where account_id = ? and wallet = ?")
  .run(ledger.account_id, ledger.wallet);
const walFd = fs.openSync(`${file}-wal`, "r");

// The values of a new message and its ledger entry, the varying ones set per message below (the
// floor should not count building rows).
const queued = { ...message, status: "queued", upstream_id: null, submitted_at: null, done_at: null, attempts: 0 };
const messageValues = messageColumns.map((c) => queued[c]);
const ledgerValues = ledgerColumns.map((c) => ledger[c]);
const at = {
  id: messageColumns.indexOf("id"),
  created_at: messageColumns.indexOf("created_at"),
  due_at: messageColumns.indexOf("due_at"),
  ref: ledgerColumns.indexOf("ref"),
  ledger_created_at: ledgerColumns.indexOf("created_at"),
};
let sequence = 0;
const upstreamId = (id) =>
  values["sequential-ids"]
    ? `SIM${String(sequence).padStart(12, "0")}`
    : `SIM${createHash("sha1").update(id).digest("hex").slice(0, 20)}`;
let reportsDue = []; // upstream ids of the group submitted one round before

let messages = 0;
let groups = 0;
let submits = 0;
let reported = 0;
function group() {
  const now = Date.now();
  begin.run();
  // The reports of the group submitted one round ago.
  for (const id of reportsDue) reported += report.all(["delivered", now, null, null, message.connector, id]).length;
  // The claim of the group accepted one round ago, and its submits.
  reportsDue = [];
  for (const row of claim.all([now, G])) {
    sequence++;
    const upstream = upstreamId(row.id);
    submits += submitted.run([message.connector, upstream, now, row.attempts + 1, row.id]).changes;
    reportsDue.push(upstream);
  }
  // A new group accepted: one debit, the message rows, the ledger entries.
  debit.all([G * ledger.amount * -1, ledger.account_id, ledger.wallet, G * ledger.amount * -1]);
  for (let i = 0; i < G; i++) {
    messageValues[at.id] = `${message.id.slice(0, 10)}${String(messages + i).padStart(16, "0")}`;
    messageValues[at.created_at] = now;
    messageValues[at.due_at] = now;
    insertMessage.run(messageValues);
    ledgerValues[at.ref] = `b${messages + i}`;
    ledgerValues[at.ledger_created_at] = now;
    insertLedger.run(ledgerValues);
  }
  commit.run();
  fs.fdatasyncSync(walFd);
  messages += G;
  groups++;
}
// Counted, not timed: the WAL the same work writes, 100 groups from an empty WAL that no
// checkpoint restarts (each commit writes every page it changed, whole: the pages a message
// touches, shared with its group's others), once the database holds --count-at messages: what a
// group writes in the carrier-id index grows with the index (random ids touch one leaf each
// until the group's ids share leaves), so runs compare at one size, whatever their speed.
while (messages < countAt) group();
raw.pragma("wal_checkpoint(TRUNCATE)");
raw.pragma("wal_autocheckpoint = 0");
const counted = { messages, size: fs.fstatSync(walFd).size };
for (let i = 0; i < 100; i++) group();
const walBytes = fs.fstatSync(walFd).size - counted.size;
const walPerMessage = walBytes / (messages - counted.messages);
const byBtree = values["by-btree"] ? walPagesByBtree(counted.size, messages - counted.messages) : [];
raw.pragma(`wal_autocheckpoint = ${Math.round((32 * 1024 * 1024) / pageSize)}`);
raw.pragma("wal_checkpoint(TRUNCATE)");

// Timed: groups for --seconds.
const timed = { messages, groups };
const started = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
while (process.hrtime.bigint() - started < BigInt(seconds * 1e9)) group();
const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
const cpu = process.cpuUsage(cpu0);
const timedMessages = messages - timed.messages;
raw.close();
db.cleanup();
// Every message of the run but the last two groups went through all three steps.
if (submits < messages - G || reported < messages - 2 * G) {
  throw new Error(
    `the statements did not do their work: ${messages} accepted, ${submits} submitted, ${reported} reported`,
  );
}

console.log(`machine: ${machine()}`);
console.log(
  `groups of ${G}, ${values["sequential-ids"] ? "sequential" : "hashed (random)"} upstream ids: ${messages} messages accepted, ${submits} submitted, ${reported} reported in ${groups} transactions`,
);
console.log(
  `WAL written: ${Math.round(walPerMessage)} bytes per message (${(walPerMessage / (pageSize + 24)).toFixed(2)} pages of ${pageSize} bytes), counted over 100 groups from ${counted.messages} messages`,
);
for (const line of byBtree) console.log(line);
console.log(
  `storage floor: ${(((cpu.user + cpu.system) / timedMessages) | 0).toString()} µs CPU per message (user ${(cpu.user / timedMessages).toFixed(0)}, system ${(cpu.system / timedMessages).toFixed(0)}), ${Math.round(timedMessages / elapsed)} messages/s on one thread over ${seconds} s`,
);

/** The WAL's frames after byte `from`, per message, by the table or index their page belongs to (dbstat). */
function walPagesByBtree(from, perMessages) {
  const wal = fs.readFileSync(`${file}-wal`);
  const owner = new Map(
    raw
      .prepare("select name, pageno from dbstat")
      .all()
      .map((row) => [row.pageno, row.name]),
  );
  const pages = new Map();
  // Past the WAL's 32-byte header: frames of a 24-byte header (the page number first) and a page.
  for (let at = Math.max(32, from); at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    const name = owner.get(wal.readUInt32BE(at)) ?? "(free)";
    pages.set(name, (pages.get(name) ?? 0) + 1);
  }
  return [...pages]
    .sort((a, b) => b[1] - a[1])
    .map(
      ([name, n]) =>
        `  ${name.padEnd(34)} ${(n / perMessages).toFixed(3)} pages, ${Math.round((n * (pageSize + 24)) / perMessages)} bytes per message`,
    );
}
