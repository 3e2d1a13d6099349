// The documentation runs as written: every ```sh block of README.md, then docs/api.md and
// docs/carriers.md, in order, in one bash session, against a gateway started as a process on
// a fresh SQLite database, as a reader on a first start would run them. Each command must
// exit 0 and answer what its comment shows (conventions: test/docs/shell-examples.ts). The
// examples run offline: loopback-only.cjs makes every other host unreachable.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BIN, type ServerProcess, startServer } from "../helpers/cli.js";
import {
  answerProblem,
  type Command,
  type Example,
  expectationOf,
  PLACEHOLDER_ASSIGNMENT,
  shellExamples,
} from "./shell-examples.js";

vi.setConfig({ testTimeout: 240_000, hookTimeout: 60_000 });

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const GUARD = fileURLToPath(new URL("./loopback-only.cjs", import.meta.url));
// carriers.md before api.md: it creates the connector that api.md's examples change.
const DOCUMENTS = ["README.md", "docs/carriers.md", "docs/api.md"];
const BASE_URL = /http:\/\/localhost:8080/g;

/** Files the examples read, as a reader would have them next to the commands. */
const FIXTURES: Record<string, string> = {
  "airtel-t.yaml": [
    "name: airtel-t",
    "type: smpp",
    "host: smsc.example.in",
    "port: 2775",
    "system_id: acme",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the CLI reads ${NAME} from the environment, as docs/carriers.md shows
    "password: ${AIRTEL_SMPP_PASSWORD}",
    "connections: 2",
    "window: 20",
    "",
  ].join("\n"),
  "invoice.pdf": "%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n",
};

