// The built console's first load stays within its budget: the scripts index.html loads
// (entry and preloads) at most 250 KB gzipped, no file from another origin (no CDN), and no
// inline script or style, which the pages' Content-Security-Policy would refuse.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { CONSOLE_DIR } from "../../../src/app/console/pages.js";

const built = existsSync(join(CONSOLE_DIR, "index.html"));
if (!built) console.warn(`console bundle test skipped: ${CONSOLE_DIR} is not built (npm run build)`);

it.skipIf(!built)("loads at most 250 KB of gzipped JavaScript first, all of it from the gateway itself", () => {
  const index = readFileSync(join(CONSOLE_DIR, "index.html"), "utf8");
  const scripts = [...index.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
  expect(scripts.length).toBeGreaterThan(0);
  for (const tag of scripts) expect(tag).toMatch(/ src="\/assets\/[\w.-]+\.js"/);
  expect(index).not.toMatch(/<style|style="|https?:\/\//);
  const initial = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]!);
  const gzipped = initial.reduce(
    (sum, file) => sum + gzipSync(readFileSync(join(CONSOLE_DIR, file)), { level: 9 }).length,
    0,
  );
  expect(gzipped).toBeLessThanOrEqual(250 * 1024);
});
