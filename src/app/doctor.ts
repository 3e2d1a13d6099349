// `switchboard doctor`: checks what a deployment of several machines depends on, from the
// machine it runs on, without changing anything: the configuration, the database (reachable,
// migrations applied or pending, its clock against this machine's), the processes running
// against it (their heartbeats, each one's clock against the database's), Redis (answers,
// its clock) and every configured SMS carrier (its address accepts a connection; what the
// workers last saw). Each check is ok, warn or fail; any fail makes the exit code 1.
import net from "node:net";
import { sql } from "kysely";
import { type Config, ConfigError, loadConfig } from "../base/runtime/config.js";
import { carriersFileVariables, environmentWarnings } from "../base/runtime/setting-names.js";
import { MIGRATION_NAMES, newerSchemaMessage, unknownMigrations } from "../base/store/migrations/index.js";
import { serverKeepsStatistics } from "../base/store/postgres-statistics.js";
import { PAGE_SIZE } from "../base/store/sqlite-store.js";
import { openStore, type Store } from "../base/store/store.js";
import { connectorHealthRows, enabledCarrierConfigs } from "../delivery/carriers/catalog.js";
import { readCarriersFile } from "../delivery/carriers/config-file.js";
import { databaseNowSql, HEARTBEAT_INTERVAL_MS } from "./heartbeat.js";
import { startWarnings } from "./start-warnings.js";

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

export interface DoctorReport {
  ok: boolean;
  checks: Check[];
}

/** A clock this far from the database's is reported; twice this fails (leases are 15 s, schedules to the second). */
export const SKEW_WARN_MS = 1_000;
export const SKEW_FAIL_MS = 5_000;
const TIMEOUT_MS = 3_000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

function message(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return message(error.errors[0]);
  if (error instanceof Error) return error.message || (error as { code?: string }).code || error.name;
  return String(error);
}

function skewStatus(ms: number): CheckStatus {
  const size = Math.abs(ms);
  return size >= SKEW_FAIL_MS ? "fail" : size >= SKEW_WARN_MS ? "warn" : "ok";
}

function signed(ms: number): string {
  return `${ms >= 0 ? "+" : "−"}${Math.abs(Math.round(ms))} ms`;
}

/** A URL with its password replaced, for printing. */
function hidePassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Opens a TCP connection to host:port and closes it: resolves with the milliseconds it took. */
function connectTcp(host: string, port: number, timeoutMs = TIMEOUT_MS): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no connection within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once("connect", () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(performance.now() - started);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

export async function runDoctor(env: NodeJS.ProcessEnv = process.env): Promise<DoctorReport> {
  const checks: Check[] = [];
  const add = (name: string, status: CheckStatus, detail: string) => checks.push({ name, status, detail });
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    add("configuration", "fail", error.problems.join("; "));
    return { ok: false, checks };
  }
  const where =
    config.database.engine === "postgres"
      ? `PostgreSQL ${hidePassword(config.database.url)}`
      : `SQLite ${config.database.file}`;
  const redis = config.redisUrl
    ? `Redis ${hidePassword(config.redisUrl)}${config.redisRequired ? " (required)" : ""}`
    : "no Redis";
  add("configuration", "ok", `${where}; ${redis}; carriers file ${config.carriersFile ?? "none"}`);
  environmentCheck(env, config, add);
  indiaCheck(config, add);

  const store = await databaseChecks(config, add);
  try {
    await redisCheck(config, add);
    await carrierChecks(config, store, add);
  } finally {
    await store?.close().catch(() => undefined);
  }
  return { ok: checks.every((check) => check.status !== "fail"), checks };
}

type Add = (name: string, status: CheckStatus, detail: string) => void;

/** Names that look like a setting but are not one, and an empty guard: what each start warns of too. */
function environmentCheck(env: NodeJS.ProcessEnv, config: Config, add: Add): void {
  const warnings = environmentWarnings(env, carriersFileVariables(config.carriersFile));
  if (warnings.length > 0) add("environment", "warn", warnings.join("\n"));
  else add("environment", "ok", "every variable named like a setting is one");
}

