// Issue 40: the send rate with the DLT checks on against off, both in one gateway. bench/dlt-send.mjs
// starts a gateway per run, and on a noisy machine two runs of one build differ by more than the
// 5 % it looks for (identical runs 1,684–3,216/s on a 2-core EPYC): where the JIT, the file and the
// machine's moment differ between processes. Here one `switchboard start` (SQLite) holds two
// accounts made alike (`accounts create` with the same options, the same template), one with
// its DLT scrubbing on (strict matching, the telemarketer chain required and declared, the
// entity's white-lists of --entries entries; bench/dlt-setup.mjs), one with it off; wrk loads
// them in short windows (--window seconds, 50 connections) in pairs, on-off then off-on, so that
// a machine growing busier or quieter favours neither. Each pair gives the accepted rate on/off,
// the CPU per accepted message on/off (all threads) and the main thread's (HTTP and the SMS
// rules, where the checks run); it prints every pair, their median, mean and standard error, and
// the pooled ratio (all on windows' messages over all off windows'). --control makes the two
// accounts' scrubbing both off: what the bench reads when nothing differs, i.e. its resolution.
// Usage:
//   npm run build && node bench/dlt-send-paired.mjs [--family legacy|v2] [--pairs 30] [--window 2]
//     [--entries 10000] [--connections 50] [--control] [--profile DIR]
// --profile DIR: the gateway runs with node --cpu-prof into DIR, and DIR/windows.json lists each
// counted window (mode, its start and end on the clock V8 stamps samples with, µs, and its
// accepted messages), so one profile's samples can be split into the on and the off windows.
import { spawn } from "node:child_process";
import fs from "node:fs";
import { parseArgs } from "node:util";
import { DLT_CODE, DLT_TEXT, dltEnv, setUpDlt } from "./dlt-setup.mjs";
import {
  cli,
  freePort,
  freshSqliteUrl,
  machine,
  median,
  metric,
  range,
  sendBenchEnv,
  startServer,
  threadCpu,
} from "./lib.mjs";

const { values } = parseArgs({
  options: {
    family: { type: "string", default: "legacy" },
    pairs: { type: "string", default: "30" },
    window: { type: "string", default: "2" },
    entries: { type: "string", default: "10000" },
    connections: { type: "string", default: "50" },
    control: { type: "boolean", default: false },
    profile: { type: "string" },
  },
});
if (values.profile) {
  fs.mkdirSync(values.profile, { recursive: true });
  process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${values.profile}`;
}

const db = freshSqliteUrl();
const port = String(await freePort());
const env = { ...sendBenchEnv(db.url, port), ...dltEnv() };
const base = `http://127.0.0.1:${port}`;
const server = await startServer("start", env);
const PASSWORD = "bench-password";
const ENTITIES = { on: "1101160000000000101", off: "1101160000000000102" };
const accounts = {};
for (const mode of ["on", "off"]) {
  const username = `bench-${mode}`;
  const created = JSON.parse(
    cli(
      env,
      ...["accounts", "create", "--username", username, "--password", PASSWORD, "--sender", "SWBRD"],
      ...["--dlt-entity", ENTITIES[mode], "--credits", "sms=100000000", "--rate-limit", "0", "--json"],
    ),
  );
  accounts[mode] = { username, key: created.api_key };
}
// The off account gets the same template, settings and chain, and no white-list entries: with its
// scrubbing off none of them is read. The control's "on" account is set up as the off one.
await setUpDlt(env, base, values.control ? "off" : "on", Number(values.entries), {
  account: "bench-on",
  entity: ENTITIES.on,
});
await setUpDlt(env, base, "off", 0, { account: "bench-off", entity: ENTITIES.off });

function request(mode) {
  const { username, key } = accounts[mode];
  return values.family === "v2"
    ? {
        url: `${base}/api/v2/sms/send`,
        method: "POST",
        auth: `Bearer ${key}`,
        body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: DLT_TEXT }),
      }
    : {
        url: `${base}/httpapi/send?${new URLSearchParams({ username, password: PASSWORD, sender_id: "SWBRD", route: "T", phonenumber: "9876543210", message: DLT_TEXT })}`,
      };
}

// One send of each account first: its caches loaded (checks on: the 10,000 entries), and proof
// that both are accepted (a refusal would be measured as a cheap send).
for (const mode of ["on", "off"]) {
  const r = request(mode);
  const response = await fetch(r.url, {
    method: r.method ?? "GET",
    headers: r.auth ? { authorization: r.auth, "content-type": "application/json" } : {},
    ...(r.body ? { body: r.body } : {}),
  });
  const text = await response.text();
  if (!response.ok || /^-\d|"success":\s*false/.test(text)) throw new Error(`${mode}: ${response.status} ${text}`);
}

