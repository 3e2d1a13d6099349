// Throwaway PostgreSQL and Redis servers of a test's own, on free loopback ports, that the test
// may stop, kill and start again: the shared servers on 5432 and 6379 serve every other test
// run on the machine and are never touched. PostgreSQL comes from initdb + pg_ctl (as the
// `postgres` user when the tests run as root, which initdb refuses), Redis from redis-server
// without persistence.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";

/** A free TCP port on 127.0.0.1 (bound and released: another process could take it, rarely). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function until(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function portAnswers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

// ---------------------------------------------------------------- Redis

export interface ThrowawayRedis {
  url: string;
  port: number;
  /** Kills the server (SIGKILL: nothing is saved, as configured) and waits until the port is closed. */
  stop(): Promise<void>;
  /** Starts it again on the same port, empty. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export function redisServerAvailable(): boolean {
  try {
    execFileSync("redis-server", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    const started = spawn(
      "redis-server",
      ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
      { stdio: "ignore" },
    );
    child = started;
    await until(() => portAnswers(port), 15_000, `redis-server on port ${port}`);
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once("exit", resolve));
    running.kill("SIGKILL");
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, stop, start, destroy: stop };
}

// ---------------------------------------------------------------- PostgreSQL

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:port/test */
  url: string;
  port: number;
  /** pg_ctl stop: `immediate` is a crash (no checkpoint, recovery at the next start), `fast` a clean stop. */
  stop(mode?: "immediate" | "fast"): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/** The directory of initdb and pg_ctl: the newest /usr/lib/postgresql/N/bin, else whatever PATH has. */
function postgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((name) => fs.existsSync(path.join(root, name, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0]) return path.join(root, versions[0], "bin");
  }
  try {
    const found = execFileSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).trim();
    return found ? path.dirname(found) : undefined;
  } catch {
    return undefined;
  }
}

/** initdb refuses to run as root: then the server runs as the `postgres` user, through runuser. */
function asServerUser(): { prefix: string[]; uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) throw new Error("running as root without a postgres user: initdb cannot run");
  const [, , uid, gid] = line.split(":");
  return { prefix: ["runuser", "-u", "postgres", "--"], uid: Number(uid), gid: Number(gid) };
}

export function postgresServerAvailable(): boolean {
  return postgresBin() !== undefined;
}

export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error("initdb and pg_ctl were not found (install the postgresql package)");
  const user = asServerUser();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-pg-"));
  if (user.uid !== undefined) fs.chownSync(dir, user.uid, user.gid ?? user.uid);
  const data = path.join(dir, "data");
  const port = await freePort();
  const run = (command: string, args: string[]) => {
    const [file, ...rest] = [...user.prefix, path.join(bin, command), ...args];
    execFileSync(file!, rest, { stdio: ["ignore", "ignore", "pipe"], timeout: 120_000 });
  };
  run("initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  // The socket directory is the temp dir (the default one may not be writable for us).
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`;
  const start = async () => {
    run("pg_ctl", ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "60", "start"]);
    await until(() => portAnswers(port), 15_000, `PostgreSQL on port ${port}`);
  };
  const stop = async (mode: "immediate" | "fast" = "fast") => {
    run("pg_ctl", ["-D", data, "-m", mode, "-w", "-t", "60", "stop"]);
  };
  await start();
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query("create database test");
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/test`,
    port,
    stop,
    start,
    destroy: async () => {
      await stop("immediate").catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
