// The long fuzz run (issue 22): the properties of test/fuzz/ against a gateway process
// (`switchboard api` on a fresh SQLite database), FUZZ_RUNS cases per property (default
// 10,000: every family gets at least that many requests), with a watchdog:
// - an answer slower than 1 s fails its case (FUZZ_ANSWER_MS in the harness);
// - the server's event loop is read from /metrics every 250 ms
//   (switchboard_nodejs_eventloop_lag_max_seconds, the longest delay since the last scrape):
//   a stall over 100 ms during which the loop's thread was on a CPU (its own work) fails the run;
//   one during which it waited for a CPU other processes held is counted and reported;
// - no line of the server's log may carry a secret of the fuzzed accounts.
// The server runs with its inspector on loopback, through which each property reads its heap
// after forced collections before and after its cases (test/fuzz/server-heap.ts).
// Prints the figures per surface for docs/benchmarks.md (surfaces.mjs). Run under the shared lock:
//   flock /tmp/switchboard-heavy.lock node bench/fuzz/run.mjs
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { freshSqliteUrl, scrapeMetrics, startServer } from "../lib.mjs";
import { fuzzSmpp } from "./smpp.mjs";
import { duringHeapMeasurement, readFigures, surfaceTable } from "./surfaces.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const runs = Number(process.env.FUZZ_RUNS ?? 10_000);
const port = String(18_000 + Math.floor(Math.random() * 1_000));
const url = `http://127.0.0.1:${port}`;
const inspectorUrl = `http://127.0.0.1:${Number(port) + 1_000}`;
const STALL_MS = 100;
/** FUZZ_FILES=operator-callbacks,uploads runs those files of test/fuzz/ only; `smpp` is the SMPP server (smpp.mjs). */
const surfaces = (
  process.env.FUZZ_FILES ?? "legacy,v2,email-voice,uploads,operator-callbacks,carrier-callbacks,smpp"
).split(",");
const files = surfaces.filter((name) => name !== "smpp");
const smppPort = String(Number(port) + 2_000);

const work = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-fuzz-"));
const countsFile = path.join(work, "counts.jsonl");
const secretsFile = path.join(work, "secrets.txt");
const { url: databaseUrl, cleanup } = freshSqliteUrl();

// The api role, as the suite's in-process gateway: with the workers of `start`, the expander
// turned an earlier accepted bulk send's recipients into messages while a later case was being
// refused, and the check that a refusal writes nothing saw rows it did not write.
// The SMPP surface reads the server's heap after a forced GC: SIGUSR2 runs one (gc-on-signal.cjs);
// the HTTP surfaces read it through the inspector.
process.env.BENCH_SERVER_NODE_ARGS = [
  process.env.BENCH_SERVER_NODE_ARGS ?? "",
  `--inspect=${inspectorUrl.replace("http://", "")}`,
  "--expose-gc",
  `--require=${path.join(root, "bench/fuzz/gc-on-signal.cjs")}`,
].join(" ");
const serverEnv = {
  PORT: port,
  HOST: "127.0.0.1",
  DATABASE_URL: databaseUrl,
  LOG_LEVEL: "info",
  SIMULATOR_FAILURE_RATE: "0",
  LEGACY_THROTTLE_PER_SECOND: "0",
  SQLITE_SYNCHRONOUS: "NORMAL",
  // test/fuzz/ signs Meta's and the voice provider's callbacks with them (FUZZ_APP_SECRET, FUZZ_VOICE_* in harness.ts).
  WHATSAPP_APP_SECRET: "fuzz-app-secret-0123456789",
  VOICE_HTTP_AUTH_TOKEN: "fuzz-voice-token-0123456789",
  VOICE_CALLBACK_URL: "https://voice.fuzz.example.com",
  // The SMPP surface's floods are closed by these: not reading, not binding, idle.
  SMPP_SERVER_PORT: surfaces.includes("smpp") ? smppPort : "0",
  SMPP_SERVER_BIND_TIMEOUT_SECONDS: "3",
  SMPP_SERVER_IDLE_SECONDS: "5",
  SMPP_SERVER_RESPONSE_TIMEOUT_MS: "1000",
};
const server = await startServer("api", serverEnv);

