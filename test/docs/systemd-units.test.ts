// The systemd units of deploy/systemd as systemd reads them: two API instances on one machine,
// set up as docs/deployment.md says, get settings that let both start (their own HTTP and SMPP
// ports), and the units' comments say what the processes do.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/base/runtime/config.js";

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

/** A unit's [Service] settings (or another section's), in order (EnvironmentFile may come more than once). */
function serviceLines(unit: string, wanted = "[Service]"): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  let section = "";
  for (const raw of unit.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || line === "") continue;
    if (line.startsWith("[")) section = line;
    else if (section === wanted) {
      const at = line.indexOf("=");
      lines.push([line.slice(0, at), line.slice(at + 1)]);
    }
  }
  return lines;
}

/** An environment file as systemd reads it: KEY=VALUE lines, comments skipped. */
function envFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || !line.includes("=")) continue;
    const at = line.indexOf("=");
    env[line.slice(0, at)] = line.slice(at + 1);
  }
  return env;
}

/**
 * The environment of instance `instance` of the API unit on a machine holding `files` (the
 * path each EnvironmentFile names, with %i expanded): Environment= first, then the files in
 * order, each overriding what came before (systemd.exec).
 */
function apiEnvironment(instance: string, files: Record<string, string>): Record<string, string> {
  const lines = serviceLines(read("deploy/systemd/switchboard-api@.service"));
  const env: Record<string, string> = {};
  for (const [key, value] of lines) {
    if (key !== "Environment") continue;
    const at = value.indexOf("=");
    env[value.slice(0, at)] = value.slice(at + 1).replaceAll("%i", instance);
  }
  for (const [key, value] of lines) {
    if (key !== "EnvironmentFile") continue;
    const optional = value.startsWith("-");
    const file = value.replace(/^-/, "").replaceAll("%i", instance);
    const text = files[file];
    if (text === undefined) {
      if (!optional) throw new Error(`${file} is missing and not optional`);
      continue;
    }
    Object.assign(env, envFile(text));
  }
  return env;
}

describe("deploy/systemd units", () => {
  it("lets two API instances on one machine, set up as docs/deployment.md says, listen on ports of their own", () => {
    const docs = read("docs/deployment.md");
    // The per-instance file the docs write for switchboard-api@8081.
    const recipe =
      /echo (\S+) \| sudo install -D -m 600 \/dev\/stdin (\/etc\/switchboard\/switchboard-api-8081\.env)/.exec(docs);
    expect(recipe, "the docs' recipe for a second API instance").not.toBeNull();
    const files = {
      "/etc/switchboard/switchboard.env": read("deploy/systemd/switchboard.env"),
      [recipe![2]!]: `${recipe![1]}\n`,
    };
    const first = loadConfig(apiEnvironment("8080", files));
    const second = loadConfig(apiEnvironment("8081", files));
    expect([first.port, second.port]).toEqual([8080, 8081]);
    expect(first.smppServer.port).toBe(2775);
    expect(second.smppServer.port).not.toBe(first.smppServer.port);
    // The per-instance file is optional: the first instance starts without one.
    expect(serviceLines(read("deploy/systemd/switchboard-api@.service"))).toContainEqual([
      "EnvironmentFile",
      "-/etc/switchboard/switchboard-api-%i.env",
    ]);
  });

  it("says what a worker leaves at its stop as it is: claimable at once, not after a lease", () => {
    const worker = read("deploy/systemd/switchboard-worker@.service");
    expect(worker).not.toMatch(/lease/i);
    expect(worker).toContain("claimable by the other workers at once");
  });

  it("tries the migrate unit again until it succeeds, and starts api and worker after it", () => {
    const migrate = read("deploy/systemd/switchboard-migrate.service");
    const service = new Map(serviceLines(migrate));
    expect(service.get("Type")).toBe("oneshot");
    // A oneshot may restart on failure (systemd 244+); `always` is refused for a oneshot.
    expect(service.get("Restart")).toBe("on-failure");
    expect(Number(service.get("RestartSec"))).toBeGreaterThan(0);
    // No start limit: a start limit would fail it for good, and every unit requiring it.
    expect(new Map(serviceLines(migrate, "[Unit]")).get("StartLimitIntervalSec")).toBe("0");
    for (const unit of ["switchboard-api@.service", "switchboard-worker@.service"]) {
      const lines = serviceLines(read(`deploy/systemd/${unit}`), "[Unit]");
      const values = (key: string) => lines.filter(([k]) => k === key).flatMap(([, v]) => v.split(/\s+/));
      expect(values("After"), unit).toContain("switchboard-migrate.service");
      expect(values("Requires"), unit).toContain("switchboard-migrate.service");
    }
    // The docs' upgrade restarts the migrate unit.
    expect(read("docs/deployment.md")).toContain("sudo systemctl restart switchboard-migrate");
  });

  it("gives the api and worker units a state directory, where a first start's credentials file can be written", () => {
    // ProtectSystem=strict leaves the file system read-only but for the database's own place;
    // a first start on PostgreSQL (no SQLite file to write beside) writes to $STATE_DIRECTORY.
    for (const unit of ["switchboard-api@.service", "switchboard-worker@.service"]) {
      const service = new Map(serviceLines(read(`deploy/systemd/${unit}`)));
      expect(service.get("ProtectSystem"), unit).toBe("strict");
      expect(service.get("StateDirectory"), unit).toBe("switchboard");
      expect(service.get("StateDirectoryMode"), unit).toBe("0700");
    }
    expect(read("docs/deployment.md")).toContain("`StateDirectory=switchboard`");
  });

  it("ships an env file that names no file the steps do not create, and lists the proxy and metrics settings", () => {
    const text = read("deploy/systemd/switchboard.env");
    const env = envFile(text);
    // Every setting it sets is valid as shipped (no file it names must exist at load).
    expect(() => loadConfig(env)).not.toThrow();
    expect(env.SWITCHBOARD_CARRIERS_FILE).toBeUndefined();
    for (const name of ["SWITCHBOARD_CARRIERS_FILE", "PUBLIC_URL", "VOICE_CALLBACK_URL", "METRICS_TOKEN"]) {
      expect(text, name).toMatch(new RegExp(`^# ${name}=`, "m"));
    }
  });

  it("passes systemd-analyze verify, where systemd is installed", (context) => {
    const analyze = spawnSync("systemd-analyze", ["--version"]);
    if (analyze.error || analyze.status !== 0) return context.skip();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-units-"));
    try {
      // The units as shipped, with this machine's node (verify checks the executable exists).
      for (const unit of ["switchboard-migrate.service", "switchboard-api@.service", "switchboard-worker@.service"]) {
        fs.writeFileSync(
          path.join(dir, unit),
          read(`deploy/systemd/${unit}`).replaceAll("/usr/bin/node", process.execPath),
        );
      }
      const instances = [
        "switchboard-migrate.service",
        "switchboard-api@8080.service",
        "switchboard-worker@9100.service",
      ];
      const result = spawnSync(
        "systemd-analyze",
        ["verify", "--man=no", ...instances.map((name) => path.join(dir, name))],
        {
          encoding: "utf8",
        },
      );
      expect(`${result.stdout}${result.stderr}`.trim()).toBe("");
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
