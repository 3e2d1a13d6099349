// Holds the documentation of the structure next to the code (docs/ARCHITECTURE.md, "Layers"): every
// file of src/ opens with a comment that says what it is for; a folder that has an index.ts lists
// each of its files in that index's opening comment; docs/ARCHITECTURE.md places every top-level
// folder of src/ in its table of layers and stays short before its decisions.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { TIERS } from "./rules.js";

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

  it("places every top-level folder of src/ in docs/ARCHITECTURE.md's table of layers", () => {
    const architecture = readFileSync(path.join(root, "docs/ARCHITECTURE.md"), "utf8");
    const layers = architecture.slice(
      architecture.indexOf("## Layers"),
      architecture.indexOf("\n## ", architecture.indexOf("## Layers") + 1),
    );
    const folders = readdirSync(src).filter((name) => statSync(path.join(src, name)).isDirectory());
    expect(folders.filter((folder) => !layers.includes(`\`${folder}/\``))).toEqual([]);
    expect(TIERS.flat().filter((folder) => !folders.includes(folder))).toEqual([]);
  });

  it("keeps docs/ARCHITECTURE.md short before its decisions (the detail lives in the folders' index.ts)", () => {
    const architecture = readFileSync(path.join(root, "docs/ARCHITECTURE.md"), "utf8");
    const body = architecture.slice(0, architecture.indexOf("\n## Decisions"));
    expect(body.split("\n").length).toBeLessThanOrEqual(200);
  });
});