// The first figure covers the server's start (module loading, migrations): not measured.
await scrapeMetrics(url);
let worstLagMs = 0;
/** Each stall: when it was seen (to tell the surface it happened under) and whether it was the server's own work. */
const stalls = [];
let scrapes = 0;
let scraping = true;
/** Until when a delay is the SMPP surface's forced GC in the server (its measurement), not a stall. */
let forcedGcUntil = 0;
const read = (text, name) =>
  Number(
    text
      .split("\n")
      .find((l) => l.startsWith(`${name} `))
      ?.split(" ")[1] ?? 0,
  );
/** The main thread's (the event loop's) user + system CPU seconds, from Linux's /proc; undefined elsewhere. */
function mainThreadCpuSeconds(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime and stime are fields 14 and 15 of stat(5), in clock ticks (100 per second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
const scraper = (async () => {
  let lastCpu;
  while (scraping) {
    try {
      const text = await scrapeMetrics(url);
      const lagMs = read(text, "switchboard_nodejs_eventloop_lag_max_seconds") * 1000;
      const cpu = mainThreadCpuSeconds(server.child.pid) ?? read(text, "switchboard_process_cpu_seconds_total");
      // The event loop's thread's CPU time since the last scrape against the stall: a stall of
      // its own work (a parse, a synchronous query) spends most of its length on a CPU; a stall
      // while other processes held the CPUs spends little. The thread's, not the process's: the
      // argon2 checks of the sign-in property run on other threads and do not stop the loop.
      const cpuMs = lastCpu === undefined ? Number.POSITIVE_INFINITY : (cpu - lastCpu) * 1000;
      lastCpu = cpu;
      scrapes += 1;
      worstLagMs = Math.max(worstLagMs, lagMs);
      if (lagMs > STALL_MS && Date.now() > forcedGcUntil) {
        const own = cpuMs >= 0.8 * lagMs;
        stalls.push({ at: Date.now(), own });
        console.error(
          `event-loop stall: ${lagMs.toFixed(0)} ms, event-loop thread CPU since the last scrape ${cpuMs.toFixed(0)} ms: ` +
            (own ? "its own work" : "waiting for a CPU"),
        );
      }
    } catch (error) {
      console.error(`metrics scrape failed: ${error}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
})();

const started = Date.now();
const loadBefore = os.loadavg()[0];
// One client process at a time: with two, the clients and the server share the 2 cores three
// ways and the server's loop waits for the CPU, which is not what the watchdog is for.
const vitest = spawn(
  process.execPath,
  [
    path.join(root, "node_modules/vitest/vitest.mjs"),
    "run",
    // Only the SMPP surface (FUZZ_FILES=smpp): no test file, and none run.
    ...(files.length > 0 ? files.map((name) => `test/fuzz/${name}.test.ts`) : ["test/fuzz/none", "--passWithNoTests"]),
    "--maxWorkers=1",
    "--no-file-parallelism",
  ],
  {
    cwd: root,
    stdio: "inherit",
    env: {
      ...process.env,
      FUZZ_RUNS: String(runs),
      FUZZ_SERVER_URL: url,
      FUZZ_DATABASE_URL: databaseUrl,
      FUZZ_ANSWER_MS: "1000",
      FUZZ_COUNTS_FILE: countsFile,
      FUZZ_SECRETS_FILE: secretsFile,
      FUZZ_INSPECTOR_URL: inspectorUrl,
    },
  },
);
const code = await new Promise((resolve) => vitest.on("exit", resolve));
let smpp;
if (surfaces.includes("smpp")) {
  const stallsBefore = stalls.length;
  const forcedGc = {
    started: () => {
      forcedGcUntil = Number.POSITIVE_INFINITY;
    },
    // The delay shows in the first scrape after it, within a scrape's period and its request.
    ended: () => {
      forcedGcUntil = Date.now() + 1_000;
    },
  };
  smpp = await fuzzSmpp({ server, smppPort: Number(smppPort), databaseUrl, env: serverEnv, runs, forcedGc });
  smpp.stalls = stalls.length - stallsBefore;
  smpp.ownStalls = stalls.slice(stallsBefore).filter((stall) => stall.own).length;
}
const seconds = (Date.now() - started) / 1000;
scraping = false;
await scraper;

const secrets = fs.existsSync(secretsFile) ? fs.readFileSync(secretsFile, "utf8").split("\n").filter(Boolean) : [];
const leaked = server
  .output()
  .split("\n")
  .filter((line) => secrets.some((secret) => line.includes(secret)));
// Let it stop on its own (a profile asked for with BENCH_SERVER_NODE_ARGS=--cpu-prof is
// written at exit); after 10 s it is killed when this process exits.
const stopped = new Promise((resolve) => server.child.once("exit", resolve));
server.child.kill("SIGTERM");
await Promise.race([stopped, new Promise((resolve) => setTimeout(resolve, 10_000))]);

const figures = fs.existsSync(countsFile) ? readFigures(fs.readFileSync(countsFile, "utf8")) : [];
console.log(`\nfuzz run: ${runs} cases per property in ${seconds.toFixed(0)} s, vitest exit ${code}`);
for (const line of surfaceTable(figures, stalls)) console.log(line);
// The forced collections of the heap measurements stop the loop on purpose: not the server's doing.
const measuring = stalls.filter((stall) => duringHeapMeasurement(stall.at, figures)).length;
const ownStalls = stalls.filter((stall) => stall.own && !duringHeapMeasurement(stall.at, figures)).length;
if (smpp) {
  console.log(
    "\n| Surface | PDUs sent | Answers | generic_nack | Closed as it should | Closed early | Floods left open | Crash | Slowest stream | Stalls (own) | Heap after GC, before → after | Charged = stored |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|---|");
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
  console.log(
    `| SMPP server (${smpp.streams} streams, ${smpp.floods} floods, seed ${smpp.seed}) | ${smpp.sent} | ${smpp.answers} | ${smpp.genericNacks} | ` +
      `${smpp.closedAsExpected} | ${smpp.closedEarly} | ${smpp.floodsLeftOpen} | ${smpp.alive ? "no" : "yes"} | ${smpp.slowestMs} ms | ` +
      `${smpp.stalls} (${smpp.ownStalls}) | ${mb(smpp.heapBefore)} → ${mb(smpp.heapAfter)} | ${smpp.charged} = ${smpp.stored} (${smpp.messages} messages) |`,
  );
}
console.log(
  `event loop: worst delay ${worstLagMs.toFixed(0)} ms over ${scrapes} scrapes, stalls over ${STALL_MS} ms: ${stalls.length} ` +
    `(${measuring} during a heap measurement, ${ownStalls} of the server's own work, the rest waiting for a CPU)`,
);
console.log(`log lines carrying a secret: ${leaked.length}`);
// A stall is the server's loop waiting: for its own work, or for a CPU the machine's other
// processes hold. The load average tells which a run saw.
console.log(`load average (1 min): ${loadBefore.toFixed(1)} at the start, ${os.loadavg()[0].toFixed(1)} at the end`);
for (const line of leaked.slice(0, 5)) console.log(`  ${line.slice(0, 300)}`);
cleanup();
fs.rmSync(work, { recursive: true, force: true });
// A stall of the server's own work fails the run; one spent waiting for a CPU held by other
// processes on a shared machine says nothing about the server, and is reported only.
const failed =
  code !== 0 ||
  ownStalls > 0 ||
  leaked.length > 0 ||
  (files.length > 0 && figures.length === 0) ||
  smpp?.failed === true;
process.exit(failed ? 1 : 0);
