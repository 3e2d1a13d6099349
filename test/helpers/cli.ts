// Runs the real `switchboard` program (bin/ → dist/, which `npm test` builds first) in child
// processes, with only the environment a test gives it, and kills whatever is left at the end.
// Operator commands run in a CLI host (cli-host.mjs): one process per test file that runs the
// built program command after command with its modules loaded once, since each spawned command
// spends a second of CPU loading them. The roles (start, api, worker) are always spawned, and
// SWITCHBOARD_TEST_CLI=spawn spawns every command, as the executable runs it.
import { type ChildProcess, fork, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll } from "vitest";

export const BIN = fileURLToPath(new URL("../../bin/switchboard.js", import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The child's environment: the test's variables only, so a developer's PORT or DATABASE_URL never leaks in. */
function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LOG_LEVEL: "warn",
    // The SMPP server's default port 2775 would be shared by every test's server: on only where a test asks.
    SMPP_SERVER_PORT: "0",
    // Promotional SMS go at every hour of the test day (gateway.ts's testConfig says why).
    PROMO_HOURS: "00:00-24:00",
    ...env,
  };
}

const running = new Set<ChildProcess>();

afterAll(() => {
  for (const child of running) child.kill("SIGKILL");
  running.clear();
});

const ROLES = new Set(["start", "api", "worker"]);
const HOST = fileURLToPath(new URL("./cli-host.mjs", import.meta.url));

interface Waiting {
  /** The host began the command: its time starts. */
  started(): void;
  done(result: CliResult): void;
  failed(error: Error): void;
}

interface Host {
  child: ChildProcess;
  waiting: Map<number, Waiting>;
  ready: Promise<void>;
}
let host: Host | undefined;
let nextRequest = 1;

function cliHost(): Host {
  if (host) return host;
  const child = fork(HOST, [], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
  running.add(child);
  const waiting = new Map<number, Waiting>();
  const current: Host = {
    child,
    waiting,
    ready: new Promise((resolve, reject) => {
      child.once("error", reject);
      child.on("message", (message: { ready?: boolean; started?: boolean; id?: number } & CliResult) => {
        if (message.ready) return resolve();
        const request = waiting.get(message.id ?? 0);
        if (message.started) return request?.started();
        waiting.delete(message.id ?? 0);
        request?.done({ code: message.code, stdout: message.stdout, stderr: message.stderr });
      });
    }),
  };
  child.on("exit", () => {
    running.delete(child);
    if (host === current) host = undefined;
    // The commands still queued in it never run: they fail now rather than at the test's time-out.
    for (const request of waiting.values()) request.failed(new Error("the CLI host ended before the command ran"));
    waiting.clear();
  });
  host = current;
  return current;
}

afterAll(() => {
  host?.child.kill("SIGKILL");
  host = undefined;
});

function runInHost(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number },
): Promise<CliResult> {
  const { child, waiting, ready } = cliHost();
  const id = nextRequest++;
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    waiting.set(id, {
      started: () => {
        timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`switchboard ${args.join(" ")} did not finish in time (CLI host).`));
          // A command that never ends leaves the host unusable: the next call starts another.
          child.kill("SIGKILL");
        }, options.timeoutMs ?? 20_000);
      },
      done: (result) => {
        clearTimeout(timer);
        resolve(result);
      },
      failed: (error) => {
        clearTimeout(timer);
        reject(error);
      },
    });
    ready
      .then(() => child.send({ id, args, env: childEnv(env), ...(options.cwd ? { cwd: options.cwd } : {}) }))
      .catch(reject);
  });
}

export function runCli(
  args: string[],
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number } = {},
): Promise<CliResult> {
  if (!ROLES.has(args[0] ?? "") && process.env.SWITCHBOARD_TEST_CLI !== "spawn") return runInHost(args, env, options);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      env: childEnv(env),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`switchboard ${args.join(" ")} did not finish in time.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs a command that must succeed and returns its stdout. */
export async function cliOk(args: string[], env: Record<string, string>): Promise<string> {
  const result = await runCli(args, env);
  if (result.code !== 0) {
    throw new Error(
      `switchboard ${args.join(" ")} exited ${result.code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
  return result.stdout;
}

export interface ServerProcess {
  /** http://127.0.0.1:port the server listens on. */
  url: string;
  pid: number;
  output(): string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Resolves with the exit code when the process ends, however it ends. */
  exited: Promise<number | null>;
}

/**
 * How long a role may take to say it is running: about 3 s alone on a slow machine (node loads
 * the app in each of its two threads), but amid the whole suite on two busy cores a start once
 * took over 20 s (test/dispatch/crash.test.ts). A start that never comes still fails.
 */
const START_TIMEOUT_MS = 45_000;

/**
 * Starts a long-running role (`start`, `api`, `worker`) on an ephemeral port and resolves once it
 * logs that it is running (its JSON log line carries the URL).
 */
export function startServer(
  role: "start" | "api" | "worker",
  env: Record<string, string>,
  options: { cwd?: string; timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, role], {
      env: childEnv({ PORT: "0", HOST: "127.0.0.1", ...env, LOG_LEVEL: "info" }),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdio: ["ignore", "pipe", "pipe"],
    });
    running.add(child);
    let output = "";
    let started = false;
    const exited = new Promise<number | null>((done) => {
      child.on("exit", (code) => {
        running.delete(child);
        done(code);
      });
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`switchboard ${role} did not start in time:\n${output}`));
    }, options.timeoutMs ?? START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk;
      if (started) return;
      const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"switchboard running"/.exec(output);
      if (!match?.[1]) return;
      started = true;
      clearTimeout(timer);
      resolve({
        url: match[1],
        pid: child.pid ?? 0,
        output: () => output,
        stop: (signal = "SIGTERM") => {
          child.kill(signal);
          return exited;
        },
        exited,
      });
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("error", reject);
    exited.then((code) => {
      if (started) return;
      clearTimeout(timer);
      reject(new Error(`switchboard ${role} exited with ${code} before it was running:\n${output}`));
    });
  });
}

/** The demo account's API key from the credentials a first start prints. */
export function demoKey(server: ServerProcess): string {
  const key = /Demo account[\s\S]*?api key:\s+(\S+)/.exec(server.output())?.[1];
  if (!key) throw new Error(`no demo key in the output:\n${server.output()}`);
  return key;
}

/** The demo template's text, which the demo account's sends must match (DLT). */
export const DEMO_TEXT = "Your OTP is 482913. Do not share it with anyone.";

/** A v2 SMS send of the demo account's text with its sender ID to `recipient`, as sent. */
export function postDemoSms(url: string, key: string, recipient = "9876543210"): Promise<Response> {
  return fetch(`${url}/api/v2/sms/send`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ sender_id: "SWBRD", recipient, message: DEMO_TEXT }),
  });
}

/** postDemoSms that must be accepted: the message id. */
export async function sendDemoSms(url: string, key: string, recipient = "9876543210"): Promise<string> {
  const response = await postDemoSms(url, key, recipient);
  const body = (await response.json()) as { data?: { message_id: string } };
  if (response.status !== 200 || !body.data)
    throw new Error(`send to ${recipient}: ${response.status} ${JSON.stringify(body)}`);
  return body.data.message_id;
}

/** A stack trace line, which an operator should never see for a mistake in their input. */
export const STACK_TRACE = /^\s+at\s/m;
