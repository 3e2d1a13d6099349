// Audit F8: what a large price card upload costs the rest of the API. Starts a gateway on a fresh
// database (SQLite, or PostgreSQL with --database), writes a card of --rows rows once (so that the
// timed upload replaces as many rows, with its audit diff), then PUTs it again with every price
// changed while GET /healthz and the demo account's GET /api/v2/balance are polled one after the
// other; prints the PUT's time and each probe's worst and median latency during it. --format csv
// sends the card as the CSV `prices import` reads (Content-Type: text/csv) instead of JSON.
// Usage: npm run build && node bench/price-card-upload.mjs [--rows 150000] [--rounds 3] [--format json|csv] [--database postgres://…]
import { parseArgs } from "node:util";
import { cli, freshDatabase, machine, median, startServer } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rows: { type: "string", default: "150000" },
    rounds: { type: "string", default: "3" },
    database: { type: "string" },
    port: { type: "string", default: "18190" },
    format: { type: "string", default: "json" },
  },
});
const ROWS = Number(values.rows);
const db = await freshDatabase(values.database, "bench_price_upload");
const env = {
  DATABASE_URL: db.url,
  PORT: values.port,
  LOG_LEVEL: "warn",
  SWITCHBOARD_THREADS: process.env.SWITCHBOARD_THREADS ?? "2",
};
const base = `http://127.0.0.1:${values.port}`;
const server = await startServer("start", env);
const operator = JSON.parse(
  cli(env, "accounts", "create", "--username", "ops", "--password", "ops-password-1", "--operator", "--json"),
);

/** ROWS distinct rows: sms, route T, prefixes 91 followed by 6 digits. */
function card(round) {
  const rows = [];
  for (let i = 0; i < ROWS; i++) {
    rows.push({
      channel: "sms",
      route: "T",
      prefix: `91${String(700000 + i)}`,
      price: Number(((round % 7) / 10 + 0.1).toFixed(3)),
    });
  }
  if (values.format === "csv") {
    return ["channel,route,prefix,price", ...rows.map((r) => `${r.channel},${r.route},${r.prefix},${r.price}`)].join(
      "\n",
    );
  }
  return JSON.stringify({ rows });
}

const put = async (body) => {
  const started = performance.now();
  const answer = await fetch(`${base}/admin/api/price-cards/bigapi`, {
    method: "PUT",
    headers: {
      authorization: `Bearer ${operator.api_key}`,
      "content-type": values.format === "csv" ? "text/csv" : "application/json",
    },
    body,
  });
  if (!answer.ok) throw new Error(`PUT answered ${answer.status}: ${await answer.text()}`);
  return performance.now() - started;
};

/** Polls `url` one request after another until `done()`; answers each request's latency (ms). */
async function probe(url, headers, done) {
  const times = [];
  while (!done()) {
    const started = performance.now();
    const answer = await fetch(url, { headers });
    await answer.arrayBuffer();
    times.push(performance.now() - started);
  }
  return times;
}

console.log(machine());
console.log(
  `${db.url.startsWith("sqlite:") ? "SQLite" : "PostgreSQL"}, ${ROWS} rows as ${values.format}, SWITCHBOARD_THREADS=${env.SWITCHBOARD_THREADS}`,
);
await put(card(0));
const summary = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  const body = card(round);
  let finished = false;
  const probes = Promise.all([
    probe(`${base}/healthz`, {}, () => finished),
    probe(`${base}/api/v2/balance`, { authorization: `Bearer ${server.demoKey}` }, () => finished),
  ]);
  const took = await put(body).finally(() => {
    finished = true;
  });
  const [health, balance] = await probes;
  const worst = (xs) => Math.max(...xs).toFixed(0);
  const line = {
    put_ms: Math.round(took),
    healthz_max_ms: Number(worst(health)),
    healthz_median_ms: Number(median(health).toFixed(1)),
    balance_max_ms: Number(worst(balance)),
    probes: health.length + balance.length,
  };
  summary.push(line);
  console.log(`round ${round}: ${JSON.stringify(line)}`);
}
server.child.kill("SIGTERM");
await db.cleanup();
process.exit(0);
