import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/base/runtime/config.js";
import { describeSetting, envExample, SETTINGS, type SettingName } from "../../src/base/runtime/settings.js";
import { runCli, STACK_TRACE } from "../helpers/cli.js";

const cwd = path.join(os.tmpdir(), "switchboard-config-cwd");

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env, cwd);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).problems;
  }
  throw new Error(`loadConfig accepted ${JSON.stringify(env)}`);
}

describe("loadConfig", () => {
  it("defaults to 127.0.0.1:8080 and a SQLite file under ./data/", () => {
    const config = loadConfig({}, cwd);
    expect(config.port).toBe(8080);
    expect(config.host).toBe("127.0.0.1");
    expect(config.database).toEqual({ engine: "sqlite", file: path.join(cwd, "data", "switchboard.db") });
    expect(config.redisUrl).toBeUndefined();
    expect(config.logLevel).toBe("info");
    expect(config.sqliteSynchronous).toBe("FULL");
    expect(config.sqliteCacheMb).toBe(8);
  });

  it("treats empty variables as unset", () => {
    const config = loadConfig({ PORT: "", HOST: " ", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "" }, cwd);
    expect(config.port).toBe(8080);
    expect(config.host).toBe("127.0.0.1");
    expect(config.database).toEqual({ engine: "sqlite", file: path.join(cwd, "data", "switchboard.db") });
    expect(config.redisUrl).toBeUndefined();
  });

  it("reads every variable it is given", () => {
    const config = loadConfig(
      {
        PORT: "0",
        HOST: "0.0.0.0",
        REDIS_URL: "redis://127.0.0.1:6379",
        LOG_LEVEL: "debug",
        SQLITE_SYNCHRONOUS: "normal",
        SQLITE_CACHE_MB: "64",
        LOGIN_LOCK_THRESHOLD: "3",
        MESSAGE_VALIDITY_HOURS: "72",
      },
      cwd,
    );
    expect(config).toMatchObject({
      port: 0,
      host: "0.0.0.0",
      redisUrl: "redis://127.0.0.1:6379",
      logLevel: "debug",
      sqliteSynchronous: "NORMAL",
      sqliteCacheMb: 64,
      loginLockThreshold: 3,
      messageValidityHours: 72,
    });
    expect(loadConfig({}, cwd).messageValidityHours).toBe(48);
    for (const bad of ["0", "721", "2d"]) {
      expect(() => loadConfig({ MESSAGE_VALIDITY_HOURS: bad }, cwd)).toThrow(
        /MESSAGE_VALIDITY_HOURS must be a whole number from 1 to 720/,
      );
    }
  });

  it("makes Redis required only when asked, and only with a REDIS_URL", () => {
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379" }, cwd).redisRequired).toBe(false);
    expect(loadConfig({ REDIS_URL: "redis://127.0.0.1:6379", REDIS_REQUIRED: "1" }, cwd).redisRequired).toBe(true);
    expect(() => loadConfig({ REDIS_REQUIRED: "true" }, cwd)).toThrow(/REDIS_REQUIRED needs REDIS_URL/);
  });

  it("picks the SQLite file of a sqlite: URL, relative to the working directory", () => {
    expect(loadConfig({ DATABASE_URL: "sqlite:/var/lib/sb/main.db" }, cwd).database).toEqual({
      engine: "sqlite",
      file: "/var/lib/sb/main.db",
    });
    expect(loadConfig({ DATABASE_URL: "sqlite:///var/lib/sb/main.db" }, cwd).database).toEqual({
      engine: "sqlite",
      file: "/var/lib/sb/main.db",
    });
    expect(loadConfig({ DATABASE_URL: "sqlite:./other/file.db" }, cwd).database).toEqual({
      engine: "sqlite",
      file: path.join(cwd, "other", "file.db"),
    });
  });

  it("selects PostgreSQL for postgres:// and postgresql:// URLs", () => {
    for (const url of ["postgres://sb:secret@db.internal:5432/switchboard", "postgresql://postgres@127.0.0.1/sb"]) {
      expect(loadConfig({ DATABASE_URL: url }, cwd).database).toEqual({ engine: "postgres", url });
    }
  });

  it.each([
    ["PORT", "abc", /from 0 to 65535/],
    ["PORT", "70000", /from 0 to 65535/],
    ["PORT", "-1", /from 0 to 65535/],
    ["DATABASE_URL", "mysql://x", /sqlite:.*postgres:\/\//],
    ["DATABASE_URL", "sqlite:", /needs a file path, e\.g\. sqlite:/],
    ["REDIS_URL", "http://x", /redis:\/\/127\.0\.0\.1:6379/],
    ["LOG_LEVEL", "loud", /fatal, error, warn, info, debug, trace, silent/],
    ["SQLITE_SYNCHRONOUS", "x", /FULL or NORMAL/],
    ["SQLITE_CACHE_MB", "0", /whole number from 1 to 4096/],
    ["LOGIN_LOCK_THRESHOLD", "many", /whole number from 0 to 1000/],
    ["SIMULATOR_FAILURE_RATE", "2", /from 0 to 1/],
  ])("refuses %s=%s with a message that names it, quotes the value and says how to fix it", (name, value, fix) => {
    const problems = problemsOf({ [name]: value });
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem).toContain(name);
    expect(problem).toContain(`"${value}"`);
    expect(problem).toMatch(fix);
  });

  it("reports every bad variable at once, in one error", () => {
    const problems = problemsOf({ PORT: "abc", DATABASE_URL: "mysql://x", REDIS_URL: "http://x", LOG_LEVEL: "loud" });
    expect(problems.map((p) => p.split(" ")[0])).toEqual(["PORT", "DATABASE_URL", "REDIS_URL", "LOG_LEVEL"]);
    expect(() => loadConfig({ PORT: "abc", LOG_LEVEL: "loud" }, cwd)).toThrow(
      /^Invalid configuration:\n {2}- PORT .*\n {2}- LOG_LEVEL /,
    );
  });
});

