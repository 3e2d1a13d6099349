// Scale-out on PostgreSQL (issue 20 point 2): `switchboard api` and `switchboard worker`
// processes sharing one PostgreSQL and one Redis, in each layout given (default 1 api + 1
// worker, then 2 + 2). Each layout gets a fresh schema; the workers' only SMS route is an
// `smpp` connector bound to bench/smsc.mjs (a loopback SMSC in its own process answering every
// submit at once and sending each receipt after --receipt-delay-ms). Load: autocannon against
// every api process (the connections split between them) with an API key whose rate limit is
// counted in Redis. After --warmup seconds, measures for --seconds: accepted and delivered
// throughput (the processes' /metrics), each process's CPU per message from /proc/<pid>/stat
// (api per accepted, worker per delivered), and the PostgreSQL server's: the backends of this
// run (found by application_name in pg_stat_activity) plus the server's own processes
// (WAL writer, checkpointer, ...), which other users of the server share. Prints a table.
// Usage: npm run build && node bench/scale-out.mjs [--layouts 1x1,2x2] [--seconds 20]
//        [--warmup 5] [--connections 64] [--database postgres://postgres@127.0.0.1:5432/test]
//        [--redis redis://127.0.0.1:6379] [--binds 2] [--receipt-delay-ms 200]
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import pg from "pg";
import { cli, cpuSeconds, machine, metric, startServer, startSmscRoute, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    layouts: { type: "string", default: "1x1,2x2" },
    seconds: { type: "string", default: "20" },
    warmup: { type: "string", default: "5" },
    connections: { type: "string", default: "64" },
    database: { type: "string", default: "postgres://postgres@127.0.0.1:5432/test" },
    redis: { type: "string", default: "redis://127.0.0.1:6379" },
    binds: { type: "string", default: "2" },
    window: { type: "string", default: "50" },
    "receipt-delay-ms": { type: "string", default: "200" },
    "base-port": { type: "string", default: "18300" },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const text = "Your OTP is 482913. Do not share it with anyone.";

const {
  smsc,
  carriersFile,
  cleanup: removeCarriersFile,
} = await startSmscRoute({
  connections: Number(values.binds),
  window: Number(values.window),
  receiptDelayMs: values["receipt-delay-ms"],
});

const admin = new pg.Client({ connectionString: values.database, application_name: "sb-scale-out-driver" });
await admin.connect();

/** CPU seconds of the PostgreSQL processes that serve `app` (its backends) or the server itself. */
async function postgresCpu(app) {
  const { rows } = await admin.query(
    `select pid from pg_stat_activity
      where application_name = $1 or backend_type not in ('client backend', 'walsender')`,
    [app],
  );
  const cpu = new Map();
  for (const { pid } of rows) {
    try {
      cpu.set(pid, cpuSeconds(pid));
    } catch {
      // ended
    }
  }
  return cpu;
}
const cpuDelta = (before, after) =>
  [...after].reduce((total, [pid, seconds]) => total + seconds - (before.get(pid) ?? 0), 0);

async function runLayout(apis, workers, index) {
  const schema = `sb_scale_${randomBytes(4).toString("hex")}`;
  const app = `sb-scale-${schema}`;
  await admin.query(`create schema ${schema}`);
  const url = new URL(values.database);
  url.searchParams.set("options", `-c search_path=${schema}`);
  url.searchParams.set("application_name", app);
  const basePort = Number(values["base-port"]) + index * 20;
  const env = {
    DATABASE_URL: url.toString(),
    REDIS_URL: values.redis,
    SWITCHBOARD_CARRIERS_FILE: carriersFile,
    LOG_LEVEL: "warn",
  };
  const processes = [];
  try {
    cli(env, "migrate");
    // The first api process on the empty schema makes the demo account.
    for (let i = 0; i < apis; i++) {
      processes.push({
        role: "api",
        port: basePort + i,
        ...(await startServer("api", { ...env, PORT: String(basePort + i) })),
      });
    }
    for (let i = 0; i < workers; i++) {
      const port = basePort + 10 + i;
      processes.push({ role: "worker", port, ...(await startServer("worker", { ...env, PORT: String(port) })) });
    }
    cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
    const key = JSON.parse(
      cli(env, "keys", "create", "--account", "demo", "--rate-limit", "1000000", "--json"),
    ).api_key;
    const bindsBefore = smsc.last().binds;
    const apiUrls = processes.filter((p) => p.role === "api").map((p) => `http://127.0.0.1:${p.port}`);
    const workerUrls = processes.filter((p) => p.role === "worker").map((p) => `http://127.0.0.1:${p.port}`);
    await waitFor(async () => (await Promise.all(workerUrls.map((u) => fetch(`${u}/readyz`)))).every((r) => r.ok), {
      timeoutMs: 30_000,
    });
    await new Promise((r) => setTimeout(r, 1500)); // binds
    const request = (base) => ({
      url: `${base}/api/v2/sms/send`,
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
      body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: text }),
    });
    const probe = await fetch(request(apiUrls[0]).url, request(apiUrls[0]));
    if (!probe.ok) throw new Error(`the send is refused: ${await probe.text()}`);

    const sum = async (urls, name) => (await Promise.all(urls.map((u) => metric(u, name)))).reduce((a, b) => a + b, 0);
    const connections = Math.max(1, Math.floor(Number(values.connections) / apis));
    const loads = apiUrls.map((base) => autocannon({ ...request(base), connections, duration: warmup + seconds + 1 }));
    await new Promise((r) => setTimeout(r, warmup * 1000));
    const pids = processes.map((p) => p.child.pid);
    const before = {
      at: Date.now(),
      accepted: await sum(apiUrls, "switchboard_messages_accepted_total"),
      delivered: await sum(workerUrls, "switchboard_messages_delivered_total"),
      cpu: pids.map(cpuSeconds),
      postgres: await postgresCpu(app),
    };
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const after = {
      at: Date.now(),
      accepted: await sum(apiUrls, "switchboard_messages_accepted_total"),
      delivered: await sum(workerUrls, "switchboard_messages_delivered_total"),
      cpu: pids.map(cpuSeconds),
      postgres: await postgresCpu(app),
    };
    await Promise.all(loads);
    const elapsed = (after.at - before.at) / 1000;
    const accepted = after.accepted - before.accepted;
    const delivered = after.delivered - before.delivered;
    const postgres = cpuDelta(before.postgres, after.postgres);
    const perProcess = processes.map((p, i) => {
      const cpu = after.cpu[i] - before.cpu[i];
      const messages = p.role === "api" ? accepted / apis : delivered / workers;
      return { role: p.role, cpu, usPerMessage: (cpu * 1e6) / Math.max(1, messages), share: cpu / elapsed };
    });
    const backlog =
      (await sum(apiUrls, "switchboard_messages_accepted_total")) -
      (await sum(workerUrls, "switchboard_messages_delivered_total"));
    return {
      layout: `${apis} api + ${workers} worker`,
      binds: smsc.last().binds - bindsBefore,
      acceptedPerSecond: accepted / elapsed,
      deliveredPerSecond: delivered / elapsed,
      perProcess,
      postgresUs: (postgres * 1e6) / Math.max(1, delivered),
      postgresShare: postgres / elapsed,
      gatewayShare: perProcess.reduce((t, p) => t + p.share, 0),
      backlog,
    };
  } finally {
    await Promise.all(
      processes.map(
        (p) =>
          new Promise((resolve) => {
            p.child.once("exit", resolve);
            p.child.kill("SIGKILL");
          }),
      ),
    );
    await admin.query(`drop schema ${schema} cascade`).catch(() => undefined);
  }
}

