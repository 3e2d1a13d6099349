// `npm ci` on the oldest Node the project supports installs without an EBADENGINE warning: every
// package the lockfile pins must accept that version (overrides in package.json pick older
// majors of the few that moved on; see CHANGELOG).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

/** The two functions of semver this test uses (typed here: the package ships no types of its own). */
const semver = createRequire(import.meta.url)("semver") as {
  minVersion(range: string): { version: string } | null;
  satisfies(version: string, range: string): boolean;
};

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
