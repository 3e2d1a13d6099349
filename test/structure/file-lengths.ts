// The length of the source files: a file of src/ or web/src/ over MAX_LINES (rules.ts) is named
// with its count, so that it is split by responsibility rather than left to grow.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { LONG_FILES_ALLOWED, MAX_LINES } from "./rules.js";

/** The .ts and .tsx files below `dir`, relative to `root` with forward slashes. */
function sourceFiles(dir: string, root: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, root, into);
    else if (/\.tsx?$/.test(entry.name)) into.push(path.relative(root, full).split(path.sep).join("/"));
  }
  return into;
}

/** A text's lines, counted as `wc -l` counts them. */
export function lineCount(text: string): number {
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

/** Each file under `folders` (of `root`) longer than MAX_LINES, one line each: what it is and what to do. */
export function overlongFiles(root: string, folders: readonly string[] = ["src", "web/src"]): string[] {
  const found: string[] = [];
  for (const folder of folders) {
    if (!existsSync(path.join(root, folder))) continue;
    for (const file of sourceFiles(path.join(root, folder), root).sort()) {
      if (/\.test\.tsx?$/.test(file) || LONG_FILES_ALLOWED.some((prefix) => file.startsWith(prefix))) continue;
      const lines = lineCount(readFileSync(path.join(root, file), "utf8"));
      if (lines > MAX_LINES) {
        found.push(
          `${file} has ${lines} lines, over ${MAX_LINES}: split it by responsibility, ` +
            "one file per job named after what it does (not into arbitrary halves)",
        );
      }
    }
  }
  return found;
}