/**
 * The DLT settings whose defaults let through SMS that Indian operators drop: what a start warns
 * of (start-warnings.ts), for every role, and DLT_TEMPLATES_ALL_ROUTES as it stands. Never fails:
 * a gateway that sends no Indian traffic needs none of them.
 */
function indiaCheck(config: Config, add: Add): void {
  const warnings = startWarnings(config, ["api", "worker"]);
  const templates = `DLT_TEMPLATES_ALL_ROUTES ${config.dlt.templatesAllRoutes ? "on: promotional SMS need an approved template too" : "off: promotional SMS need a template only when a send names one"}`;
  if (warnings.length > 0) add("india", "warn", [...warnings, templates].join("\n"));
  else add("india", "ok", `PROMOTIONAL_HEADER ${config.dlt.promotionalHeader}; DLT_CHAIN_REQUIRED on; ${templates}`);
}

/**
 * A SQLite database's page size against the one new databases get: an older database keeps its
 * own, and writes more WAL per message (docs/decisions/0136-smaller-sqlite-pages.md).
 */
export function pageSizeCheck(size: number): [CheckStatus, string] {
  if (size === PAGE_SIZE) return ["ok", `${size} bytes`];
  return [
    "warn",
    `${size} bytes, not ${PAGE_SIZE}: each message writes more WAL (a third more at 4096); with every process stopped, sqlite3 FILE 'pragma journal_mode = delete; pragma page_size = ${PAGE_SIZE}; vacuum; pragma journal_mode = wal' rebuilds it`,
  ];
}

