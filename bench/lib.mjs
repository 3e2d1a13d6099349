// Shared pieces of the benchmarks: start a real gateway process on a fresh database, read the
// demo credentials it prints, start the loopback SMSC and route SMS to it, and wait for conditions.
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import BetterSqlite3 from "better-sqlite3";
import pg from "pg";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
// BENCH_UNBUNDLED=1 runs tsc's dist/app instead of the bundle, so that a CPU profile names each
// source file (the bundle's chunks hold many); start-up is slower and `start` has no early thread.
// Read at each spawn, so that a script may set it after importing this module.
const bin = () =>
  process.env.BENCH_UNBUNDLED === "1"
    ? path.join(root, "dist", "app", "cli", "cli.js")
    : path.join(root, "bin", "switchboard.js");

export function freshSqliteUrl() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-bench-"));
  return {
    url: `sqlite:${path.join(dir, "bench.db")}`,
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh database: a SQLite file, or with `postgresUrl` a schema of its own (`schemaPrefix` and
 * random hex) in that PostgreSQL database. `query` runs named SQL texts and answers their rows by
 * name; `cleanup` removes the file or drops the schema.
 */
/**
 * Makes the SQLite file of `sqliteUrl` with pages of `pageSize` bytes (WAL mode) before a gateway
 * opens it: the gateway sets the page size of a new database only, so this stands for a
 * database made before (`--page-size` of storage-floor and writes-per-message).
 */
export function presetPageSize(sqliteUrl, pageSize) {
  const made = new BetterSqlite3(sqliteUrl.slice("sqlite:".length));
  made.pragma(`page_size = ${Number(pageSize)}`);
  made.pragma("journal_mode = WAL");
  made.close();
}

export async function freshDatabase(postgresUrl, schemaPrefix) {
  if (!postgresUrl) {
    const sqlite = freshSqliteUrl();
    const file = sqlite.url.slice("sqlite:".length);
    return {
      url: sqlite.url,
      query: async (texts) => {
        const raw = new BetterSqlite3(file, { readonly: true });
        const rows = Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, raw.prepare(text).all()]));
        raw.close();
        return rows;
      },
      cleanup: async () => sqlite.cleanup(),
      ownCpu: async () => ({ sample: async () => undefined, seconds: async () => 0 }),
    };
  }
  const schema = `${schemaPrefix}_${randomBytes(4).toString("hex")}`;
  const url = new URL(postgresUrl);
  // BENCH_PG_OPTIONS adds settings to the gateway's sessions (e.g. "-c
  // session_preload_libraries=auto_explain …", to see the plans); the application name is the
  // schema's, so that ownCpu finds this run's backends.
  url.searchParams.set("options", `-c search_path=${schema} ${process.env.BENCH_PG_OPTIONS ?? ""}`.trim());
  url.searchParams.set("application_name", schema);
  const query = async (connectionString, texts) => {
    const client = new pg.Client({ connectionString });
    await client.connect();
    try {
      const rows = {};
      for (const [key, text] of Object.entries(texts)) rows[key] = (await client.query(text)).rows;
      return rows;
    } finally {
      await client.end();
    }
  };
  await query(postgresUrl, { create: `create schema ${schema}` });
  /**
   * The CPU of this run's backends and of the server's own processes (WAL writer, checkpointer…)
   * from now on, where postgresCpuSeconds counts every postgres process on the machine. `sample`
   * (every second) finds the backends opened meanwhile.
   */
  const ownCpu = async () => {
    const admin = new pg.Client({ connectionString: postgresUrl, application_name: `${schema}-admin` });
    await admin.connect();
    const first = new Map();
    const last = new Map();
    const sample = async () => {
      const { rows } = await admin.query(
        `select pid from pg_stat_activity
          where application_name = $1 or backend_type not in ('client backend', 'walsender')`,
        [schema],
      );
      for (const { pid } of rows) {
        try {
          const seconds = cpuSeconds(pid);
          if (!first.has(pid)) first.set(pid, seconds);
          last.set(pid, seconds);
        } catch {
          // The process ended while we looked.
        }
      }
    };
    await sample();
    return {
      sample,
      seconds: async () => {
        await sample();
        await admin.end();
        return [...last].reduce((total, [pid, seconds]) => total + seconds - first.get(pid), 0);
      },
    };
  };
  return {
    url: url.toString(),
    ownCpu,
    query: (texts) => query(url.toString(), texts),
    cleanup: () => query(postgresUrl, { drop: `drop schema ${schema} cascade` }),
  };
}

