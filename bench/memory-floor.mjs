// The memory floor of a Node.js gateway (issue 43): what a process costs in RSS before any of the
// gateway's own code, measured as bench/gateway-memory.mjs measures the gateway (VmRSS of /proc,
// all threads; RssAnon and RssFile apart), idle --idle-seconds after start and at its peak
// (VmHWM) under the same `wrk -t2 -c50` for --seconds. Each floor is one process of this machine's
// node, started fresh:
//   - `empty`: node with a timer keeping it alive;
//   - `empty + worker`: the same with one idle worker thread (a `start` has two threads);
//   - `node:http`: an empty HTTP server answering a canned text (node-http of bench/vs-kannel);
//   - `fastify + sqlite`: the gateway's own libraries doing the least a send does: Fastify with
//     one GET route whose query is checked by a TypeBox schema, and one better-sqlite3 connection
//     (WAL, the gateway's 2 KiB pages and 8 MiB cache) inserting each request as a row in its own
//     transaction; one thread.
// Each floor is bundled as the gateway is, before it runs. What separates the gateway from these
// is then its own code, data and threads.
// Usage: node bench/memory-floor.mjs [--idle-seconds 5] [--seconds 10] [--rounds 2]
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { build } from "rolldown";
import { freePort, machine, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    "idle-seconds": { type: "string", default: "5" },
    seconds: { type: "string", default: "10" },
    rounds: { type: "string", default: "2" },
  },
});
const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..");

/**
 * One better-sqlite3 connection as the gateway opens its file, and the insert of a send's row.
 * synchronous=NORMAL: the gateway fsyncs a group of sends at once; one fsync per request would
 * hold this floor near 2,000 requests/s, well under the gateway's rate, and its peak with it.
 */
const SQLITE = `
    import Database from "better-sqlite3";
    const db = new Database(process.env.DB_FILE);
    db.pragma("page_size = 2048");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("cache_size = -8192");
    db.exec("create table messages (id integer primary key, phone text not null, body text not null, created_at integer not null)");
    const insert = db.prepare("insert into messages (phone, body, created_at) values (?, ?, ?)");`;

/** Fastify with the gateway's validator compiler and one route; with \`storage\`, each request inserted. */
const FASTIFY = (storage) => `
    import Fastify from "fastify";
    import { TypeBoxValidatorCompiler } from "@fastify/type-provider-typebox";
    import { Type } from "typebox";
    ${storage}
    const app = Fastify();
    app.setValidatorCompiler(TypeBoxValidatorCompiler);
    const querystring = Type.Object({ phonenumber: Type.String({ pattern: "^[0-9]{10,15}$" }), message: Type.String({ minLength: 1 }) });
    app.get("/send", { schema: { querystring } }, async (request) =>
      ${storage ? `"OK: " + insert.run(request.query.phonenumber, request.query.message, Date.now()).lastInsertRowid` : `"OK: 1"`});
    await app.listen({ port: Number(process.env.PORT), host: "127.0.0.1" });`;

const KEEP_ALIVE = "setInterval(() => {}, 1 << 30);";
const FLOORS = {
  empty: KEEP_ALIVE,
  "empty + worker": `import { Worker } from "node:worker_threads"; new Worker(${JSON.stringify(KEEP_ALIVE)}, { eval: true }); ${KEEP_ALIVE}`,
  "node:http": `import http from "node:http"; http.createServer((req, res) => res.end("OK: 1")).listen(Number(process.env.PORT), "127.0.0.1");`,
  "node:http + sqlite": `
    import http from "node:http";
    ${SQLITE}
    http.createServer((req, res) => {
      const query = new URL(req.url, "http://x").searchParams;
      res.end("OK: " + insert.run(query.get("phonenumber"), query.get("message"), Date.now()).lastInsertRowid);
    }).listen(Number(process.env.PORT), "127.0.0.1");`,
  fastify: FASTIFY(""),
  "fastify + sqlite": FASTIFY(SQLITE),
};

