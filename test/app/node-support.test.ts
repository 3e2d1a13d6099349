// `npm ci` on the oldest Node the project supports installs without an EBADENGINE warning: every
// package the lockfile pins must accept that version (overrides in package.json pick older
// majors of the few that moved on; see CHANGELOG).
import { readFileSync } from "node:fs";
import semver from "semver";
import { describe, expect, it } from "vitest";

const root = new URL("../../", import.meta.url);
const manifest = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
const lock = JSON.parse(readFileSync(new URL("package-lock.json", root), "utf8"));

describe("supported Node versions", () => {
  const floor = semver.minVersion(manifest.engines.node);

  it("declares a floor the running Node meets", () => {
    expect(floor?.version).toBeDefined();
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
  });

  it("pins only packages whose engines accept the floor", () => {
    const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
      .filter(([, entry]) => typeof entry.engines?.node === "string")
      .filter(([, entry]) => !semver.satisfies(floor?.version ?? "", entry.engines?.node ?? "*"))
      .map(([name, entry]) => `${name} wants node ${entry.engines?.node}`);
    expect(refusing).toEqual([]);
  });
});
