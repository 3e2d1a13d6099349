// Holds the rooms of src/ (test/structure/rules.ts): no import circle between files or between
// folders, no import from a lower room to a higher one nor from a lower tier of a room to a higher
// one, no import past a folder's index.ts, the arrows between rooms as ROOM_ARROWS lists them; the
// files shared with the console (console-imports.ts) free of server code; and no file of src/ or
// web/src/ over MAX_LINES lines.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { consoleImports, packagesOf, sharedWithBrowsers, specifiersOf } from "./console-imports.js";
import { overlongFiles } from "./file-lengths.js";
import { folderOf, readImportGraph, roomArrows, tierOf, violations } from "./import-graph.js";
import { ALLOWED, BROWSER_PACKAGES, FOLDERS, MAX_LINES, ROOM_ARROWS, ROOMS } from "./rules.js";

const root = path.resolve(import.meta.dirname, "../..");

describe("the structure of src/", () => {
  const graph = readImportGraph(root);
  const found = violations(graph, root, sharedWithBrowsers(graph, root));

  it("reads the imports of every source file", () => {
    expect(graph.size).toBeGreaterThan(100);
    expect([...graph.values()].reduce((sum, targets) => sum + targets.size, 0)).toBeGreaterThan(500);
  });

  it("holds only rooms at the top of src/, and places every folder in a tier of its room (TIERS in rules.ts)", () => {
    const tops = [...new Set([...graph.keys()].map((file) => file.split("/")[1]))];
    expect(tops.filter((top) => !(ROOMS as readonly string[]).includes(top!))).toEqual([]);
    const unplaced = [...new Set([...graph.keys()].map(folderOf))].filter((f) => f === "" || tierOf(f) < 0);
    expect(unplaced).toEqual([]);
    expect(FOLDERS.filter((folder) => ![...graph.keys()].some((file) => folderOf(file) === folder))).toEqual([]);
  });

  it("draws the arrows between rooms that ROOM_ARROWS lists, all pointing down", () => {
    expect(roomArrows(graph)).toEqual([...ROOM_ARROWS].sort());
    for (const arrow of ROOM_ARROWS) {
      const [from, to] = arrow.split(" -> ") as [(typeof ROOMS)[number], (typeof ROOMS)[number]];
      expect(ROOMS.indexOf(to), arrow).toBeLessThan(ROOMS.indexOf(from));
    }
  });

  it("finds a circle, an upward import and an import past an index.ts", () => {
    const made = new Map([
      ["src/base/core/a.ts", new Set(["src/base/core/b.ts", "src/app/server.ts"])],
      ["src/base/core/b.ts", new Set(["src/base/core/a.ts", "src/channels/sms/policy.ts"])],
      ["src/app/server.ts", new Set(["src/channels/sms/index.ts", "src/base/core/b.ts"])],
      ["src/channels/sms/index.ts", new Set<string>()],
      ["src/channels/sms/policy.ts", new Set(["src/channels/smpp-server/index.ts"])],
      ["src/channels/smpp-server/index.ts", new Set<string>()],
    ]);
    expect(violations(made, root)).toEqual([
      "circle: src/app/server.ts src/base/core/a.ts src/base/core/b.ts",
      "folder circle: app base/core",
      "past index: src/base/core/b.ts -> src/channels/sms/policy.ts",
      "upward: src/base/core/a.ts -> src/app/server.ts",
      "upward: src/base/core/b.ts -> src/channels/sms/policy.ts",
      "upward: src/channels/sms/policy.ts -> src/channels/smpp-server/index.ts",
    ]);
  });

  it("has no import circle, no upward import and no import past an index.ts beyond the allow-list", () => {
    expect(found.filter((v) => !ALLOWED.includes(v))).toEqual([]);
  });

  it("allows only violations that still occur (fixed ones leave the allow-list)", () => {
    expect(ALLOWED.filter((v) => !found.includes(v))).toEqual([]);
  });
});

describe("what the console shares with the server", () => {
  const graph = readImportGraph(root);
  const shared = sharedWithBrowsers(graph, root);
  const imports = consoleImports(root);

  it("tells an `import type` from an import of values", () => {
    expect(
      specifiersOf(
        [
          'import type { A } from "./a.js";',
          'import { type B, type C } from "./b.js";',
          'import { D, type E } from "./d.js";',
          'import type * as f from "./f.js";',
          'export { G } from "./g.js";',
        ].join("\n"),
      ),
    ).toEqual([
      { specifier: "./a.js", typeOnly: true },
      { specifier: "./b.js", typeOnly: true },
      { specifier: "./d.js", typeOnly: false },
      { specifier: "./f.js", typeOnly: true },
      { specifier: "./g.js", typeOnly: false },
    ]);
  });

  it("types the console's answers with the server's schemas (import type)", () => {
    expect(imports.filter((i) => i.typeOnly).map((i) => i.to)).toContain("src/channels/sms/v2-schemas.ts");
    expect(imports.filter((i) => i.typeOnly).map((i) => i.to)).toContain("src/app/admin/account-schemas.ts");
  });

  it("shares with browsers only files that import typebox and each other: no node:, no Fastify, no store", () => {
    expect(shared.size).toBeGreaterThan(10);
    const offending = [...shared].flatMap((file) =>
      packagesOf(readFileSync(path.join(root, file), "utf8"))
        .filter((name) => !BROWSER_PACKAGES.includes(name))
        .map((name) => `${file} imports ${name}`),
    );
    expect(offending).toEqual([]);
  });

  it("takes values from src/ only where no schema is reached, so the bundle gets lists and rules, not schemas", () => {
    const reached = (file: string, seen = new Set<string>()): Set<string> => {
      if (seen.has(file)) return seen;
      seen.add(file);
      for (const next of graph.get(file) ?? []) reached(next, seen);
      return seen;
    };
    const schemaBound = imports
      .filter((i) => !i.typeOnly)
      .filter((i) =>
        [...reached(i.to)].some((file) => packagesOf(readFileSync(path.join(root, file), "utf8")).includes("typebox")),
      );
    expect(schemaBound.map((i) => `${i.from} -> ${i.to}`)).toEqual([]);
  });
});

describe("the length of the files of src/ and web/src/", () => {
  it("names a file over the limit with its count, but not a test, a migration or a file at the limit", () => {
    const made = mkdtempSync(path.join(tmpdir(), "switchboard-lengths-"));
    try {
      const write = (file: string, lines: number) => {
        mkdirSync(path.dirname(path.join(made, file)), { recursive: true });
        writeFileSync(path.join(made, file), "x;\n".repeat(lines));
      };
      write("src/delivery/dispatch/long.ts", MAX_LINES + 1);
      write("src/delivery/dispatch/at-limit.ts", MAX_LINES);
      write("src/base/store/migrations/0001_first.ts", 3 * MAX_LINES);
      write("web/src/pages/Long.tsx", 2 * MAX_LINES);
      write("web/src/pages/Long.test.tsx", 2 * MAX_LINES);
      expect(overlongFiles(made)).toEqual([
        `src/delivery/dispatch/long.ts has ${MAX_LINES + 1} lines, over ${MAX_LINES}: split it by responsibility, one file per job named after what it does (not into arbitrary halves)`,
        `web/src/pages/Long.tsx has ${2 * MAX_LINES} lines, over ${MAX_LINES}: split it by responsibility, one file per job named after what it does (not into arbitrary halves)`,
      ]);
    } finally {
      rmSync(made, { recursive: true, force: true });
    }
  });

  it(`has no file over ${MAX_LINES} lines (tests and migrations excepted)`, () => {
    expect(overlongFiles(root)).toEqual([]);
  });
});
