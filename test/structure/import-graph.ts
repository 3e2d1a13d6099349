// Reads the import graph of src/: every static import, re-export, `import type` and import() with a
// literal specifier, resolved to the file it names. The structure test checks its rules against it.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { ROOMS, type Room, TIERS } from "./rules.js";

/** Paths are relative to the repository root with forward slashes, e.g. `src/app/server.ts`. */
export type ImportGraph = Map<string, Set<string>>;

/** The .ts files (or those `pattern` matches) below `dir`, relative to `root` with forward slashes. */
export function sourceFiles(dir: string, root: string, into: string[] = [], pattern = /\.ts$/): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(full, root, into, pattern);
    else if (pattern.test(entry.name)) into.push(path.relative(root, full).split(path.sep).join("/"));
  }
  return into;
}

/** The file a relative specifier names (`./x.js` is `./x.ts` in the sources), or undefined outside src/. */
function resolve(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  if (!specifier.startsWith(".")) return undefined;
  const base = path.posix.join(path.posix.dirname(from), specifier);
  for (const candidate of [base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".d.ts"), base, `${base}/index.ts`]) {
    if (files.has(candidate)) return candidate;
  }
  return undefined;
}

export function readImportGraph(root: string, folder = "src"): ImportGraph {
  const files = sourceFiles(path.join(root, folder), root).sort();
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(root, file), "utf8"), true, true);
    const targets = new Set<string>();
    for (const ref of info.importedFiles) {
      const target = resolve(file, ref.fileName, known);
      if (target && target !== file) targets.add(target);
    }
    graph.set(file, targets);
  }
  return graph;
}

/** Strongly connected components with more than one member (Tarjan), each sorted, in a stable order. */
export function circles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    order.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!order.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, order.get(next)!));
      }
    }
    if (low.get(node) === order.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!order.has(node)) visit(node);
  return found.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/**
 * The folder of a file under src/, as `room/folder` (`src/channels/sms/v2-routes.ts` is
 * `channels/sms`); a file at the top of a room is in the room's own folder (`src/app/server.ts`
 * is `app`).
 */
export function folderOf(file: string): string {
  const parts = file.split("/");
  if (parts.length <= 2) return "";
  if (parts.length === 3) return parts[1]!;
  return `${parts[1]}/${parts[2]}`;
}

/** The room of a folder (`channels/sms` is `channels`). */
export function roomOf(folder: string): Room | undefined {
  const room = folder.split("/")[0] as Room;
  return ROOMS.includes(room) ? room : undefined;
}

/** The folder's tier inside its room; -1 when the room's tiers do not place it. */
export function tierOf(folder: string): number {
  const room = roomOf(folder);
  if (!room) return -1;
  const name = folder.includes("/") ? folder.slice(room.length + 1) : room;
  return TIERS[room].findIndex((tier) => tier.includes(name));
}

/** Whether an import from folder `a` to folder `b` points up: to a higher room, or a higher tier of its room. */
function upward(a: string, b: string): boolean {
  const ra = ROOMS.indexOf(roomOf(a)!);
  const rb = ROOMS.indexOf(roomOf(b)!);
  return rb > ra || (rb === ra && tierOf(b) > tierOf(a));
}

/** The arrows between rooms: `from -> to` for every room that imports another, sorted. */
export function roomArrows(graph: ImportGraph): string[] {
  const arrows = new Set<string>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = roomOf(folderOf(from));
      const b = roomOf(folderOf(to));
      if (a && b && a !== b) arrows.add(`${a} -> ${b}`);
    }
  }
  return [...arrows].sort();
}

/** The innermost folder holding `file` that has an index.ts and does not hold `from`, if any. */
function faceCrossed(from: string, file: string, root: string): string | undefined {
  const dirs = file.split("/").slice(0, -1);
  for (let depth = 3; depth <= dirs.length; depth++) {
    const dir = dirs.slice(0, depth).join("/");
    if (from.startsWith(`${dir}/`)) continue;
    if (existsSync(path.join(root, dir, "index.ts")) && file !== `${dir}/index.ts`) return dir;
    return undefined;
  }
  return undefined;
}

/**
 * Every breach of the rules in rules.ts, one line each, sorted. `shared`: the files shared with
 * browser code (console-imports.ts), which are a folder's other face: entered without its index.ts.
 */
export function violations(graph: ImportGraph, root: string, shared: ReadonlySet<string> = new Set()): string[] {
  const found: string[] = [];
  for (const circle of circles(graph)) found.push(`circle: ${circle.join(" ")}`);
  const folders = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b) {
        if (!folders.has(a)) folders.set(a, new Set());
        folders.get(a)!.add(b);
        if (upward(a, b)) found.push(`upward: ${from} -> ${to}`);
      }
      if (!shared.has(to) && faceCrossed(from, to, root)) found.push(`past index: ${from} -> ${to}`);
    }
  }
  for (const circle of circles(folders)) found.push(`folder circle: ${circle.join(" ")}`);
  return found.sort();
}
