// The queries of GET /api/v2/messages (src/messages/listing.ts) on a realistic table: fills a
// fresh database with --rows messages (default 1,000,000: 20 accounts, one holding 60 % of them
// with a 100,000-message bulk job whose messages share one created_at; 94 % SMS, 3 % email,
// 2 % voice, 1 % WhatsApp; 5 % failed; 200,000 distinct numbers), runs ANALYZE, then for each
// kind of page prints the planner's plan of every statement listMessages runs and the time of
// the page (median of 5). A plan that reads messages without an index is marked FULL SCAN.
// Usage: node bench/message-list.mjs [--rows 1000000] [--database postgres://…]
// (npm run build first: it runs the compiled listing code.)

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { sql } from "kysely";
import { createAccountWithKey } from "../dist/app/admin/index.js";
import { systemClock } from "../dist/base/core/clock.js";
import { openStore } from "../dist/base/store/store.js";
import { cliActor } from "../dist/domain/audit/index.js";
import { encodeCursor, listMessages, recipientForms } from "../dist/domain/messages/index.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "1000000" }, database: { type: "string" } },
});
const rows = Number(values.rows);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-list-"));
const schema = `sb_list_${process.pid}`;
const target = values.database
  ? { engine: "postgres", url: values.database }
  : { engine: "sqlite", file: path.join(dir, "list.db") };
if (target.engine === "postgres") {
  const admin = await openStore(target);
  await sql.raw(`create schema ${schema}`).execute(admin.db);
  await admin.close();
}
const store = await openStore(target, target.engine === "postgres" ? { pgSchema: schema } : {});
await store.migrate();
const pg = store.engine === "postgres";

const accounts = [];
for (let i = 0; i < 20; i++) {
  const created = await createAccountWithKey(
    { store, clock: systemClock, actor: cliActor() },
    { username: `bench${i}`, password: "bench-password", credits: { sms: 1 } },
  );
  accounts.push(created.id);
}
const big = accounts[0];
const base = Date.UTC(2026, 10, 1);
const bulkRows = Math.min(100_000, Math.floor(rows / 10));
const bulkAt = base + Math.floor(rows / 2) * 50;
await store.db
  .insertInto("bulk_jobs")
  .values({
    account_id: big,
    batch_id: `${big}_20261101_999999`,
    status: "completed",
    route: "transactional",
    sender: "SWBRD",
    group_id: null,
    total: bulkRows,
    created_at: bulkAt,
    updated_at: bulkAt,
  })
  .execute();
const job = await store.db.selectFrom("bulk_jobs").select("id").executeTakeFirstOrThrow();

console.log(`${machine()}; ${store.engine}; filling ${rows.toLocaleString("en")} messages…`);
const fillStarted = performance.now();
// Row n: the big account for 60 % of n, the others in turn; the bulk job's rows at the end.
const bulkFrom = rows - bulkRows;
const others = `case n % 19 ${accounts
  .slice(1)
  .map((id, i) => `when ${i} then ${id}`)
  .join(" ")} end`;
const pad = (expr, width) => (pg ? `lpad((${expr})::text, ${width}, '0')` : `printf('%0${width}d', ${expr})`);
const columns = sql.raw(`
  'q' || ${pad("n", 26)},
  case when n >= ${bulkFrom} or n % 10 < 6 then ${big} else ${others} end,
  case when n / 7 % 100 < 94 then 'sms' when n / 7 % 100 < 97 then 'email' when n / 7 % 100 < 99 then 'voice' else 'whatsapp' end,
  case when n >= ${bulkFrom} then '${big}_20261101_999999' else '${big}_20261101_' || ${pad("n / 3", 6)} end,
  '9' || ${pad("n % 200000", 9)},
  'SWBRD', 'Your OTP is 482913.', 'gsm7', 1, 0, 'transactional', 0, 'sms', 1000,
  case when n / 3 % 20 = 7 then 'failed' when n / 3 % 25 = 3 then 'submitted' else 'delivered' end,
  ${base}, 1, 'simulator', 'SIM' || n,
  case when n >= ${bulkFrom} then ${job.id} else null end,
  case when n >= ${bulkFrom} then ${bulkAt} else ${base} + n * 50 end`);
