// Holds the layering of src/ (test/structure/rules.ts): no import circle between files or between
// folders, no import from a lower tier to a higher one, no import past a folder's index.ts.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { folderOf, readImportGraph, tierOf, violations } from "./import-graph.js";
import { ALLOWED } from "./rules.js";

const root = path.resolve(import.meta.dirname, "../..");

describe("the structure of src/", () => {
  const graph = readImportGraph(root);
  const found = violations(graph, root);

  it("reads the imports of every source file", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].reduce((sum, targets) => sum + targets.size, 0)).toBeGreaterThan(500);
  });

  it("places every top-level folder of src/ in a tier (a new folder is added to TIERS in rules.ts)", () => {
    const unplaced = [...new Set([...graph.keys()].map(folderOf))].filter((f) => f !== "" && tierOf(f) < 0);
    expect(unplaced).toEqual([]);
  });

  it("finds a circle, an upward import and an import past an index.ts", () => {
    const made = new Map([
      ["src/core/a.ts", new Set(["src/core/b.ts", "src/app/server.ts"])],
      ["src/core/b.ts", new Set(["src/core/a.ts", "src/sms/policy.ts"])],
      ["src/app/server.ts", new Set(["src/sms/index.ts", "src/core/b.ts"])],
      ["src/sms/index.ts", new Set<string>()],
      ["src/sms/policy.ts", new Set<string>()],
    ]);
    expect(violations(made, root)).toEqual([
      "circle: src/app/server.ts src/core/a.ts src/core/b.ts",
      "folder circle: app core",
      "past index: src/core/b.ts -> src/sms/policy.ts",
      "upward: src/core/a.ts -> src/app/server.ts",
      "upward: src/core/b.ts -> src/sms/policy.ts",
    ]);
  });

  it("has no import circle, no upward import and no import past an index.ts beyond the allow-list", () => {
    expect(found.filter((v) => !ALLOWED.includes(v))).toEqual([]);
  });

  it("allows only violations that still occur (fixed ones leave the allow-list)", () => {
    expect(ALLOWED.filter((v) => !found.includes(v))).toEqual([]);
  });
});