const pid = server.child.pid;
const cpuNow = () => {
  const threads = threadCpu(pid);
  let all = 0;
  for (const t of threads.values()) all += t.cpu;
  return { all, main: threads.get(String(pid))?.cpu ?? 0 };
};

/** One window of wrk load on `mode`'s account: accepted/s, and CPU µs per accepted message. */
async function loadWindow(mode, seconds) {
  const r = request(mode);
  const accepted0 = await metric(base, "switchboard_messages_accepted_total");
  const cpu0 = cpuNow();
  const started = process.hrtime.bigint();
  const from = Number(started / 1000n);
  const wrk = spawn(
    "wrk",
    [
      "-t2",
      `-c${values.connections}`,
      `-d${seconds}s`,
      "-s",
      new URL("./wrk-send.lua", import.meta.url).pathname,
      r.url,
    ],
    {
      env: {
        ...process.env,
        BENCH_METHOD: r.method ?? "GET",
        BENCH_BODY: r.body ?? "",
        BENCH_AUTH: r.auth ?? "",
        BENCH_VARY: DLT_CODE,
      },
      stdio: "ignore",
    },
  );
  await new Promise((resolve) => wrk.on("exit", resolve));
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const cpu1 = cpuNow();
  const accepted = (await metric(base, "switchboard_messages_accepted_total")) - accepted0;
  if (!(accepted > 0)) throw new Error(`${mode}: nothing accepted in a window`);
  return {
    mode,
    from,
    to: from + Math.round(elapsed * 1e6),
    accepted,
    rate: accepted / elapsed,
    micros: ((cpu1.all - cpu0.all) * 1e6) / accepted,
    main: ((cpu1.main - cpu0.main) * 1e6) / accepted,
  };
}

console.log(machine());
console.log(
  `${values.family}, ${values.control ? "control: scrubbing off on both accounts" : "checks on against off"}, ` +
    `${values.pairs} pairs of ${values.window} s windows`,
);
// Warm-up, not counted: both paths hot in the JIT before the first pair.
for (const mode of ["on", "off", "on", "off"]) await loadWindow(mode, 2);

const window = Number(values.window);
const pairs = [];
const windows = [];
const totals = { on: 0, off: 0 };
for (let pair = 1; pair <= Number(values.pairs); pair++) {
  const order = pair % 2 ? ["on", "off"] : ["off", "on"];
  const w = {};
  for (const mode of order) {
    w[mode] = await loadWindow(mode, window);
    totals[mode] += w[mode].accepted;
    windows.push(w[mode]);
  }
  const p = { rate: w.on.rate / w.off.rate, cpu: w.on.micros / w.off.micros, main: w.on.main / w.off.main };
  pairs.push(p);
  console.log(
    `pair ${pair}: on ${w.on.rate.toFixed(0)}/s ${w.on.micros.toFixed(0)} µs (main ${w.on.main.toFixed(0)}), ` +
      `off ${w.off.rate.toFixed(0)}/s ${w.off.micros.toFixed(0)} µs (main ${w.off.main.toFixed(0)}): ` +
      `rate ${p.rate.toFixed(3)}, CPU ${p.cpu.toFixed(3)}, main ${p.main.toFixed(3)}`,
  );
}

const summary = (name, xs) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const se = Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1) / xs.length);
  console.log(
    `${name}: median ${median(xs).toFixed(3)} (${range(xs)}), mean ${mean.toFixed(3)} ± ${se.toFixed(3)} (standard error)`,
  );
};
console.log(`\n${pairs.length} pairs, on/off:`);
summary(
  "accepted rate",
  pairs.map((p) => p.rate),
);
summary(
  "CPU per message, all threads",
  pairs.map((p) => p.cpu),
);
summary(
  "CPU per message, main thread",
  pairs.map((p) => p.main),
);
console.log(`pooled: ${totals.on} messages on, ${totals.off} off: rate ${(totals.on / totals.off).toFixed(3)}`);

server.child.kill("SIGTERM");
await new Promise((resolve) => server.child.once("exit", resolve));
db.cleanup();
if (values.profile) {
  fs.writeFileSync(`${values.profile}/windows.json`, JSON.stringify(windows));
  console.log(`profiles and windows.json in ${values.profile}`);
}
process.exit(0);