/** Database, migrations, clock and processes; resolves with the open store (undefined when unreachable). */
async function databaseChecks(config: Config, add: Add): Promise<Store | undefined> {
  let store: Store | undefined;
  try {
    store = await openStore(
      config.database,
      config.database.engine === "sqlite" ? { sqliteSynchronous: config.sqliteSynchronous } : { pgPoolSize: 2 },
    );
    const started = performance.now();
    const version =
      store.engine === "postgres"
        ? (
            await withTimeout(
              sql<{ v: string }>`select current_setting('server_version') as v`.execute(store.db),
              TIMEOUT_MS,
              "database",
            )
          ).rows[0]?.v
        : (await sql<{ v: string }>`select sqlite_version() as v`.execute(store.db)).rows[0]?.v;
    const roundTrip = performance.now() - started;
    add(
      "database",
      "ok",
      `${store.engine === "postgres" ? "PostgreSQL" : "SQLite"} ${version ?? "?"}, ${roundTrip.toFixed(0)} ms to answer`,
    );
  } catch (error) {
    add("database", "fail", `cannot reach the database: ${message(error)}`);
    await store?.close().catch(() => undefined);
    return undefined;
  }

  // Migrations: what this version knows against what the database has applied (nothing is run).
  const known = MIGRATION_NAMES;
  const applied = await sql<{ name: string }>`select name from schema_migrations`
    .execute(store.db)
    .then((result) => result.rows.map((row) => row.name))
    .catch(() => undefined);
  const pending = known.filter((name) => !applied?.includes(name));
  const unknown = unknownMigrations(applied ?? []);
  if (applied === undefined) {
    add("migrations", "fail", "the database has no Switchboard schema: run `switchboard migrate`");
  } else if (unknown.length > 0) {
    // The words every process of this version refuses to start with (decision 0180).
    add("migrations", "fail", newerSchemaMessage(unknown));
  } else if (pending.length > 0) {
    add(
      "migrations",
      "fail",
      `${pending.length} pending (${pending.join(", ")}): run \`switchboard migrate\` (every process also migrates as it starts)`,
    );
  } else {
    add("migrations", "ok", `${applied.length} applied, none pending`);
  }

  // This machine's clock against the database's, read at the middle of the round trip.
  if (store.engine === "postgres") {
    const before = Date.now();
    const row = (await sql<{ now: number }>`select ${databaseNowSql(store)} as now`.execute(store.db)).rows[0];
    const after = Date.now();
    const skew = (before + after) / 2 - Number(row?.now);
    add(
      "clock",
      skewStatus(skew),
      `this machine is ${signed(skew)} from the database's clock (round trip ${after - before} ms)`,
    );
  } else {
    add("clock", "ok", "SQLite: the database's clock is this machine's");
  }

  if (store.engine === "sqlite") {
    const size = (await sql<{ page_size: number }>`pragma page_size`.execute(store.db)).rows[0]?.page_size;
    add("page size", ...pageSizeCheck(Number(size)));
  }

  // Autovacuum: without it nothing removes the dead rows every update leaves, and nothing
  // analyzes the tables but the workers' own look (store/postgres-statistics.ts).
  if (store.engine === "postgres") {
    if (await serverKeepsStatistics(store.db)) add("autovacuum", "ok", "on");
    else
      add(
        "autovacuum",
        "warn",
        "off (or track_counts off): the workers analyze the tables that change, but nothing vacuums them; their dead rows pile up until autovacuum is turned on",
      );
  }

  // The processes that beat recently, and each one's clock against the database's.
  const dbNow = Number(
    (await sql<{ now: number }>`select ${databaseNowSql(store)} as now`.execute(store.db)).rows[0]?.now,
  );
  const beats = await store.db
    .selectFrom("process_heartbeats")
    .selectAll()
    .orderBy("role")
    .orderBy("host")
    .execute()
    .catch(() => []);
  const live = beats.filter((beat) => dbNow - beat.beat_db <= HEARTBEAT_INTERVAL_MS * 3);
  const gone = beats.length - live.length;
  if (live.length === 0) {
    add("processes", "warn", `none running against this database${gone ? ` (${gone} stopped beating)` : ""}`);
  } else {
    let worst = 0;
    const lines = live.map((beat) => {
      const skew = beat.beat_local - beat.beat_db;
      if (Math.abs(skew) > Math.abs(worst)) worst = skew;
      return `${beat.role}@${beat.host} pid ${beat.pid} v${beat.version} ${beat.url} clock ${signed(skew)}`;
    });
    const status = skewStatus(worst);
    const counts = ["start", "api", "worker"]
      .map((role) => [role, live.filter((beat) => beat.role === role).length] as const)
      .filter(([, n]) => n > 0)
      .map(([role, n]) => `${n} ${role}`)
      .join(", ");
    add(
      "processes",
      status,
      `${counts}; largest clock skew ${signed(worst)}${gone ? `; ${gone} stopped beating` : ""}\n${lines.join("\n")}`,
    );
    if (live.some((beat) => beat.role === "worker" || beat.role === "start") === false) {
      add("workers", "warn", "no worker or start process is running: accepted messages wait in the queue");
    }
  }
  return store;
}

async function redisCheck(config: Config, add: Add): Promise<void> {
  if (!config.redisUrl) {
    add("redis", "ok", "not configured: each API process counts rate limits in its own memory");
    return;
  }
  const { createClient } = await import("redis");
  const client = createClient({
    url: config.redisUrl,
    socket: { connectTimeout: TIMEOUT_MS, reconnectStrategy: false },
  });
  client.on("error", () => undefined);
  const down = config.redisRequired ? "fail" : "warn";
  try {
    await withTimeout(client.connect(), TIMEOUT_MS, "Redis");
    const started = performance.now();
    await withTimeout(client.ping(), TIMEOUT_MS, "Redis");
    const ping = performance.now() - started;
    const before = Date.now();
    const [seconds, micros] = await withTimeout(client.time(), TIMEOUT_MS, "Redis");
    const after = Date.now();
    const skew = (before + after) / 2 - (Number(seconds) * 1000 + Number(micros) / 1000);
    const status = skewStatus(skew) === "ok" ? "ok" : "warn";
    add("redis", status, `answers PING in ${ping.toFixed(0)} ms; this machine is ${signed(skew)} from its clock`);
  } catch (error) {
    add(
      "redis",
      down,
      `cannot reach ${hidePassword(config.redisUrl)}: ${message(error)}${config.redisRequired ? "" : " (optional: rate limits are counted per process meanwhile)"}`,
    );
  } finally {
    try {
      if (client.isOpen) client.destroy();
    } catch {
      // already closed
    }
  }
}

