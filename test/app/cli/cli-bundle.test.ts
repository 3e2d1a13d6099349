// What a CLI command loads before it runs, read off the built bundle (dist/bundle): each command
// group's chunk with every chunk it imports, statically or by import(). An operator's read command
// (`accounts list`, `messages list`, `refusals list`, …) loads its group, the store and what the
// group's commands call, never the server (fastify, the dispatcher, the SMPP connector): the
// package declares its modules free of side effects ("sideEffects" in package.json), so a
// folder's index.ts brings only what is used, and each group stays within 1.4 MB of JavaScript
// (the server's closure is 5 MB).
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { GROUP_DESCRIPTIONS } from "../../../src/app/cli/cli-group-names.js";

const BUNDLE = join(import.meta.dirname, "../../../dist/bundle");
const built = existsSync(join(BUNDLE, "cli.js"));
if (!built) console.warn(`CLI bundle test skipped: ${BUNDLE} is not built (npm run build)`);

/** Every chunk `entry` reaches, its size, and the modules its source maps name. */
function closure(entry: string): { bytes: number; sources: string[] } {
  const seen = new Set<string>();
  const stack = [entry];
  for (let file = stack.pop(); file !== undefined; file = stack.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(BUNDLE, file), "utf8");
    const imports = /^(?:import|export)\b[^"\n]*?"\.\/([^"]+\.js)";$|\bimport\("\.\/([^"]+\.js)"\)/gm;
    // A JSDoc `import("./x.js")` of a bundled package names no chunk: only files that exist count.
    for (const match of text.matchAll(imports)) {
      const chunk = (match[1] ?? match[2])!;
      if (existsSync(join(BUNDLE, chunk))) stack.push(chunk);
    }
  }
  const files = [...seen];
  const sources = files.flatMap((file) => {
    const map = join(BUNDLE, `${file}.map`);
    return existsSync(map) ? (JSON.parse(readFileSync(map, "utf8")) as { sources: string[] }).sources : [];
  });
  return { bytes: files.reduce((sum, file) => sum + statSync(join(BUNDLE, file)).size, 0), sources };
}

it.skipIf(!built)("loads, for each command group, its commands and the store, not the server", () => {
  const cli = readFileSync(join(BUNDLE, "cli.js"), "utf8");
  const chunks = [...cli.matchAll(/import\("\.\/(cli-[a-z-]+)-[\w-]+\.js"\)/g)].map((m) => m[0].slice(10, -2));
  for (const chunk of chunks) {
    const { bytes, sources } = closure(chunk);
    const server = sources.filter((s) => /node_modules\/fastify\/|\/delivery\/dispatch\/dispatcher\.js$/.test(s));
    expect(server, `${chunk} loads the server`).toEqual([]);
    expect(bytes, `${chunk}: ${bytes} bytes`).toBeLessThanOrEqual(1.4 * 1024 * 1024);
  }
  // One chunk per module of cli-groups.ts, each loaded only by the commands of its groups.
  expect(chunks.length).toBeGreaterThanOrEqual(Object.keys(GROUP_DESCRIPTIONS).length / 2);
});