/**
 * The settings of a send bench's `switchboard start` on `databaseUrl` and `port`: no legacy
 * throttle, every commit synced, the simulated carriers answering in 200 ms and never failing,
 * warnings only in the log.
 */
export function sendBenchEnv(databaseUrl, port) {
  return {
    LEGACY_THROTTLE_PER_SECOND: "0",
    SQLITE_SYNCHRONOUS: "FULL",
    DATABASE_URL: databaseUrl,
    PORT: port,
    LOG_LEVEL: "warn",
    SIMULATOR_LATENCY_MS: "200",
    SIMULATOR_FAILURE_RATE: "0",
  };
}

/** Settings given in BENCH_SWITCHBOARD_ENV (URL-encoded, e.g. SWITCHBOARD_THREADS=1): over a bench's own. */
export function benchEnvOverrides() {
  return process.env.BENCH_SWITCHBOARD_ENV
    ? Object.fromEntries(new URLSearchParams(process.env.BENCH_SWITCHBOARD_ENV))
    : {};
}

export function cli(env, ...args) {
  const result = spawnSync(process.execPath, [bin(), ...args], { env: { ...process.env, ...env }, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`switchboard ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/**
 * Starts `switchboard <role>` and waits until it serves /healthz (the API roles; up to
 * BENCH_START_TIMEOUT_MS, 30 s, which a loaded machine may need raised) or a moment has passed
 * (worker). Resolves with the process and the demo key printed on first start.
 */
export async function startServer(role, env) {
  const child = spawn(
    process.execPath,
    [...(process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? []), bin(), role],
    { env: { SMPP_SERVER_PORT: "0", ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  let exited;
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  child.on("exit", (code) => {
    exited = code;
  });
  process.on("exit", () => child.kill("SIGKILL"));
  const port = env.PORT;
  await waitFor(
    async () => {
      if (exited !== undefined) throw new Error(`switchboard ${role} exited with ${exited}: ${out}`);
      if (role === "worker") return true;
      if (role === "start" && env.EXPECT_BANNER !== "0" && !out.includes("These are shown once")) return false;
      try {
        return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok;
      } catch {
        return false;
      }
    },
    // A loaded machine (other work beside the bench) may need longer: BENCH_START_TIMEOUT_MS.
    { timeoutMs: Number(process.env.BENCH_START_TIMEOUT_MS ?? 30_000), intervalMs: 100 },
  );
  const key = /Demo account[\s\S]*?api key:\s+(\S+)/.exec(out)?.[1];
  return { child, demoKey: key, output: () => out };
}

export async function waitFor(check, { timeoutMs = 120_000, intervalMs = 250 } = {}) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * A process's /metrics text. With METRICS_TOKEN in the environment (the servers started here
 * inherit it, and then require it) the request carries it as the bearer.
 */
export async function scrapeMetrics(url) {
  const token = process.env.METRICS_TOKEN?.trim();
  const response = await fetch(`${url}/metrics`, token ? { headers: { authorization: `Bearer ${token}` } } : {});
  if (!response.ok) throw new Error(`${url}/metrics answered ${response.status}: ${await response.text()}`);
  return response.text();
}

export async function metric(url, name, labels = "") {
  const text = await scrapeMetrics(url);
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) {
      if (labels && !line.includes(labels)) continue;
      total += Number(line.slice(line.lastIndexOf(" ") + 1));
    }
  }
  return total;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** "min–max" with `digits` decimals, for a line of figures. */
export function range(xs, digits = 3) {
  return `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
}

export function machine() {
  return `${os.cpus().length} × ${os.cpus()[0]?.model ?? "cpu"}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

/** utime + stime of a process in seconds (Linux). */
export function cpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of every process named postgres on this machine (the server and its backends). */
export function postgresCpuSeconds() {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, "utf8").trim() === "postgres") total += cpuSeconds(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return total;
}

/** Starts bench/smsc.mjs (a loopback SMSC) on a free port with `args`, and follows its JSON counters. */
export async function startSmsc(args) {
  const child = spawn(process.execPath, [path.join(root, "bench", "smsc.mjs"), "--port", "0", "--json", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  process.on("exit", () => child.kill("SIGKILL"));
  let port = 0;
  let last = { binds: 0, submits: 0, receiptsAcked: 0, receiptsRefused: 0, t: 0 };
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      const parsed = JSON.parse(line);
      if (parsed.listening) port = parsed.listening;
      else last = parsed;
    }
  });
  await waitFor(() => port > 0, { timeoutMs: 10_000, intervalMs: 20 });
  return { child, port, last: () => last };
}

/**
 * bench/smsc.mjs (system id and password "bench", each part's DELIVRD receipt after
 * `receiptDelayMs`) and a carriers file whose only SMS route goes to the `smpp` connector
 * `bench-smsc`, `connections` binds of `window` bound to it; `cleanup` removes the file.
 */
export async function startSmscRoute({ connections, window, receiptDelayMs }) {
  const smsc = await startSmsc([
    "--system-id",
    "bench",
    "--password",
    "bench",
    "--receipt-delay-ms",
    String(receiptDelayMs),
  ]);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-bench-carriers-"));
  const carriersFile = path.join(dir, "carriers.json");
  fs.writeFileSync(
    carriersFile,
    JSON.stringify({
      connectors: [
        {
          name: "bench-smsc",
          type: "smpp",
          host: "127.0.0.1",
          port: smsc.port,
          system_id: "bench",
          password: "bench",
          connections,
          window,
        },
      ],
      routes: [{ route: "*", prefix: "", connectors: [{ name: "bench-smsc", weight: 1 }] }],
    }),
  );
  return { smsc, carriersFile, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * `switchboard start` on port `port` and a fresh database (`database`: a PostgreSQL URL whose
 * schema is named from `schemaPrefix`; SQLite, synchronous=FULL, without one) whose only SMS route
 * is startSmscRoute's, the demo account holding 100,000,000 SMS credits; `env` adds to the
 * gateway's settings. Resolves once the connector's binds are up; `stop` ends the gateway and the
 * SMSC and removes the database and the carriers file.
 */
export async function startGatewayOnSmsc({ port, database, schemaPrefix, connections, window, receiptDelayMs, env }) {
  const route = await startSmscRoute({ connections, window, receiptDelayMs });
  const db = await freshDatabase(database, schemaPrefix);
  const settings = {
    SQLITE_SYNCHRONOUS: process.env.SQLITE_SYNCHRONOUS ?? "FULL",
    DATABASE_URL: db.url,
    PORT: port,
    LOG_LEVEL: "warn",
    SWITCHBOARD_CARRIERS_FILE: route.carriersFile,
    ...env,
  };
  const server = await startServer("start", settings);
  cli(settings, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
  await waitFor(() => route.smsc.last().binds >= connections, { timeoutMs: 15_000, intervalMs: 100 });
  const stop = async () => {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.on("exit", resolve));
    route.smsc.child.kill("SIGTERM");
    await db.cleanup();
    route.cleanup();
  };
  return { server, smsc: route.smsc, db, env: settings, stop };
}

/**
 * A TCP proxy in front of PostgreSQL that holds every chunk `ms` in each direction (a database
 * on another machine: 1 ms each way is a round trip between two zones of a cloud region). Node's
 * timers count whole milliseconds; chunks of one direction leave in the order they came. It runs
 * in a process of its own: the benchmarks' CLI calls (spawnSync) block this one.
 */
export async function delayProxy(databaseUrl, ms) {
  const child = spawn(
    process.execPath,
    [path.join(path.dirname(fileURLToPath(import.meta.url)), "delay-proxy.mjs"), databaseUrl, String(ms)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  const port = await new Promise((resolve, reject) => {
    child.stdout.once("data", (chunk) => resolve(Number(String(chunk).trim())));
    child.once("exit", (code) => reject(new Error(`delay proxy exited with ${code}`)));
  });
  const url = new URL(databaseUrl);
  url.hostname = "127.0.0.1";
  url.port = String(port);
  return { url: url.href, close: async () => void child.kill() };
}

/** CPU seconds of each thread of a process, by thread id, with its name. */
export function threadCpu(pid) {
  const out = new Map();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(tid, { name, cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}