const insertColumns = sql.raw(
  "id, account_id, channel, broadcast_id, recipient, sender, body, encoding, segments, flash, route, lane, wallet, credits, status, due_at, attempts, connector, upstream_id, job_id, created_at",
);
const CHUNK = 50_000;
for (let from = 0; from < rows; from += CHUNK) {
  const to = Math.min(rows, from + CHUNK) - 1;
  await store.transaction((trx) =>
    pg
      ? sql`insert into messages (${insertColumns}) select ${columns} from generate_series(${sql.raw(String(from))}::bigint, ${sql.raw(String(to))}::bigint) as g(n)`.execute(
          trx,
        )
      : sql`insert into messages (${insertColumns}) with recursive g(n) as (select ${sql.raw(String(from))} union all select n + 1 from g where n < ${sql.raw(String(to))}) select ${columns} from g`.execute(
          trx,
        ),
  );
}
await sql.raw(pg ? "analyze messages" : "analyze").execute(store.db);
console.log(`filled in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s\n`);

/** Runs listMessages, capturing each statement it sends, then explains them. */
async function explain(name, filter, limit = 50, after) {
  const statements = [];
  const capture = store.db.withPlugin({
    transformQuery(args) {
      statements.push(args.node);
      return args.node;
    },
    async transformResult(args) {
      return args.result;
    },
  });
  const page = await listMessages(capture, big, filter, limit, after);
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await listMessages(store.db, big, filter, limit, after);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`## ${name}: ${page.rows.length} rows, next ${page.next ? "yes" : "null"}, ${times[2].toFixed(1)} ms`);
  for (const node of statements) {
    const compiled = store.db.getExecutor().compileQuery(node, { queryId: "explain" });
    const prefix = pg ? "explain " : "explain query plan ";
    const result = await store.db.executeQuery({ ...compiled, sql: prefix + compiled.sql });
    const plan = result.rows.map((row) => (pg ? row["QUERY PLAN"] : row.detail));
    const fullScan = plan.some((line) => /Seq Scan on messages|^SCAN messages$/.test(line.trim()));
    console.log(`  ${compiled.sql.replace(/\s+/g, " ").slice(0, 160)}…${fullScan ? "  ** FULL SCAN **" : ""}`);
    for (const line of plan) console.log(`    ${line}`);
  }
  return page;
}

const first = await explain("first page", {});
const deep = {
  createdAt: base + Math.floor(rows * 0.3) * 50,
  id: `q${String(Math.floor(rows * 0.3)).padStart(26, "0")}`,
};
await explain("a page deep in, from a cursor", {}, 50, deep);
await explain("status failed (5 %)", { statuses: ["failed"] });
await explain("channel voice (2 %)", { channels: ["voice"] });
await explain("channel whatsapp and status submitted (rare)", { channels: ["whatsapp"], statuses: ["submitted"] });
await explain("by number", { recipients: recipientForms("+91 90001 23450") });
const bulk = await explain("a bulk job's broadcast (100,000 share one created_at)", {
  broadcastId: `${big}_20261101_999999`,
});
await explain("the same broadcast, from a cursor", { broadcastId: `${big}_20261101_999999` }, 50, bulk.next);
await explain("job_id", { jobId: job.id });
await explain("one hour", { from: base + 3_600_000, to: base + 7_200_000 });
await explain("queue id", { queueId: first.rows[0].id });
await explain("vendor id", { upstreamId: first.rows[0].upstream_id });
console.log(`\ncursor example: ${encodeCursor({ createdAt: first.rows[0].created_at, id: first.rows[0].id })}`);

await store.close();
if (pg) {
  const admin = await openStore(target);
  await sql.raw(`drop schema ${schema} cascade`).execute(admin.db);
  await admin.close();
}
if (!process.env.KEEP) fs.rmSync(dir, { recursive: true, force: true });
else console.log(dir);
