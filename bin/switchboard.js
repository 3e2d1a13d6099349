#!/usr/bin/env node
// The `switchboard` executable: runs the bundled CLI (dist/bundle, built by `npm ci` / `npm run
// build` from tsc's dist/app; see rolldown.config.mjs).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../dist/bundle/cli.js", import.meta.url));
if (!existsSync(cli)) {
  console.error("switchboard: dist/ is missing. Run `npm run build` (npm ci does it for you).");
  process.exit(1);
}
// `start` with two threads: the worker thread loads the app on the other core meanwhile.
const { startEarly } = await import(new URL("../dist/bundle/early-thread.js", import.meta.url).href);
startEarly(process.argv.slice(2));
await import(cli);
