// What a one-part SMS writes in its life, counted by the engines themselves: every row version
// (insert, update, delete) of every table and every index entry, per message. Sends --messages
// one-part SMS through a real `switchboard start` (v2, the simulated carrier, its delivery
// reports), with the delivery-report webhook off and on (a local receiver answering 200), after a
// warm-up that creates the day's shared rows (flood counter, rollups), and counts from there until
// every message is delivered and every webhook answered.
//
// PostgreSQL (--database postgres://…): the tables' counters (pg_stat_user_tables: n_tup_ins,
// n_tup_upd, n_tup_hot_upd, n_tup_del) and the WAL the run wrote for this schema's relations
// (pg_walinspect: each heap and B-tree record names its relation, so the other sessions of a
// shared server are left out): heap records per table, B-tree leaf inserts per index (an index
// entry each), and their bytes, full-page images apart; the commit records of the same
// transactions are added to the bytes.
// SQLite: every row change of every table is logged by AFTER triggers added once the gateway has
// migrated (the log is the engine's own change stream; the triggers' writes are not counted), and
// each index's entries are derived from the schema (PRAGMA index_list / index_info, the partial
// indexes' WHERE evaluated by SQLite on the row): an insert adds an entry to each index whose
// WHERE holds, a delete removes one, an update replaces an entry whose key or WHERE changed. And
// the WAL the gateway wrote: the WAL is truncated when the count starts and read before the
// gateway stops (no checkpoint restarts it in between: it holds 32 MB), its frames told by the
// table or index their page belongs to (dbstat), the triggers' log left out. With --page-size N
// the file is made with pages of N bytes before the gateway opens it (as one made before
// decision 0136, 4096).
// Usage: node bench/writes-per-message.mjs [--messages 500] [--webhooks off,on] [--database postgres://…] [--page-size N]
//   [--concurrency 25] (sends under way at once)
import fs from "node:fs";
import http from "node:http";
import { parseArgs } from "node:util";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";
import { freshDatabase, machine, metric, presetPageSize, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    messages: { type: "string", default: "500" },
    webhooks: { type: "string", default: "off,on" },
    database: { type: "string" },
    json: { type: "boolean", default: false },
    "page-size": { type: "string" },
    concurrency: { type: "string", default: "25" },
  },
});
const N = Number(values.messages);
const WARM_UP = 50;
const CONCURRENCY = Number(values.concurrency);

/** A local receiver of webhooks: answers 200 at once, counts what it got. */
async function receiver() {
  let received = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      received++;
      res.writeHead(200).end();
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    received: () => received,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function send(base, key, count) {
  let next = 0;
  const one = async () => {
    while (next < count) {
      next++;
      const r = await fetch(`${base}/api/v2/sms/send`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          sender_id: "SWBRD",
          recipient: "9876543210",
          message: "Your OTP is 482913. Do not share it with anyone.",
        }),
      });
      if (!r.ok) throw new Error(`send refused: ${await r.text()}`);
      await r.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
}

// --- SQLite: triggers log each row change; index entries derived from the schema. ---

function sqliteTables(raw) {
  return raw
    .prepare(
      "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not like 'bench_%'",
    )
    .pluck()
    .all();
}

function addTriggers(raw) {
  raw.exec("create table bench_writes (tbl text not null, op text not null, old text, new text)");
  for (const table of sqliteTables(raw)) {
    const columns = raw.prepare(`select name from pragma_table_info('${table}')`).pluck().all();
    const json = (row) => `json_object(${columns.map((c) => `'${c}', ${row}."${c}"`).join(", ")})`;
    raw.exec(`
      create trigger "bench_i_${table}" after insert on "${table}" begin
        insert into bench_writes values ('${table}', 'i', null, ${json("new")}); end;
      create trigger "bench_u_${table}" after update on "${table}" begin
        insert into bench_writes values ('${table}', 'u', ${json("old")}, ${json("new")}); end;
      create trigger "bench_d_${table}" after delete on "${table}" begin
        insert into bench_writes values ('${table}', 'd', ${json("old")}, null); end;`);
  }
}

/** Each index of `table`: its name, its key columns (the rowid last, as SQLite stores it) and its WHERE. */
function sqliteIndexes(raw, table) {
  const withoutRowid = /without\s+rowid/i.test(
    raw.prepare("select sql from sqlite_master where type = 'table' and name = ?").pluck().get(table) ?? "",
  );
  return raw
    .prepare(`select name, partial from pragma_index_list('${table}')`)
    .all()
    .map(({ name, partial }) => {
      const columns = raw.prepare(`select name from pragma_index_info('${name}')`).pluck().all();
      const sql = raw.prepare("select sql from sqlite_master where name = ?").pluck().get(name);
      const where = partial ? /\bwhere\b([\s\S]*)$/i.exec(sql)?.[1]?.trim() : undefined;
      return { name, columns: withoutRowid ? columns : [...columns, "rowid"], where };
    });
}

