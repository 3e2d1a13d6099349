// Decision 0154: what reading a large price card costs. Starts a gateway on a fresh database
// (SQLite, or PostgreSQL with --database), writes a card of --rows rows (SMS and voice, four routes,
// a dated price on one row in ten), then times GET /admin/api/price-cards/{name} at the first, the
// middle and the last page, with each filter, and the whole card's CSV export; prints each one's
// median and worst of --rounds, the answer's size, and the plans of the page and count statements.
// --vacuum: on PostgreSQL, VACUUM (ANALYZE) the rows first, as autovacuum does a while after an upload.
// Usage: npm run build && node bench/price-card-pages.mjs [--rows 200000] [--rounds 15] [--database postgres://… [--vacuum]]
import { parseArgs } from "node:util";
import { cli, freshDatabase, machine, median, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "200000" },
    rounds: { type: "string", default: "15" },
    database: { type: "string" },
    port: { type: "string", default: "18191" },
    vacuum: { type: "boolean", default: false },
  },
});
const ROWS = Number(values.rows);
const db = await freshDatabase(values.database, "bench_price_pages");
const postgres = !db.url.startsWith("sqlite:");
const env = { DATABASE_URL: db.url, PORT: values.port, LOG_LEVEL: "warn", SWITCHBOARD_THREADS: "2" };
const base = `http://127.0.0.1:${values.port}`;
const server = await startServer("start", env);
const operator = JSON.parse(
  cli(env, "accounts", "create", "--username", "ops", "--password", "ops-password-1", "--operator", "--json"),
);
const auth = { authorization: `Bearer ${operator.api_key}` };

/** ROWS distinct rows, written in no particular order. */
function card() {
  const lines = ["channel,route,prefix,price,effective_from"];
  const routes = ["T", "P", "I", "*"];
  for (let i = 0; i < ROWS; i++) {
    const voice = i % 20 === 0;
    const prefix = String(1_000_000 + ((i * 7_919) % ROWS)).slice(0, 7);
    const route = voice ? "V" : routes[i % 4];
    const dated = i % 10 === 3 ? "2027-01-01T00:00:00Z" : "";
    lines.push(`${voice ? "voice" : "sms"},${route},${prefix}${i % 10},0.${(i % 900) + 100},${dated}`);
  }
  return lines.join("\n");
}

const put = await fetch(`${base}/admin/api/price-cards/big`, {
  method: "PUT",
  headers: { ...auth, "content-type": "text/csv" },
  body: card(),
});
if (!put.ok) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);

// PostgreSQL: the card as autovacuum leaves it a while after the upload (visibility map set, statistics read).
if (postgres && values.vacuum) await db.query({ vacuum: "vacuum (analyze) price_card_rows" });

async function timed(path) {
  const times = [];
  let bytes = 0;
  let answer;
  for (let round = 0; round < Number(values.rounds); round++) {
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers: auth });
    const text = await response.text();
    times.push(performance.now() - started);
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${text}`);
    bytes = text.length;
    answer = text.startsWith("{") ? JSON.parse(text) : undefined;
  }
  const meta = answer?.meta ? ` total ${answer.meta.total}, ${answer.data.rows.length} rows` : "";
  console.log(
    `${path}: median ${median(times).toFixed(1)} ms, worst ${Math.max(...times).toFixed(1)} ms, ${bytes} bytes${meta}`,
  );
}

console.log(machine());
console.log(`${postgres ? "PostgreSQL" : "SQLite"}, a card of ${ROWS} rows, ${values.rounds} rounds each`);
const last = Math.ceil(ROWS / 100);
for (const query of [
  "",
  `?page=${Math.round(last / 2)}`,
  `?page=${last}`,
  `?page=${last / 10}&per_page=1000`,
  "?channel=voice",
  `?channel=voice&page=${Math.ceil(ROWS / 20 / 100)}`,
  "?prefix=1100",
  "?prefix=11",
  "?prefix=11&page=1000",
  "?channel=sms&prefix=11&page=900",
]) {
  await timed(`/admin/api/price-cards/big${query}`);
}
await timed("/admin/api/price-cards/big/export");

// The statements of a page 2,000 and of a prefix's run (price-card-pages.ts), as the server sends them.
const generation = "(select generation from price_cards where name = 'big')";
const rows = `from price_card_rows where card = 'big' and generation = ${generation}`;
const inOrder = (way) => `order by channel ${way}, prefix ${way}, position ${way}`;
const statements = {
  run_end: `select position ${rows} order by position desc limit 1`,
  page_2000: `select channel, route, prefix, price, effective_from ${rows} and position >= ${ROWS - 100} and position <= ${ROWS - 1} order by position`,
  prefix_run_start: `select position ${rows} and channel = 'sms' and prefix >= '11' and prefix < '11:' ${inOrder("asc")} limit 1`,
  prefix_run_end: `select position ${rows} and channel = 'sms' and prefix >= '11' and prefix < '11:' ${inOrder("desc")} limit 1`,
};
const explain = postgres ? "explain (analyze, buffers, costs off) " : "explain query plan ";
const plans = await db.query(Object.fromEntries(Object.entries(statements).map(([k, v]) => [k, `${explain}${v}`])));
for (const [name, rows] of Object.entries(plans)) {
  console.log(`-- ${name}`);
  for (const row of rows) console.log(`   ${row["QUERY PLAN"] ?? row.detail}`);
}
server.child.kill("SIGTERM");
await db.cleanup();
process.exit(0);