/** One bash process, fed a command at a time; its variables and directory carry over, as a terminal's do. */
class ShellSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private stdout = "";
  private stderr = "";
  private count = 0;

  constructor(cwd: string, env: NodeJS.ProcessEnv) {
    this.child = spawn("bash", ["--noprofile", "--norc"], { cwd, env });
    this.child.stdout.on("data", (chunk) => {
      this.stdout += chunk;
    });
    this.child.stderr.on("data", (chunk) => {
      this.stderr += chunk;
    });
    // `npx switchboard` is the project's executable; npx itself would look the name up in the registry.
    this.child.stdin.write(
      `set -o pipefail\nnpx() { if [ "$1" = switchboard ]; then shift; node ${JSON.stringify(BIN)} "$@"; else echo "npx $1: only npx switchboard runs here" >&2; return 127; fi; }\n`,
    );
  }

  /** Runs one command (its stdin is /dev/null); resolves with its exit status and output. */
  async run(text: string, timeoutMs = 60_000): Promise<{ status: number; stdout: string; stderr: string }> {
    const marker = `__sb_done_${++this.count}_${randomBytes(4).toString("hex")}__`;
    this.stdout = "";
    this.stderr = "";
    this.child.stdin.write(`{\n${text}\n} </dev/null\nprintf '\\n${marker} %s\\n' "$?"\n`);
    const done = new RegExp(`\\n?${marker} (\\d+)\\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = done.exec(this.stdout);
      if (match) {
        return { status: Number(match[1]), stdout: this.stdout.slice(0, match.index), stderr: this.stderr };
      }
      if (Date.now() > deadline || this.child.exitCode !== null) {
        return { status: -1, stdout: this.stdout, stderr: `${this.stderr}\n(no end after ${timeoutMs} ms)` };
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  close(): void {
    this.child.kill("SIGKILL");
  }
}

describe("the documentation's shell examples", () => {
  let dir: string;
  let server: ServerProcess;
  let shell: ShellSession;
  let credentials: Record<string, string>;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-docs-"));
    for (const [name, content] of Object.entries(FIXTURES)) fs.writeFileSync(path.join(dir, name), content);
    const env = {
      DATABASE_URL: `sqlite:${path.join(dir, "switchboard.db")}`,
      NODE_OPTIONS: `--require ${GUARD}`,
    };
    server = await startServer("start", env, { cwd: dir });
    const banner = server.output();
    const field = (section: string, name: string) =>
      new RegExp(`${section}[\\s\\S]*?${name}:\\s+(\\S+)`).exec(banner)?.[1] ?? "";
    credentials = {
      KEY: field("Demo account", "api key"),
      PASSWORD: field("Demo account", "password"),
      OPERATOR_KEY: field("Operator", "api key"),
    };
    shell = new ShellSession(dir, {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: dir,
      LANG: "C.UTF-8",
      LOG_LEVEL: "warn",
      ...env,
    });
  });

  afterAll(async () => {
    shell?.close();
    await server?.stop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The command as the test runs it: the started server's URL, and the banner's credentials. */
  function prepared(command: Command): string {
    return command.text
      .replace(BASE_URL, server.url)
      .split("\n")
      .map((line) => {
        const placeholder = PLACEHOLDER_ASSIGNMENT.exec(line);
        if (!placeholder) return line;
        const value = credentials[placeholder[2]!];
        if (value === undefined) throw new Error(`placeholder ${placeholder[2]} is not one the first start prints`);
        return `${placeholder[1]}${placeholder[2]}=${value}${placeholder[4]}`;
      })
      .join("\n");
  }

  const examples: Example[] = [];
  const skipped: Example[] = [];
  for (const file of DOCUMENTS) {
    const found = shellExamples(file, fs.readFileSync(path.join(ROOT, file), "utf8"));
    examples.push(...found.run);
    skipped.push(...found.skipped);
  }

  it("finds the examples, and only a few marked no-run", () => {
    expect(examples.filter((example) => example.file === "README.md").length).toBeGreaterThan(15);
    expect(skipped.map((example) => `${example.file}:${example.line}`).length).toBeLessThanOrEqual(5);
    for (const value of Object.values(credentials)) expect(value).toMatch(/\S{12,}/);
  });

  it("runs every example in order; each command exits 0 and answers as its comment shows", async () => {
    const failures: string[] = [];
    for (const example of examples) {
      for (const command of example.commands) {
        const where = `${example.file}:${command.line}`;
        let expectation: ReturnType<typeof expectationOf>;
        try {
          expectation = expectationOf(command.comments);
        } catch (error) {
          failures.push(`${where}: its comment ${(error as Error).message}`);
          continue;
        }
        const result = await shell.run(prepared(command));
        const problem = result.status !== 0 ? `exited ${result.status}` : answerProblem(expectation, result.stdout);
        if (problem) {
          failures.push(
            `${where}: ${problem}\n  $ ${command.text.split("\n").join("\n    ")}\n  stdout: ${result.stdout.trim().slice(0, 600)}\n  stderr: ${result.stderr.trim().slice(0, 600)}`,
          );
        }
      }
    }
    expect(failures, failures.join("\n\n")).toEqual([]);
  });
});

describe("the shape an example's comment shows", () => {
  it("catches a missing key, a wrong type, an error envelope and another legacy code", () => {
    const shape = expectationOf(['{"success":true,"data":{"message_id":"q01…","credits":1,…}}']);
    expect(answerProblem(shape, '{"success":true,"data":{"message_id":"q9","credits":2,"x":1}}')).toBeUndefined();
    expect(answerProblem(shape, '{"success":true,"data":{"credits":2}}')).toBe("$.data.message_id: missing");
    expect(answerProblem(shape, '{"success":true,"data":{"message_id":7,"credits":2}}')).toMatch(/expected a string/);
    expect(answerProblem(shape, '{"success":false,"error":{"code":"not_found"}}')).toMatch(/expected true/);
    expect(answerProblem(expectationOf(["-8    (no template)"]), "-7")).toBe("expected -8");
    expect(answerProblem(expectationOf(["2_20261122_000003"]), "-7")).toBe("expected a broadcast id");
    expect(answerProblem(undefined, '{"status":"error","message":"x"}')).toBe("answered an error");
    expect(() => expectationOf(['{…,"raw":"x"}}'])).toThrow(/not JSON/);
  });
});