/**
 * The frames of the WAL's current generation (those carrying its header's salts), by the table or
 * index their page belongs to now, the triggers' log apart.
 */
function walByBtree(file) {
  const wal = fs.readFileSync(`${file}-wal`);
  const raw = new BetterSqlite3(file, { readonly: true });
  const pageSize = raw.pragma("page_size", { simple: true });
  const owner = new Map(
    raw
      .prepare("select name, pageno from dbstat")
      .all()
      .map((row) => [row.pageno, row.name]),
  );
  raw.close();
  const result = { pageSize, frames: 0, bytes: 0, log: 0, commits: 0, byBtree: {} };
  if (wal.length < 32) return result;
  const salts = wal.subarray(16, 24);
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (!wal.subarray(at + 8, at + 16).equals(salts)) {
      // Frames of an earlier generation after the current one's: a checkpoint restarted the WAL
      // during the count (32 MB written, the triggers' log included), and what came before it is lost.
      throw new Error("the WAL was restarted during the count: fewer --messages");
    }
    if (wal.readUInt32BE(at + 4) !== 0) result.commits++;
    const name = owner.get(wal.readUInt32BE(at)) ?? "(free)";
    if (name === "bench_writes") {
      result.log++;
      continue;
    }
    result.frames++;
    result.bytes += 24 + pageSize;
    result.byBtree[name] = (result.byBtree[name] ?? 0) + 1;
  }
  return result;
}

function countSqlite(file) {
  const raw = new BetterSqlite3(file);
  const rows = raw.prepare("select rowid, tbl, op, old, new from bench_writes").all();
  const result = {};
  const predicates = new Map();
  const holds = (index, table, image) => {
    if (!index.where) return true;
    const key = `${table}.${index.name}`;
    if (!predicates.has(key)) {
      const columns = raw.prepare(`select name from pragma_table_info('${table}')`).pluck().all();
      predicates.set(
        key,
        raw
          .prepare(
            `select (${index.where}) from (select ${columns.map((c) => `json_extract(@j, '$."${c}"') as "${c}"`).join(", ")})`,
          )
          .pluck(),
      );
    }
    return Boolean(predicates.get(key).get({ j: image }));
  };
  const indexesOf = new Map();
  for (const row of rows) {
    const table = row.tbl;
    if (!indexesOf.has(table)) indexesOf.set(table, sqliteIndexes(raw, table));
    result[table] ??= { ins: 0, upd: 0, del: 0, indexes: {} };
    const entry = result[table];
    entry[{ i: "ins", u: "upd", d: "del" }[row.op]]++;
    const old = row.old && JSON.parse(row.old);
    const now = row.new && JSON.parse(row.new);
    // rowid: the log has the table's columns only; an INTEGER PRIMARY KEY is the rowid, else an
    // update keeps it (none of the gateway's updates changes a primary key).
    for (const index of indexesOf.get(table)) {
      const before = old && holds(index, table, row.old);
      const after = now && holds(index, table, row.new);
      const key = (image) => JSON.stringify(index.columns.map((c) => (c === "rowid" ? 0 : image[c])));
      let written = 0;
      if (before && after && key(old) === key(now)) written = 0;
      else written = (before ? 1 : 0) + (after ? 1 : 0);
      if (written > 0) result[table].indexes[index.name] = (result[table].indexes[index.name] ?? 0) + written;
    }
  }
  raw.close();
  return result;
}

// --- PostgreSQL: pg_stat_user_tables and the WAL of this schema's relations. ---

async function pgSnapshot(client, schema) {
  const tables = await client.query(
    `select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del from pg_stat_user_tables where schemaname = $1`,
    [schema],
  );
  const lsn = (await client.query("select pg_current_wal_lsn() as lsn")).rows[0].lsn;
  return { tables: Object.fromEntries(tables.rows.map((r) => [r.relname, r])), lsn };
}