interface Target {
  name: string;
  type: string;
  host: string;
  port: number;
}

function targetOf(name: string, definition: Record<string, unknown>): Target | string {
  if (definition.type === "smpp") {
    return { name, type: "smpp", host: String(definition.host), port: Number(definition.port) };
  }
  if (definition.type === "http-sms" && typeof definition.url === "string") {
    // Placeholders never stand in the scheme, host or port (definitions.ts refuses that).
    const url = new URL(definition.url.replace(/\{[a-z_]+\}/gi, "x"));
    const port = url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
    return { name, type: "http-sms", host: url.hostname.replace(/^\[|\]$/g, ""), port };
  }
  return `unknown type ${String(definition.type)}`;
}

async function carrierChecks(config: Config, store: Store | undefined, add: Add): Promise<void> {
  const definitions = new Map<string, Record<string, unknown>>();
  if (store) {
    const rows = await enabledCarrierConfigs(store.db).catch(() => []);
    for (const row of rows) definitions.set(row.name, JSON.parse(row.config) as Record<string, unknown>);
  }
  if (config.carriersFile) {
    try {
      const document = await readCarriersFile(config.carriersFile);
      for (const connector of document.connectors ?? []) {
        const definition = connector as Record<string, unknown>;
        if (typeof definition.name === "string") definitions.set(definition.name, definition);
      }
    } catch (error) {
      add("carriers file", "fail", message(error));
    }
  }
  if (definitions.size === 0) {
    add("carriers", "ok", "none configured: SMS goes to the simulated carrier");
    return;
  }
  const health = store ? await connectorHealthRows(store.db).catch(() => []) : [];
  await Promise.all(
    [...definitions].map(async ([name, definition]) => {
      const seen = health
        .filter((row) => row.connector === name)
        .map((row) => `${row.worker} saw it ${row.state}`)
        .join(", ");
      const target = targetOf(name, definition);
      if (typeof target === "string") {
        add(`carrier ${name}`, "warn", target);
        return;
      }
      const address = `${target.type} ${target.host}:${target.port}`;
      try {
        const ms = await connectTcp(target.host, target.port);
        add(`carrier ${name}`, "ok", `${address} accepts connections (${ms.toFixed(0)} ms)${seen ? `; ${seen}` : ""}`);
      } catch (error) {
        add(`carrier ${name}`, "fail", `${address}: ${message(error)}${seen ? `; ${seen}` : ""}`);
      }
    }),
  );
}

/** The report as text: one line per check (detail lines indented under it). */
export function formatReport(report: DoctorReport): string {
  const width = Math.max(...report.checks.map((check) => check.name.length));
  const lines = report.checks.map((check) => {
    const [first, ...rest] = check.detail.split("\n");
    const head = `${check.status.padEnd(4)}  ${check.name.padEnd(width)}  ${first}`;
    return [head, ...rest.map((line) => `${" ".repeat(width + 8)}${line}`)].join("\n");
  });
  const failed = report.checks.filter((check) => check.status === "fail").length;
  const warned = report.checks.filter((check) => check.status === "warn").length;
  lines.push(
    failed > 0 ? `${failed} check(s) failed` : `all checks passed${warned > 0 ? ` (${warned} warning(s))` : ""}`,
  );
  return lines.join("\n");
}