/** V8's growth factor back to its default 2 at the 100th request (load), as the gateway does under load. */
const LOAD_GROWS = `
  let requests = 0;
  import("node:http").then(({ Server }) => {
    const emit = Server.prototype.emit;
    Server.prototype.emit = function (event, ...args) {
      if (event === "request" && ++requests === 100) {
        v8.setFlagsFromString("--semi-space-growth-factor=2");
        Server.prototype.emit = emit;
      }
      return emit.call(this, event, ...args);
    };
  });`;

/**
 * The floor's script bundled as the gateway is (rolldown.config.mjs: one file, ASCII, no JSDoc,
 * native addons left to node): unbundled, Fastify and TypeBox's ~700 files idled 25–30 MB larger.
 * The input sits under node_modules so that its imports resolve to the project's packages.
 */
async function bundled(name, source) {
  const dir = path.join(root, "node_modules", ".memory-floor");
  fs.mkdirSync(dir, { recursive: true });
  const input = path.join(dir, `${name.replace(/\W+/g, "-")}.mjs`);
  fs.writeFileSync(input, source);
  const file = input.replace(/\.mjs$/, ".bundle.mjs");
  await build({
    input,
    platform: "node",
    external: (id) => id.startsWith("node:") || id === "better-sqlite3",
    logLevel: "warn",
    output: { file, format: "esm", charset: "ascii", comments: { legal: true, annotation: true, jsdoc: false } },
  });
  return file;
}

function status(pid) {
  const text = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0) / 1024;
  return { rss: kb("VmRSS"), hwm: kb("VmHWM"), anon: kb("RssAnon"), file: kb("RssFile") };
}

const mb = (value) => value.toFixed(1);

async function measure(name) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-memory-floor-"));
  const port = await freePort();
  // The young generation held at its first size during start, as the gateway holds it
  // (src/base/runtime/young-generation.ts; on the command line: an import runs before any statement).
  const script = await bundled(name, `import v8 from "node:v8"; ${FLOORS[name]}${LOAD_GROWS}`);
  const child = spawn(process.execPath, ["--semi-space-growth-factor=1", script], {
    cwd: root,
    env: { ...process.env, PORT: String(port), DB_FILE: path.join(dir, "floor.db") },
    stdio: ["ignore", "ignore", "inherit"],
  });
  try {
    const serves = name !== "empty" && name !== "empty + worker";
    if (serves) {
      await waitFor(
        async () => {
          try {
            return (await fetch(`http://127.0.0.1:${port}/send?phonenumber=9876543210&message=up`)).ok;
          } catch {
            return false;
          }
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
    }
    await new Promise((resolve) => setTimeout(resolve, Number(values["idle-seconds"]) * 1000));
    const idle = status(child.pid);
    if (!serves) return { name, idle };
    const url = `http://127.0.0.1:${port}/send?phonenumber=9876543210&message=${encodeURIComponent("Your OTP is 482913. Do not share it with anyone.")}`;
    const wrk = spawnSync("wrk", ["-t2", "-c50", `-d${values.seconds}s`, url], { encoding: "utf8" });
    const rate = /Requests\/sec:\s+([\d.]+)/.exec(wrk.stdout)?.[1];
    return { name, idle, load: status(child.pid), rate: Number(rate) };
  } finally {
    child.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`machine: ${machine()}`);
console.log("| floor | round | idle VmRSS MB (anon + file) | peak under load VmHWM MB | requests/s |");
console.log("|---|---|---|---|---|");
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const name of Object.keys(FLOORS)) {
    const r = await measure(name);
    const idle = `${mb(r.idle.rss)} (${mb(r.idle.anon)} + ${mb(r.idle.file)})`;
    const load = r.load ? mb(r.load.hwm) : "–";
    const rate = r.rate ? Math.round(r.rate).toLocaleString("en") : "–";
    console.log(`| ${name} | ${round} | ${idle} | ${load} | ${rate} |`);
  }
}
