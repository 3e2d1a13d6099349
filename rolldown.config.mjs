// Bundles the compiled program (dist/app, from tsc) into a few files under dist/bundle, which
// bin/switchboard.js runs. Node loads every ES module file on its own (resolve, read, parse,
// link): unbundled, a command loads ~1,500 files (typebox alone ~680, kysely ~260) and ~700
// CommonJS ones, which is most of its start-up time. The entries are the executable's two
// imports and the worker thread's file; chunks sit beside them in the same folder, so
// `new URL("./worker-thread.js", import.meta.url)` finds the entry, and at the depth of
// dist/app, so `../../package.json` still resolves (the console finds dist/web from the nearest
// package.json above it, from any depth).
import { defineConfig } from "rolldown";

// Left to Node's own loader, each for a reason a bundle would break:
const external = [
  "better-sqlite3", // native addons
  "@node-rs/argon2",
  "pino", // runs its transports (pino-pretty) in worker threads by file path
  "pino-pretty",
  "thread-stream",
  "sonic-boom",
  "@fastify/static", // serve or read files from their own package folders
  "@fastify/swagger",
  "@fastify/swagger-ui",
  "pg", // loaded only when used (PostgreSQL, Redis, bounces); optional native parts
  "redis",
  "mailparser",
  "smtp-server",
];
const isExternal = (id) =>
  id.startsWith("node:") ||
  external.some((name) => id === name || id.startsWith(`${name}/`)) ||
  /^(pg-|@redis\/)/.test(id);

export default defineConfig({
  input: {
    cli: "dist/app/cli/cli.js",
    "early-thread": "dist/app/early-thread.js",
    "worker-thread": "dist/app/worker-thread.js",
  },
  platform: "node",
  external: isExternal,
  logLevel: "warn",
  output: {
    dir: "dist/bundle",
    format: "esm",
    entryFileNames: "[name].js",
    chunkFileNames: "[name]-[hash].js",
    sourcemap: true,
    cleanDir: true,
    // Memory (issue 43): V8 keeps each module's source text for as long as the process runs, as
    // two bytes a character if a single character of the file is outside Latin-1 (an em dash in
    // a message, a "µ"): escaped to ASCII, every source is kept at one byte a character. JSDoc
    // comments are dropped for the same reason (the sources under dist/app keep them).
    charset: "ascii",
    comments: { legal: true, annotation: true, jsdoc: false },
  },
});
