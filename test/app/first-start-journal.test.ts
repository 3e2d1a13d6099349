// The first start's credentials when stdout is the systemd journal (JOURNAL_STREAM names it):
// not in the log stream, but in a 0600 file beside the SQLite database (or in the working
// directory for PostgreSQL), which one log line names; the log holds no password or key.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "../domain/webhooks/receiver.js";
import { BIN } from "../helpers/cli.js";
import { createEmptyDatabase, type EmptyDatabase } from "../helpers/empty-database.js";
import { describeEnginesTogether } from "../helpers/engines.js";

describeEnginesTogether("the first start under journald", (engine) => {
  let empty: EmptyDatabase;
  let dir: string;
  beforeAll(async () => {
    empty = await createEmptyDatabase(engine);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-journal-"));
  });
  afterAll(async () => {
    await empty?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes the credentials to a 0600 file and logs its path, never the credentials", async () => {
    const logFile = path.join(dir, "journal.log");
    const out = fs.openSync(logFile, "w");
    const stat = fs.fstatSync(out, { bigint: true });
    const child = spawn(process.execPath, [BIN, "start"], {
      cwd: dir,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: process.env.HOME ?? "/tmp",
        DATABASE_URL: empty.url,
        PORT: "0",
        HOST: "127.0.0.1",
        SMPP_SERVER_PORT: "0",
        LOG_LEVEL: "info",
        JOURNAL_STREAM: `${stat.dev}:${stat.ino}`,
      },
      stdio: ["ignore", out, "pipe"],
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
    try {
      const log = () => fs.readFileSync(logFile, "utf8");
      await until(() => log().includes('"msg":"switchboard running"'), 90_000);
      const lines = log()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as { msg: string; file?: string });
      const named = lines.find((line) => line.msg.startsWith("first start: the operator's and the demo account's"));
      expect(named?.file).toBeDefined();
      const file = named!.file!;
      if (engine === "sqlite") expect(path.dirname(file)).toBe(path.dirname(empty.url.replace(/^sqlite:/, "")));
      else expect(path.dirname(file)).toBe(fs.realpathSync(dir));
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      const banner = fs.readFileSync(file, "utf8");
      expect(banner).toContain("Switchboard first start");
      const key = /Demo account[\s\S]*?api key:\s+(sb_\S+)/.exec(banner)?.[1];
      expect(key).toBeDefined();
      // Nothing of the credentials in the log stream.
      expect(log()).not.toContain(key!);
      expect(log()).not.toContain("password:");
      expect(log()).not.toContain("Switchboard first start");
    } finally {
      child.kill("SIGTERM");
      await exited;
      fs.closeSync(out);
    }
  }, 120_000);
});
