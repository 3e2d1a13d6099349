// Holds the documentation of the structure next to the code (docs/ARCHITECTURE.md, "Rooms"): every
// file of src/ opens with a comment that says what it is for; a folder that has an index.ts lists
// each of its files in that index's opening comment; docs/ARCHITECTURE.md names every room and
// folder, draws the arrows between rooms as the code has them and stays a short map; the
// decisions are records of their own in docs/decisions/, each listed in its README.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { FOLDERS, ROOM_ARROWS, ROOMS } from "./rules.js";

const root = path.resolve(import.meta.dirname, "../..");
const src = path.join(root, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith(".ts") ? [full] : [];
  });
}

/** The comment lines a file opens with, as text (empty when it opens with code). */
function openingComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith("//")) break;
    lines.push(line.replace(/^\/\/ ?/, ""));
  }
  return lines.join("\n");
}

/** Whether `comment` names `file` (a name or a path from the folder) as a word of its own. */
function names(comment: string, file: string): boolean {
  return new RegExp(`(^|[\\s/(])${file.replace(/[.]/g, "\\.")}\\b`, "m").test(comment);
}

const relative = (file: string) => path.relative(root, file).split(path.sep).join("/");

describe("the structure's documentation, next to the code", () => {
  const files = sourceFiles(src);

  it("finds what an opening comment does and does not name", () => {
    expect(openingComment("// a.ts: one\n//   b.ts  two\nimport x;\n// c.ts")).toBe("a.ts: one\n  b.ts  two");
    const comment = "a.ts: one\n  smpp/b.ts  two\n  (c.ts)";
    expect(["a.ts", "smpp/b.ts", "c.ts", "b.ts", "d.ts"].filter((file) => !names(comment, file))).toEqual(["d.ts"]);
  });

  it("opens every file of src/ with a comment saying what it is for", () => {
    const bare = files.filter((file) => openingComment(readFileSync(file, "utf8")).trim().length < 20).map(relative);
    expect(bare).toEqual([]);
  });

  it("lists every file of a folder in its index.ts opening comment", () => {
    const missing: string[] = [];
    // store/migrations/index.ts lists its migrations as the imports it runs, in order.
    const indexes = files.filter((file) => path.basename(file) === "index.ts" && !file.includes("/migrations/"));
    for (const index of indexes) {
      const dir = path.dirname(index);
      const comment = openingComment(readFileSync(index, "utf8"));
      // A subfolder with an index.ts of its own lists its files there.
      const own = sourceFiles(dir)
        .filter((file) => file !== index)
        .filter((file) => {
          for (let d = path.dirname(file); d !== dir; d = path.dirname(d)) {
            if (files.includes(path.join(d, "index.ts"))) return false;
          }
          return true;
        })
        .map((file) => path.relative(dir, file).split(path.sep).join("/"));
      for (const file of own) {
        // Named by its path from the folder, or by its name under its subfolder's heading.
        if (!names(comment, file) && !names(comment, path.basename(file))) {
          missing.push(`${relative(index)}: ${file}`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  const architecture = readFileSync(path.join(root, "docs/ARCHITECTURE.md"), "utf8");

  it("names every room and every folder of src/ in docs/ARCHITECTURE.md's map", () => {
    const rooms = architecture.slice(
      architecture.indexOf("## Rooms"),
      architecture.indexOf("\n## ", architecture.indexOf("## Rooms") + 1),
    );
    const tops = readdirSync(src).filter((name) => statSync(path.join(src, name)).isDirectory());
    expect(tops.filter((room) => !rooms.includes(`  ${room}/ `))).toEqual([]);
    const named = (folder: string) => new RegExp(`(^|\\s)${folder.split("/").pop()}/(\\s|$)`, "m").test(rooms);
    expect(FOLDERS.filter((folder) => !(ROOMS as readonly string[]).includes(folder) && !named(folder))).toEqual([]);
  });

  it("draws the arrows between rooms that the code has (ROOM_ARROWS)", () => {
    const drawn = [...architecture.matchAll(/^(\w+) ─+► (.+)$/gm)].flatMap(([, from, to]) =>
      to!.split(",").map((target) => `${from} -> ${target.trim()}`),
    );
    expect(drawn.sort()).toEqual([...ROOM_ARROWS].sort());
  });

  it("keeps docs/ARCHITECTURE.md a short map: at most 200 lines, the decisions in docs/decisions/", () => {
    expect(architecture.split("\n").length).toBeLessThanOrEqual(200);
    expect(architecture).not.toContain("## Decisions");
  });

  it("lists every decision record, numbered in order, in docs/decisions/README.md", () => {
    const dir = path.join(root, "docs/decisions");
    const records = readdirSync(dir)
      .filter((name) => name !== "README.md")
      .sort();
    expect(records.length).toBeGreaterThan(50);
    const index = readFileSync(path.join(dir, "README.md"), "utf8");
    records.forEach((name, i) => {
      const number = i + 1;
      expect(name, "records are numbered 0001, 0002, … without a gap").toMatch(
        new RegExp(`^${String(number).padStart(4, "0")}-[a-z0-9-]+\\.md$`),
      );
      const title = readFileSync(path.join(dir, name), "utf8").split("\n")[0]!;
      expect(title, name).toMatch(new RegExp(`^# ${number}\\. \\S`));
      expect(index, name).toContain(`${number}. [${title.replace(/^# \d+\. /, "")}](${name})`);
    });
  });
});