describe("the settings table", () => {
  const names = Object.keys(SETTINGS) as SettingName[];

  it("is README's table of settings, row for row, with each default said by the table", () => {
    const lines = fs.readFileSync(path.join(import.meta.dirname, "../../README.md"), "utf8").split("\n");
    const header = lines.indexOf("| Variable | Description |");
    expect(header).toBeGreaterThan(0);
    const rows = lines.slice(header + 2, lines.indexOf("", header));
    const markdown = (text: string) => text.replace(/[<>|]/g, (c) => `\\${c}`);
    expect(rows).toEqual(names.map((name) => `| \`${name}\` | ${markdown(describeSetting(name))} |`));
  });

  it("is .env.example, setting for setting, with each description and default from the table", () => {
    const file = fs.readFileSync(path.join(import.meta.dirname, "../../.env.example"), "utf8");
    expect(file).toBe(envExample());
    expect(file.match(/^[A-Z_0-9]+=/gm)).toHaveLength(names.length);
  });

  it("keeps defaults out of the descriptions (describeSetting adds them)", () => {
    expect(names.filter((name) => /\bDefault\b|\(default\b/.test(SETTINGS[name].description))).toEqual([]);
    expect(describeSetting("MESSAGE_VALIDITY_HOURS")).toMatch(/ Default 48 \(1 to 720\)\.$/);
    expect(describeSetting("REDIS_REQUIRED")).toMatch(/ Default off\.$/);
  });

  it("quotes the description and its default in the refusal of a bad value", () => {
    expect(problemsOf({ SMPP_SERVER_WINDOW: "0" })).toEqual([
      `SMPP_SERVER_WINDOW must be a whole number from 1 to 1000 (got "0"). ${describeSetting("SMPP_SERVER_WINDOW")}`,
    ]);
  });
});

describe("switchboard start with a bad configuration", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-config-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("exits with code 2, says what to fix on stderr, and touches nothing", async () => {
    const result = await runCli(["start"], { PORT: "abc", LOG_LEVEL: "info" }, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^switchboard: Invalid configuration:\n {2}- PORT must be a whole number from 0 to 65535 \(got "abc"\)/,
    );
    expect(result.stderr).not.toMatch(STACK_TRACE);
    expect(result.stdout).toBe("");
    expect(fs.existsSync(path.join(dir, "data"))).toBe(false);
  });

  it("refuses an unknown database the same way", async () => {
    const result = await runCli(["migrate"], { DATABASE_URL: "mysql://x" }, { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL must start with sqlite: or postgres:// (got "mysql://x")');
    expect(result.stderr).not.toMatch(STACK_TRACE);
  });
});