async function countPostgres(client, schema, walinspect, before, after) {
  const result = {};
  for (const [name, row] of Object.entries(after.tables)) {
    const was = before.tables[name] ?? { n_tup_ins: 0, n_tup_upd: 0, n_tup_hot_upd: 0, n_tup_del: 0 };
    const d = (k) => Number(row[k]) - Number(was[k]);
    if (d("n_tup_ins") + d("n_tup_upd") + d("n_tup_del") === 0) continue;
    result[name] = {
      ins: d("n_tup_ins"),
      upd: d("n_tup_upd"),
      hot: d("n_tup_hot_upd"),
      del: d("n_tup_del"),
      indexes: {},
    };
  }
  const rels = await client.query(
    `select c.relfilenode, c.relname, c.relkind, coalesce(t.relname, c.relname) as tbl
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
       left join pg_index i on i.indexrelid = c.oid left join pg_class t on t.oid = i.indrelid
      where n.nspname = $1 and c.relkind in ('r', 'i')`,
    [schema],
  );
  const byNode = new Map(rels.rows.map((r) => [String(r.relfilenode), r]));
  const records = await client.query(
    `select xid, resource_manager, record_type, record_length, fpi_length, block_ref
       from ${walinspect}.pg_get_wal_records_info($1, $2)`,
    [before.lsn, after.lsn],
  );
  const xids = new Set();
  const wal = { bytes: 0, fpi: 0, records: 0, commits: 0, commitBytes: 0, all: 0 };
  for (const record of records.rows) {
    wal.all += record.record_length;
    const node = /rel \d+\/\d+\/(\d+)/.exec(record.block_ref ?? "")?.[1];
    const rel = node && byNode.get(node);
    if (!rel) continue;
    xids.add(String(record.xid));
    wal.records++;
    wal.bytes += record.record_length;
    wal.fpi += record.fpi_length;
    result[rel.tbl] ??= { ins: 0, upd: 0, hot: 0, del: 0, indexes: {} };
    const entry = result[rel.tbl];
    entry.walBytes = (entry.walBytes ?? 0) + record.record_length;
    if (rel.relkind === "i" && /^INSERT_(LEAF|POST)$/.test(record.record_type)) {
      entry.indexes[rel.relname] = (entry.indexes[rel.relname] ?? 0) + 1;
    }
    if (rel.relkind === "r") {
      const key = `heap ${record.record_type.toLowerCase()}`;
      entry.heap ??= {};
      entry.heap[key] = (entry.heap[key] ?? 0) + 1;
    }
  }
  for (const record of records.rows) {
    if (record.resource_manager === "Transaction" && xids.has(String(record.xid))) {
      wal.commits++;
      wal.commitBytes += record.record_length;
    }
  }
  return { tables: result, wal };
}

// --- One run. ---

/** One run on a fresh database, removed afterwards whatever happens (a shared server keeps no leftovers). */
async function run(database, webhooks) {
  const db = await freshDatabase(database, "bench_writes");
  const children = [];
  try {
    return await measure(db, database, webhooks, children);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await db.cleanup().catch(() => undefined);
  }
}

