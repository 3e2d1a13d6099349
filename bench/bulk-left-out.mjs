// What writing the recipients a bulk call leaves out costs its acceptance (decision 0159): a
// `switchboard start` on a fresh database takes --calls bulk calls of --recipients numbers, --dnd
// of them on the DND registry (promotional route: each is left out, a row of the log of refusals),
// once with the log off (REFUSAL_LOG_DAYS=0) and once on. Reports each call's time, and with the
// log on how long until every left-out number is in the log and listed by its job.
// Usage: node bench/bulk-left-out.mjs [--recipients 100000] [--dnd 0.3] [--calls 3] [--database postgres://…/db]
// (on PostgreSQL, the run with the log on uses the database db_on, empty too)
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { cli, freshSqliteUrl, machine, median, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    recipients: { type: "string", default: "100000" },
    dnd: { type: "string", default: "0.3" },
    calls: { type: "string", default: "3" },
    database: { type: "string" },
    port: { type: "string", default: "18093" },
  },
});
const total = Number(values.recipients);
const share = Number(values.dnd);
const calls = Number(values.calls);
const base = `http://127.0.0.1:${values.port}`;
const listed = Math.round(total * share);
const dndFile = path.join(os.tmpdir(), `bench-dnd-${process.pid}.csv`);
const numbers = (call) => Array.from({ length: total }, (_, i) => String(7_000_000_005 + (call * total + i) * 10));
// Every call's first `listed` numbers are on the registry.
fs.writeFileSync(
  dndFile,
  `number\n${Array.from({ length: calls }, (_, c) => numbers(c).slice(0, listed))
    .flat()
    .join("\n")}\n`,
);

async function run(logDays) {
  const url =
    values.database && logDays > 0 ? values.database.replace(/\/([^/?]+)(\?|$)/, "/$1_on$2") : values.database;
  const db = url ? { url, cleanup: () => undefined } : freshSqliteUrl();
  const env = {
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
    DATABASE_URL: db.url,
    PORT: values.port,
    LOG_LEVEL: "warn",
    REFUSAL_LOG_DAYS: String(logDays),
  };
  const server = await startServer("start", env);
  cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", String(2 * total * calls));
  cli(env, "dnd", "import", dndFile);
  const key = JSON.parse(cli(env, "keys", "create", "--account", "demo", "--rate-limit", "0", "--json")).api_key;
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const times = [];
  const jobs = [];
  const started = performance.now();
  for (let c = 0; c < calls; c++) {
    const body = JSON.stringify({
      sender_id: "PROMOTIONAL",
      route: "promotional",
      message: "Diwali sale: 30% off today",
      recipients: numbers(c),
    });
    const t0 = performance.now();
    const response = await fetch(`${base}/api/v2/sms/bulk`, { method: "POST", headers, body });
    const answer = await response.json();
    times.push(performance.now() - t0);
    if (!response.ok || answer.data.rejected_count !== listed) {
      throw new Error(`bulk call: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`);
    }
    jobs.push(answer.data.job_id);
  }
  let logged = "";
  if (logDays > 0) {
    // Every left-out number of the last job listed by its job (the first page's cursor walked).
    const count = async (job) => {
      let n = 0;
      let cursor = null;
      do {
        const page = await (
          await fetch(`${base}/api/v2/refusals?job_id=${job}&limit=500${cursor ? `&cursor=${cursor}` : ""}`, {
            headers,
          })
        ).json();
        n += page.data.length;
        cursor = page.meta.next_cursor;
      } while (cursor);
      return n;
    };
    await waitFor(async () => (await count(jobs[jobs.length - 1])) === listed, { timeoutMs: 120_000, intervalMs: 100 });
    const written = (performance.now() - started) / 1000;
    const t0 = performance.now();
    const all = await count(jobs[0]);
    const listSeconds = (performance.now() - t0) / 1000;
    const one = numbers(0)[7];
    const t1 = performance.now();
    const found = await (
      await fetch(`${base}/api/v2/refusals?recipient=%2B91%20${one.slice(0, 5)}-${one.slice(5)}`, { headers })
    ).json();
    const findMs = performance.now() - t1;
    logged =
      `; all ${calls * listed} left-out rows written ${written.toFixed(2)} s after the first call began; ` +
      `a job's ${all} listed in ${listSeconds.toFixed(2)} s (pages of 500); one number (+91 written with a dash) found ${found.data.length}× in ${findMs.toFixed(1)} ms`;
  }
  server.child.kill("SIGTERM");
  await new Promise((r) => server.child.on("exit", r));
  db.cleanup();
  return `REFUSAL_LOG_DAYS=${logDays}: calls of ${total} (${listed} DND) took ${times.map((ms) => (ms / 1000).toFixed(2)).join(", ")} s (median ${(median(times) / 1000).toFixed(2)} s)${logged}`;
}

console.log(await run(0));
console.log(await run(30));
console.log(`machine: ${machine()}; database: ${values.database ? "postgres" : "sqlite (WAL)"}`);
fs.rmSync(dndFile, { force: true });
