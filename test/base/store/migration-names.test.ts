// The migrations' names (index.ts, read at every start) and their bodies (bodies.ts, loaded only
// when one is pending) must list the same migrations in the same order, and every file of
// migrations/ must be one of them.
import { readdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { migrationBodies } from "../../../src/base/store/migrations/bodies.js";
import { MIGRATION_NAMES } from "../../../src/base/store/migrations/index.js";

const folder = path.join(import.meta.dirname, "../../../src/base/store/migrations");

describe("migration names", () => {
  it("lists the bodies' migrations, in order, on both engines", () => {
    expect(Object.keys(migrationBodies("sqlite"))).toEqual(MIGRATION_NAMES);
    expect(Object.keys(migrationBodies("postgres"))).toEqual(MIGRATION_NAMES);
  });

  it("names every migration file, in ascending order", () => {
    const files = readdirSync(folder)
      .filter((file) => /^\d{4}_\w+\.ts$/.test(file))
      .map((file) => file.replace(/\.ts$/, ""));
    expect([...MIGRATION_NAMES]).toEqual(files.sort());
  });
});