async function measure(db, database, webhooks, children) {
  const port = String(20000 + Math.floor(Math.random() * 20000));
  const hooks = webhooks ? await receiver() : undefined;
  const env = {
    DATABASE_URL: db.url,
    PORT: port,
    LOG_LEVEL: "warn",
    SIMULATOR_LATENCY_MS: "50",
    SIMULATOR_FAILURE_RATE: "0",
    SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
  };
  if (values["page-size"] && !database) presetPageSize(db.url, values["page-size"]);
  const server = await startServer("start", env);
  children.push(server.child);
  const base = `http://127.0.0.1:${port}`;
  if (hooks) {
    const r = await fetch(`${base}/api/v2/webhooks`, {
      method: "PUT",
      headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
      body: JSON.stringify({ delivery_report: hooks.url }),
    });
    if (!r.ok) throw new Error(`webhook setting refused: ${await r.text()}`);
  }
  const delivered = () => metric(base, "switchboard_messages_delivered_total");
  const settled = async (count) => {
    await waitFor(async () => (await delivered()) >= count);
    if (hooks) {
      // Every delivery posted (submitted and delivered events; a count that no longer grows).
      let last = -1;
      await waitFor(
        async () => {
          const now = hooks.received();
          const done = now > 0 && now === last;
          last = now;
          return done;
        },
        { intervalMs: 1500 },
      );
    }
  };
  await send(base, server.demoKey, WARM_UP);
  await settled(WARM_UP);
  const file = database ? undefined : db.url.slice("sqlite:".length);
  let client;
  let schema;
  let before;
  let walinspect;
  if (file) {
    const raw = new BetterSqlite3(file);
    addTriggers(raw);
    const [truncated] = raw.pragma("wal_checkpoint(TRUNCATE)");
    if (truncated.busy) throw new Error("the WAL could not be truncated: a reader held it");
    raw.close();
  } else {
    schema = new URL(db.url).searchParams.get("options").split("search_path=")[1].split(" ")[0];
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    await client.query(`create extension if not exists pg_walinspect schema ${schema}`);
    walinspect = (
      await client.query(
        "select extnamespace::regnamespace::text as ns from pg_extension where extname = 'pg_walinspect'",
      )
    ).rows[0].ns;
    // The run's WAL kept until it is read (a checkpoint of the shared server would recycle it):
    // a temporary slot, dropped when this session ends.
    await client.query("select pg_create_physical_replication_slot($1, true, true)", [schema]);
    // The backends report their counters once idle for a while (PGSTAT_IDLE_INTERVAL, 10 s).
    await new Promise((r) => setTimeout(r, 11_000));
    before = await pgSnapshot(client, schema);
  }
  const hooksBefore = hooks?.received() ?? 0;
  const t0 = Date.now();
  await send(base, server.demoKey, N);
  await settled(WARM_UP + N);
  const seconds = (Date.now() - t0) / 1000;
  const lsnAfter = client && (await client.query("select pg_current_wal_lsn() as lsn")).rows[0].lsn;
  // Read while the gateway runs: the last connection to close checkpoints the WAL and removes it.
  const sqliteWal = file && walByBtree(file);
  server.child.kill("SIGTERM");
  await new Promise((r) => server.child.once("exit", r));
  const posted = (hooks?.received() ?? 0) - hooksBefore;
  await hooks?.close();
  let counted;
  if (file) counted = { tables: countSqlite(file), sqliteWal };
  else {
    // The gateway's backends reported their counters as they closed.
    await new Promise((r) => setTimeout(r, 1000));
    const after = await pgSnapshot(client, schema);
    after.lsn = lsnAfter;
    counted = await countPostgres(client, schema, walinspect, before, after);
    await client.end();
  }
  return { engine: database ? "postgres" : "sqlite", webhooks, messages: N, posted, seconds, ...counted };
}

function print(result) {
  const per = (n) => (n / result.messages).toFixed(2);
  console.log(
    `\n${result.engine}, webhook ${result.webhooks ? "on" : "off"}: ${result.messages} messages in ${result.seconds.toFixed(1)} s${result.webhooks ? `, ${result.posted} webhooks posted` : ""} — per message:`,
  );
  let rows = 0;
  let entries = 0;
  const tables = Object.entries(result.tables).sort(([, a], [, b]) => b.ins + b.upd + b.del - (a.ins + a.upd + a.del));
  for (const [table, t] of tables) {
    const indexTotal = Object.values(t.indexes).reduce((a, b) => a + b, 0);
    rows += t.ins + t.upd + t.del;
    entries += indexTotal;
    const hot = t.hot === undefined ? "" : ` (hot ${per(t.hot)})`;
    const wal = t.walBytes === undefined ? "" : `, WAL ${per(t.walBytes)} B`;
    console.log(
      `  ${table}: ins ${per(t.ins)}, upd ${per(t.upd)}${hot}, del ${per(t.del)}; index entries ${per(indexTotal)}${wal}`,
    );
    for (const [index, n] of Object.entries(t.indexes).sort(([, a], [, b]) => b - a)) {
      console.log(`      ${index}: ${per(n)}`);
    }
  }
  console.log(`  total: row versions ${per(rows)}, index entries ${per(entries)}`);
  if (result.sqliteWal) {
    const w = result.sqliteWal;
    const top = Object.entries(w.byBtree)
      .sort(([, a], [, b]) => b - a)
      .slice(0, 6)
      .map(([name, n]) => `${name} ${per(n * (w.pageSize + 24))}`)
      .join(", ");
    console.log(
      `  WAL: ${per(w.bytes)} B per message (${per(w.frames)} pages of ${w.pageSize} bytes in ${per(w.commits)} commits; the triggers' log apart, ${per(w.log)} pages); most: ${top}`,
    );
  }
  if (result.wal) {
    const w = result.wal;
    console.log(
      `  WAL of this schema: ${per(w.bytes + w.commitBytes)} B per message (${per(w.records)} records, full-page images ${per(w.fpi)} B, commits ${per(w.commits)}); the server's whole WAL meanwhile ${per(w.all)} B`,
    );
  }
}

console.log(`machine: ${machine()}`);
const results = [];
for (const mode of values.webhooks.split(",")) {
  const result = await run(values.database, mode === "on");
  results.push(result);
  if (!values.json) print(result);
}
if (values.json) console.log(JSON.stringify(results, null, 2));