const results = [];
for (const [index, layout] of values.layouts.split(",").entries()) {
  const [apis, workers] = layout.split("x").map(Number);
  console.error(`layout ${apis} api + ${workers} worker ...`);
  const result = await runLayout(apis, workers, index);
  results.push(result);
  console.error(JSON.stringify(result));
}
await admin.end();
smsc.child.kill("SIGKILL");
removeCarriersFile();

const us = (values) => values.map((v) => v.toFixed(0)).join(" / ");
console.log(
  `\nscale-out on ${machine()}; ${seconds} s measured after ${warmup} s of warm-up, ${values.connections} connections\n`,
);
console.log(
  "| Layout | Accepted/s | Delivered/s | api µs CPU/msg (each) | worker µs CPU/msg (each) | PostgreSQL µs CPU/msg | CPU cores used: gateway / PostgreSQL | Backlog at the end |",
);
console.log("|---|---|---|---|---|---|---|---|");
for (const r of results) {
  const api = r.perProcess.filter((p) => p.role === "api").map((p) => p.usPerMessage);
  const worker = r.perProcess.filter((p) => p.role === "worker").map((p) => p.usPerMessage);
  console.log(
    `| ${r.layout} | ${r.acceptedPerSecond.toFixed(0)} | ${r.deliveredPerSecond.toFixed(0)} | ${us(api)} | ${us(worker)} | ${r.postgresUs.toFixed(0)} | ${r.gatewayShare.toFixed(2)} / ${r.postgresShare.toFixed(2)} | ${r.backlog} |`,
  );
}
