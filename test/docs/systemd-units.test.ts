// The systemd units of deploy/systemd as systemd reads them: two API instances on one machine,
// set up as docs/deployment.md says, get settings that let both start (their own HTTP and SMPP
// ports), and the units' comments say what the processes do.
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/base/runtime/config.js";

const read = (file: string) => fs.readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");

/** A unit's [Service] settings, in order (EnvironmentFile may come more than once). */
function serviceLines(unit: string): Array<[string, string]> {
  const lines: Array<[string, string]> = [];
  let section = "";
  for (const raw of unit.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("#") || line === "") continue;
    if (line.startsWith("[")) section = line;
    else if (section === "[Service]") {
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
});
