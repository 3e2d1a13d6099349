// Switchboard side by side with Kannel (issue 18), on the same machine, with the same load:
// `wrk -t2 -c50 --latency` against Kannel's GET /cgi-bin/sendsms (bearerbox + smsbox, the fake
// SMSC of kannel-extras) and Switchboard's legacy GET /httpapi/send (username + password, route
// T, the text matching the demo's template, LEGACY_THROTTLE_PER_SECOND=0, SQLite with
// synchronous=FULL), alternating K S K S … for --rounds rounds of --seconds each, in each mode:
//   dlr    delivery reports to a local nginx: Kannel dlr-mask=31 + dlr-url, Switchboard the
//          account's delivery_report webhook (both: one callback when the SMSC takes the message
//          and one when it reports delivery, 2 per message)
//   plain  no delivery reports
//   v2     Switchboard only: POST /api/v2/sms/send (JSON, API key), no webhooks
// --systems may add, in the plain mode, two references that do no work at all: `node-http`, an
// empty Node.js HTTP server (node:http, one process, a canned answer) and `node-http-2`, the same
// in two cluster processes: the ceiling of any Node.js server on this machine under this load;
// and `storage-floor`, bench/storage-floor.mjs run for --seconds after each plain round: the CPU
// that SQLite's share of a message's life costs with nothing around it (no HTTP, no threads).
// Per round: accepted/s, p50/p99 (wrk), delivered/s, callbacks/s and the callback backlog at the
// end of the load, CPU µs per accepted message of each system's processes (utime+stime from
// /proc/<pid>/stat, from the start of the load until its messages are delivered and reported,
// at most --drain-seconds later), peak RSS (VmHWM), and the load average before the round.
// --carrier picks what both gateways send to:
//   fakesmsc  (the default) Kannel's fake SMSC of kannel-extras (not counted), Switchboard its
//             simulated carrier inside the gateway (counted), as issue 18 measured
//   smpp      the fair race (issue 43): both submit over SMPP 3.4 to one bench/smsc.mjs on
//             loopback (--binds transceiver binds of --window each, the same for both), which
//             answers with hex message ids and, for the parts whose registered_delivery asks for
//             it, returns the receipt by deliver_sm after --receipt-delay-ms; its CPU per
//             message is given apart, like nginx's and wrk's
// --systems may add `kannel-spool`: Kannel with its durable store (store-type = spool, a
// directory of the run's temporary one), beside `kannel` without a store. Ratios are given
// against each Kannel that ran. In the dlr mode a round keeps pace when the callbacks posted
// during the load reach 98 % of twice the messages delivered meanwhile, and the callbacks still
// owed for the round's messages at the end of the load are at most one second of them.
// Run it through run.sh (installs Kannel, wrk and nginx with apt, builds, takes the heavy lock).
// Usage: node bench/vs-kannel/run.mjs [--rounds 3] [--seconds 20] [--connections 50]
//        [--threads 2] [--modes dlr,plain,v2] [--systems kannel,kannel-spool,switchboard]
//        [--carrier fakesmsc|smpp] [--binds 4] [--window 50] [--receipt-delay-ms 100] [--json out.json]
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  benchEnvOverrides,
  cli,
  cpuSeconds,
  freePort,
  freshSqliteUrl,
  machine,
  metric,
  sendBenchEnv,
  startServer,
  startSmsc,
  waitFor,
} from "../lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "20" },
    connections: { type: "string", default: "50" },
    threads: { type: "string", default: "2" },
    modes: { type: "string", default: "dlr,plain" },
    systems: { type: "string", default: "kannel,switchboard" },
    "drain-seconds": { type: "string", default: "60" },
    carrier: { type: "string", default: "fakesmsc" },
    binds: { type: "string", default: "4" },
    window: { type: "string", default: "50" },
    "receipt-delay-ms": { type: "string", default: "100" },
    // Load before the rounds, not counted: Node's JIT and both systems' caches warm up.
    "warmup-seconds": { type: "string", default: "5" },
    json: { type: "string" },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
const drainSeconds = Number(values["drain-seconds"]);
const systems = values.systems.split(",");
const carrier = values.carrier;
if (carrier !== "fakesmsc" && carrier !== "smpp") throw new Error(`--carrier is fakesmsc or smpp, not ${carrier}`);
const KEEP_PACE_SHARE = 0.98;
const CALLBACKS_PER_MESSAGE = 2;
const TEXT = "Your OTP is 482913. Do not share it with anyone.";
const RECIPIENT = "9876543210";
const KANNEL_BIN = "/usr/sbin";
const FAKESMSC = ["/usr/lib/kannel/test/fakesmsc", "/usr/lib/kannel/fakesmsc", "/usr/bin/fakesmsc"].find((p) =>
  fs.existsSync(p),
);
const WRK_LUA = new URL("../wrk-send.lua", import.meta.url).pathname;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-vs-kannel-"));
const children = [];
process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});
process.on("SIGINT", () => process.exit(130));
process.on("SIGTERM", () => process.exit(143));

console.log(`machine: ${machine()}`);
console.log(`kernel: ${os.release()}; kannel: ${kannelVersion()}; wrk: ${wrkVersion()}`);
console.log(
  carrier === "smpp"
    ? `carrier: one bench/smsc.mjs over SMPP 3.4 for both, ${values.binds} transceiver binds × window ${values.window} each, receipts after ${values["receipt-delay-ms"]} ms`
    : "carrier: Kannel's fakesmsc, Switchboard's simulated carrier",
);
console.log(
  `command: wrk -t${values.threads} -c${values.connections} -d${seconds}s --latency <url>, ${rounds} rounds per system and mode, alternating`,
);

const results = [];
const nginx = await startNginx();
// One SMSC for every system: each binds with its own system_id, and gets its own receipts back.
const smsc =
  carrier === "smpp"
    ? await startSmsc(["--receipt-delay-ms", values["receipt-delay-ms"], "--receipts-when-asked"])
    : undefined;
for (const mode of values.modes.split(",")) {
  const modeSystems =
    mode === "v2"
      ? ["switchboard"]
      : systems.filter((name) => mode === "plain" || !(name.startsWith("node-http") || name === "storage-floor"));
  const running = {};
  for (const name of ["kannel", "kannel-spool"]) {
    if (modeSystems.includes(name)) running[name] = await startKannel(mode, name);
  }
  if (modeSystems.includes("switchboard")) running.switchboard = await startSwitchboard(mode);
  if (modeSystems.includes("node-http")) running["node-http"] = await startNodeHttp("node-http", 1);
  if (modeSystems.includes("node-http-2")) running["node-http-2"] = await startNodeHttp("node-http-2", 2);
  console.log(`\n== mode ${mode} ==`);
  for (const name of modeSystems) {
    if (running[name]) await runWrk(running[name].request, Number(values["warmup-seconds"]));
  }
  for (let round = 1; round <= rounds; round++) {
    for (const name of modeSystems) {
      const result =
        name === "storage-floor" ? runStorageFloor(mode, round) : await runRound(running[name], mode, round);
      results.push(result);
      printRound(result);
    }
  }
  for (const system of Object.values(running)) await system.stop();
}
await nginx.stop();
smsc?.child.kill("SIGTERM");
printSummary(results);
if (values.json) fs.writeFileSync(values.json, JSON.stringify({ machine: machine(), results }, null, 2));
fs.rmSync(dir, { recursive: true, force: true });
process.exit(0);

// ---------------------------------------------------------------------------------------------

async function runRound(system, mode, round) {
  const loadBefore = os.loadavg()[0];
  const before = await system.counters();
  const cpu0 = system.cpu();
  const t0 = Date.now();
  const wrk = await runWrk(system.request);
  const t1 = Date.now();
  const atEnd = await system.counters();
  const cpuAtEnd = system.cpu();
  const accepted = system.acceptedFrom(wrk, before, atEnd);
  const expectCallbacks = mode === "dlr" ? CALLBACKS_PER_MESSAGE * (atEnd.accepted - before.accepted) : 0;
  // Until the messages of the round are delivered and their callbacks posted (or drain-seconds).
  let after = atEnd;
  const drainStarted = Date.now();
  let drained = false;
  while (Date.now() - drainStarted < drainSeconds * 1000) {
    after = await system.counters();
    if (
      after.delivered - before.delivered >= atEnd.accepted - before.accepted &&
      after.callbacks - before.callbacks >= expectCallbacks
    ) {
      drained = true;
      break;
    }
    await sleep(250);
  }
  const drainMs = Date.now() - drainStarted;
  const cpuDrained = system.cpu();
  const elapsed = (t1 - t0) / 1000;
  const callbacksInLoad = atEnd.callbacks - before.callbacks;
  const deliveredInLoad = atEnd.delivered - before.delivered;
  const deliveredPerSecond = deliveredInLoad / elapsed;
  const callbackBacklogAtEnd = Math.max(0, expectCallbacks - callbacksInLoad);
  // Keeping pace: callbacks posted as fast as 98 % of twice the deliveries, and what is owed at
  // the end of the load no more than one second of them.
  const paceShare = deliveredInLoad > 0 ? callbacksInLoad / (CALLBACKS_PER_MESSAGE * deliveredInLoad) : 0;
  const backlogSeconds =
    deliveredPerSecond > 0 ? callbackBacklogAtEnd / (CALLBACKS_PER_MESSAGE * deliveredPerSecond) : 0;
  return {
    system: system.name,
    mode,
    round,
    loadBefore,
    seconds: elapsed,
    accepted,
    acceptedPerSecond: accepted / elapsed,
    // Answers wrk counted that the system did not count as accepted. The requests in flight when
    // wrk stops (up to one per connection) are accepted but never counted by wrk, so the
    // difference can go below zero by that much: nothing was refused then.
    refused: Math.max(0, wrk.requests - accepted),
    socketErrors: wrk.errors,
    p50: wrk.p50,
    p99: wrk.p99,
    deliveredPerSecond,
    callbacksPerSecond: callbacksInLoad / elapsed,
    callbackBacklogAtEnd,
    paceShare,
    backlogSeconds,
    keepsPace: mode === "dlr" ? paceShare >= KEEP_PACE_SHARE && backlogSeconds <= 1 : undefined,
    // Grows: callbacks fell behind by more than 2 s worth of them during the load.
    backlogGrows: mode === "dlr" && expectCallbacks - callbacksInLoad > (2 * expectCallbacks) / elapsed,
    drained,
    drainSeconds: drainMs / 1000,
    cpuUsPerMessage: ((cpuDrained.system - cpu0.system) * 1e6) / accepted,
    cpuUsPerMessageInLoad: ((cpuAtEnd.system - cpu0.system) * 1e6) / accepted,
    receiverCpuUsPerMessage: ((cpuDrained.receiver - cpu0.receiver) * 1e6) / accepted,
    smscCpuUsPerMessage: ((cpuDrained.smsc - cpu0.smsc) * 1e6) / accepted,
    wrkCpuUsPerMessage: (wrk.cpuSeconds * 1e6) / accepted,
    peakRssMb: system.peakRssMb(),
  };
}

function printRound(r) {
  if (r.system === "storage-floor") {
    console.log(
      `storage-floor ${r.mode} round ${r.round}: load ${r.loadBefore.toFixed(2)} | ${fmt(r.acceptedPerSecond)} messages/s on one thread | CPU ${r.cpuUsPerMessage.toFixed(0)} µs/msg`,
    );
    return;
  }
  console.log(
    `${r.system.padEnd(11)} ${r.mode} round ${r.round}: load ${r.loadBefore.toFixed(2)} | accepted ${fmt(r.acceptedPerSecond)}/s` +
      ` (refused ${r.refused}, socket errors ${r.socketErrors}) | p50 ${r.p50.toFixed(1)} ms p99 ${r.p99.toFixed(1)} ms` +
      ` | delivered ${fmt(r.deliveredPerSecond)}/s | callbacks ${fmt(r.callbacksPerSecond)}/s, backlog at end ${r.callbackBacklogAtEnd}` +
      `${r.backlogGrows ? " (GROWS)" : ""}` +
      `${r.mode === "dlr" ? ` (${(r.paceShare * 100).toFixed(1)} % of 2× delivered, ${r.backlogSeconds.toFixed(2)} s left: ${r.keepsPace ? "keeps pace" : "FALLS BEHIND"})` : ""}` +
      `, drained ${r.drained ? `in ${r.drainSeconds.toFixed(1)} s` : "NO"}` +
      ` | CPU ${r.cpuUsPerMessage.toFixed(0)} µs/msg (during load ${r.cpuUsPerMessageInLoad.toFixed(0)}; nginx ${r.receiverCpuUsPerMessage.toFixed(0)}, wrk ${r.wrkCpuUsPerMessage.toFixed(0)}${carrier === "smpp" ? `, SMSC ${r.smscCpuUsPerMessage.toFixed(0)}` : ""})` +
      ` | peak RSS ${r.peakRssMb.toFixed(0)} MB`,
  );
}

function printSummary(all) {
  console.log(
    "\n| mode | system | accepted/s median (range) | p50 ms | p99 ms median (range) | delivered/s | callbacks/s | keeps pace | CPU µs/msg median (range) | SMSC µs/msg | peak RSS MB |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  const modes = [...new Set(all.map((r) => r.mode))];
  for (const mode of modes) {
    const medians = {};
    for (const name of [...new Set(all.filter((r) => r.mode === mode).map((r) => r.system))]) {
      const rs = all.filter((r) => r.mode === mode && r.system === name);
      const m = (key) => median(rs.map((r) => r[key]));
      const range = (key, digits = 0) =>
        `${Math.min(...rs.map((r) => r[key])).toFixed(digits)}–${Math.max(...rs.map((r) => r[key])).toFixed(digits)}`;
      if (name === "storage-floor") {
        console.log(
          `| ${mode} | storage floor (SQLite only, one thread) | ${fmt(m("acceptedPerSecond"))} (${range("acceptedPerSecond")}) | | | | | | ${m("cpuUsPerMessage").toFixed(0)} (${range("cpuUsPerMessage")}) | | |`,
        );
        continue;
      }
      medians[name] = m("acceptedPerSecond");
      console.log(
        `| ${mode} | ${name} | ${fmt(m("acceptedPerSecond"))} (${range("acceptedPerSecond")}) | ${m("p50").toFixed(1)} | ${m("p99").toFixed(1)} (${range("p99", 1)}) | ${fmt(m("deliveredPerSecond"))} | ${mode === "dlr" ? fmt(m("callbacksPerSecond")) : "–"} | ${mode === "dlr" ? rs.map((r) => (r.keepsPace ? "yes" : "no")).join(" ") : "–"} | ${m("cpuUsPerMessage").toFixed(0)} (${range("cpuUsPerMessage")}) | ${carrier === "smpp" ? m("smscCpuUsPerMessage").toFixed(0) : "–"} | ${Math.max(...rs.map((r) => r.peakRssMb)).toFixed(0)} |`,
      );
    }
    for (const reference of ["kannel", "kannel-spool"]) {
      if (!medians[reference]) continue;
      for (const name of Object.keys(medians)) {
        if (name.startsWith("kannel")) continue;
        // Ratio per round pair too, since load drifts over the run.
        const pairs = all
          .filter((r) => r.mode === mode && r.system === name)
          .map((s) => {
            const k = all.find((r) => r.mode === mode && r.system === reference && r.round === s.round);
            return s.acceptedPerSecond / k.acceptedPerSecond;
          });
        const label = `ratio ${name === "switchboard" ? "S" : name}/${reference === "kannel" ? "K" : "K-spool"}`;
        console.log(
          `| ${mode} | ${label} | ${(medians[name] / medians[reference]).toFixed(2)}× (per round ${pairs.map((p) => p.toFixed(2)).join(", ")}) | | | | | | | | |`,
        );
      }
    }
  }
}

// --- the load ------------------------------------------------------------------------------

function runWrk(request, duration = seconds) {
  return new Promise((resolve, reject) => {
    // bash's `times` prints the CPU time of its finished children: wrk's own cost.
    const script = `wrk -t${values.threads} -c${values.connections} -d${duration}s --latency -s "$WRK_LUA" "$URL"; times`;
    const child = spawn("bash", ["-c", script], {
      env: {
        ...process.env,
        WRK_LUA,
        URL: request.url,
        BENCH_METHOD: request.method ?? "GET",
        BENCH_BODY: request.body ?? "",
        BENCH_AUTH: request.authorization ?? "",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c) => {
      out += c;
    });
    child.stderr.on("data", (c) => {
      err += c;
    });
    child.on("exit", (code) => {
      if (code !== 0) return reject(new Error(`wrk failed (${code}): ${err}${out}`));
      const ms = (label) => {
        const m = new RegExp(`\\s${label}%\\s+([\\d.]+)(us|ms|s)`).exec(out);
        if (!m) return Number.NaN;
        const v = Number(m[1]);
        return m[2] === "us" ? v / 1000 : m[2] === "s" ? v * 1000 : v;
      };
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
      const times = out.trim().split("\n").at(-1).split(/\s+/);
      const sec = (t) => {
        const m = /(\d+)m([\d.]+)s/.exec(t);
        return m ? Number(m[1]) * 60 + Number(m[2]) : 0;
      };
      resolve({
        requests,
        ok: requests - non2xx,
        errors: socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
        p50: ms(50),
        p99: ms(99),
        cpuSeconds: sec(times[0]) + sec(times[1]),
      });
    });
  });
}

// --- the delivery-report receiver ------------------------------------------------------------

async function startNginx() {
  const port = await freePort();
  const ndir = path.join(dir, "nginx");
  fs.mkdirSync(ndir, { recursive: true });
  const conf = `
daemon off;
worker_processes 1;
pid ${ndir}/nginx.pid;
error_log ${ndir}/error.log warn;
events { worker_connections 4096; }
http {
  client_body_temp_path ${ndir}/body;
  proxy_temp_path ${ndir}/proxy;
  fastcgi_temp_path ${ndir}/fastcgi;
  uwsgi_temp_path ${ndir}/uwsgi;
  scgi_temp_path ${ndir}/scgi;
  client_body_buffer_size 64k;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  log_format tiny '$status';
  server {
    listen 127.0.0.1:${port};
    location /kannel { access_log ${ndir}/kannel.log tiny buffer=64k flush=100ms; return 200 "ok\\n"; }
    location /kannel-spool { access_log ${ndir}/kannel-spool.log tiny buffer=64k flush=100ms; return 200 "ok\\n"; }
    location /switchboard { access_log ${ndir}/switchboard.log tiny buffer=64k flush=100ms; return 200 "ok\\n"; }
    location / { access_log off; return 404; }
  }
}
`;
  fs.writeFileSync(path.join(ndir, "nginx.conf"), conf);
  const nginxBin = fs.existsSync("/usr/sbin/nginx") ? "/usr/sbin/nginx" : "nginx";
  const child = spawn(nginxBin, ["-p", ndir, "-c", path.join(ndir, "nginx.conf")], { stdio: "inherit" });
  children.push(child);
  await waitForPort(port);
  const counters = {
    kannel: lineCounter(path.join(ndir, "kannel.log")),
    "kannel-spool": lineCounter(path.join(ndir, "kannel-spool.log")),
    switchboard: lineCounter(path.join(ndir, "switchboard.log")),
  };
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}`,
    callbacks: (name) => counters[name](),
    cpu: () => treeCpu(child.pid),
    stop: async () => {
      child.kill("SIGQUIT");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** Counts the lines appended to `file` so far, reading only what is new each time. */
function lineCounter(file) {
  let offset = 0;
  let lines = 0;
  return () => {
    if (!fs.existsSync(file)) return lines;
    const fd = fs.openSync(file, "r");
    try {
      const buffer = Buffer.alloc(1 << 20);
      for (;;) {
        const n = fs.readSync(fd, buffer, 0, buffer.length, offset);
        if (n <= 0) break;
        for (let i = 0; i < n; i++) if (buffer[i] === 10) lines++;
        offset += n;
      }
    } finally {
      fs.closeSync(fd);
    }
    return lines;
  };
}

/** CPU seconds of the shared SMSC (0 with fakesmsc: Kannel's is not counted, as in issue 18). */
function smscCpu() {
  return smsc ? cpuSeconds(smsc.child.pid) : 0;
}

// --- Kannel ---------------------------------------------------------------------------------

/** `kannel` keeps no store; `kannel-spool` keeps its durable one (store-type = spool). */
async function startKannel(mode, name) {
  const kdir = path.join(dir, `${name}-${mode}`);
  fs.mkdirSync(kdir, { recursive: true });
  const [admin, boxes, fakePort, sendsms] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const spool = name === "kannel-spool";
  if (spool) fs.mkdirSync(path.join(kdir, "spool"));
  // Log level 2 (warnings): no line per message, like Switchboard's LOG_LEVEL=warn below.
  const conf = `group = core
admin-port = ${admin}
admin-password = bench
status-password = bench
admin-allow-ip = "127.0.0.1"
smsbox-port = ${boxes}
box-allow-ip = "127.0.0.1"
log-file = "${kdir}/bearerbox.log"
log-level = 2
dlr-storage = internal
${spool ? `store-type = spool\nstore-location = "${kdir}/spool"\n` : ""}
${carrier === "smpp" ? smppGroups(name) : `group = smsc\nsmsc = fake\nsmsc-id = fake\nport = ${fakePort}\nconnect-allow-ip = "127.0.0.1"\n`}
group = smsbox
bearerbox-host = 127.0.0.1
bearerbox-port = ${boxes}
sendsms-port = ${sendsms}
log-file = "${kdir}/smsbox.log"
log-level = 2

group = sendsms-user
username = bench
password = bench
`;
  const confFile = path.join(kdir, "kannel.conf");
  fs.writeFileSync(confFile, conf);
  const log = (name) => fs.openSync(path.join(kdir, `${name}.out`), "a");
  const bearerbox = spawn(path.join(KANNEL_BIN, "bearerbox"), ["-v", "2", confFile], {
    stdio: ["ignore", log("bearerbox"), log("bearerbox")],
  });
  children.push(bearerbox);
  // smsbox gives up at once when bearerbox does not listen yet (it takes longer with a store).
  await waitForPort(boxes);
  const fakesmsc =
    carrier === "fakesmsc"
      ? await (async () => {
          await waitForPort(fakePort);
          const child = spawn(FAKESMSC, ["-H", "127.0.0.1", "-r", String(fakePort), "-m", "0", "1 2 text x"], {
            stdio: ["ignore", "ignore", "ignore"],
          });
          children.push(child);
          return child;
        })()
      : undefined;
  const smsbox = spawn(path.join(KANNEL_BIN, "smsbox"), ["-v", "2", confFile], {
    stdio: ["ignore", log("smsbox"), log("smsbox")],
  });
  children.push(smsbox);
  await waitForPort(sendsms);
  const query = new URLSearchParams({ username: "bench", password: "bench", from: "SWBRD", to: RECIPIENT, text: TEXT });
  if (mode === "dlr") {
    query.set("dlr-mask", "31");
    query.set("dlr-url", `${nginx.url(name)}?id=%I&status=%d`);
  }
  const url = `http://127.0.0.1:${sendsms}/cgi-bin/sendsms?${query}`;
  const status = async () => {
    const text = await (await fetch(`http://127.0.0.1:${admin}/status.txt?password=bench`)).text();
    const m = /SMS: received \d+ \(\d+ queued\), sent (\d+) \((\d+) queued\)/.exec(text);
    const dlr = /DLR: received (\d+)/.exec(text);
    if (!m || !dlr) throw new Error(`unexpected Kannel status: ${text}`);
    return { sent: Number(m[1]), queued: Number(m[2]), receipts: Number(dlr[1]) };
  };
  await waitFor(
    async () => {
      const r = await fetch(url);
      return r.status === 202;
    },
    { timeoutMs: 20_000, intervalMs: 200 },
  );
  await waitFor(async () => (await status()).queued === 0 && (await status()).sent >= 1, { timeoutMs: 20_000 });
  const pids = [bearerbox.pid, smsbox.pid];
  // Over SMPP a message asking for its receipt is delivered when the receipt comes back. Kannel
  // counts as DLRs received both the SMSC's receipts and those it makes itself when the SMSC
  // takes a message (dlr-mask 8), one per message sent: the receipts are the difference.
  const receipts = carrier === "smpp" && mode === "dlr";
  return {
    name,
    request: { url },
    // Accepted: handed to bearerbox (sent to the SMSC or queued for it).
    counters: async () => {
      const s = await status();
      return {
        accepted: s.sent + s.queued,
        delivered: receipts ? s.receipts - s.sent : s.sent,
        callbacks: nginx.callbacks(name),
      };
    },
    acceptedFrom: (wrk) => wrk.ok,
    cpu: () => ({ system: pids.reduce((t, pid) => t + treeCpu(pid), 0), receiver: nginx.cpu(), smsc: smscCpu() }),
    peakRssMb: () => pids.reduce((t, pid) => t + peakRssMb(pid), 0),
    stop: async () => {
      for (const child of [smsbox, fakesmsc, bearerbox]) {
        if (!child) continue;
        child.kill("SIGTERM");
        await Promise.race([new Promise((r) => child.once("exit", r)), sleep(5000)]);
        child.kill("SIGKILL");
      }
    },
  };
}

/** Kannel's SMPP binds to the shared SMSC: --binds transceivers, --window submits in flight each. */
function smppGroups(systemId) {
  let groups = "";
  for (let i = 0; i < Number(values.binds); i++) {
    groups += `group = smsc
smsc = smpp
smsc-id = smsc
host = 127.0.0.1
port = ${smsc.port}
transceiver-mode = true
smsc-username = ${systemId}
smsc-password = bench
max-pending-submits = ${values.window}
system-type = ""
msg-id-type = 0x03
enquire-link-interval = 30

`;
  }
  return groups;
}

// --- Switchboard ----------------------------------------------------------------------------

async function startSwitchboard(mode) {
  const db = freshSqliteUrl();
  const port = String(await freePort());
  const env = {
    ...sendBenchEnv(db.url, port),
    SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
    ...(carrier === "smpp" ? { SWITCHBOARD_CARRIERS_FILE: smppCarriersFile(mode) } : {}),
    ...benchEnvOverrides(),
  };
  const server = await startServer("start", env);
  children.push(server.child);
  cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
  const base = `http://127.0.0.1:${port}`;
  const password = /Demo account[\s\S]*?password:\s+(\S+)/.exec(server.output())?.[1];
  if (mode === "dlr") {
    const r = await fetch(`${base}/api/v2/webhooks`, {
      method: "PUT",
      headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
      body: JSON.stringify({ delivery_report: nginx.url("switchboard") }),
    });
    if (!r.ok) throw new Error(`webhook setting refused: ${await r.text()}`);
  }
  const request =
    mode === "v2"
      ? {
          url: `${base}/api/v2/sms/send`,
          method: "POST",
          authorization: `Bearer ${server.demoKey}`,
          body: JSON.stringify({ sender_id: "SWBRD", recipient: RECIPIENT, message: TEXT }),
        }
      : {
          url: `${base}/httpapi/send?${new URLSearchParams({ username: "demo", password, sender_id: "SWBRD", route: "T", phonenumber: RECIPIENT, message: TEXT })}`,
        };
  const probe = await fetch(request.url, {
    method: request.method ?? "GET",
    headers: request.authorization ? { authorization: request.authorization, "content-type": "application/json" } : {},
    body: request.body,
  });
  const probeText = await probe.text();
  if (!probe.ok || (mode !== "v2" && !/^\d+_\d{8}_\d+$/.test(probeText))) throw new Error(`send refused: ${probeText}`);
  const pid = server.child.pid;
  return {
    name: "switchboard",
    request,
    counters: async () => ({
      accepted: await metric(base, "switchboard_messages_accepted_total"),
      delivered: await metric(base, "switchboard_messages_delivered_total"),
      callbacks: nginx.callbacks("switchboard"),
    }),
    // A legacy refusal is HTTP 200 with a negative code: count what the server accepted.
    acceptedFrom: (_wrk, before, atEnd) => atEnd.accepted - before.accepted,
    cpu: () => ({ system: treeCpu(pid), receiver: nginx.cpu(), smsc: smscCpu() }),
    peakRssMb: () => treePids(pid).reduce((t, p) => t + peakRssMb(p), 0),
    stop: async () => {
      server.child.kill("SIGTERM");
      await Promise.race([new Promise((r) => server.child.once("exit", r)), sleep(10_000)]);
      db.cleanup();
    },
  };
}

/** The carriers file whose only SMS route goes to the shared SMSC, bound as Kannel binds. */
function smppCarriersFile(mode) {
  const file = path.join(dir, `carriers-${mode}.json`);
  const connector = {
    name: "bench-smsc",
    type: "smpp",
    host: "127.0.0.1",
    port: smsc.port,
    system_id: "switchboard",
    password: "bench",
    connections: Number(values.binds),
    window: Number(values.window),
  };
  fs.writeFileSync(
    file,
    JSON.stringify({
      connectors: [connector],
      routes: [{ route: "*", prefix: "", connectors: [{ name: "bench-smsc", weight: 1 }] }],
    }),
  );
  return file;
}

// --- the storage floor -----------------------------------------------------------------------

function runStorageFloor(mode, round) {
  const loadBefore = os.loadavg()[0];
  const script = new URL("../storage-floor.mjs", import.meta.url).pathname;
  const r = spawnSync(process.execPath, [script, "--seconds", String(seconds)], { encoding: "utf8" });
  const m = /storage floor: (\d+) µs CPU per message .*, (\d+) messages\/s/.exec(r.stdout);
  if (r.status !== 0 || !m) throw new Error(`storage-floor failed: ${r.stderr}${r.stdout}`);
  return {
    system: "storage-floor",
    mode,
    round,
    loadBefore,
    cpuUsPerMessage: Number(m[1]),
    acceptedPerSecond: Number(m[2]),
  };
}

// --- the empty Node.js server: the ceiling -------------------------------------------------

async function startNodeHttp(name, processes) {
  const [port, countPort] = [await freePort(), await freePort()];
  const script = path.join(dir, `${name}.mjs`);
  // Answers every request with a canned legacy acceptance; /count (not counted) says how many.
  fs.writeFileSync(
    script,
    `import cluster from "node:cluster";
import http from "node:http";
if (cluster.isPrimary && ${processes} > 1) {
  const counts = new Map();
  for (let i = 0; i < ${processes}; i++) {
    const worker = cluster.fork();
    worker.on("message", (n) => counts.set(worker.id, n));
  }
  http.createServer((req, res) => res.end(String([...counts.values()].reduce((a, b) => a + b, 0)))).listen(${countPort}, "127.0.0.1");
} else {
  let count = 0;
  http
    .createServer((req, res) => {
      if (req.url === "/count") return res.end(String(count));
      count++;
      if (process.send && count % 100 === 0) process.send(count);
      res.writeHead(200, { "content-type": "text/plain" });
      res.end("1234_27112026_1");
    })
    .listen(${port}, "127.0.0.1");
}
`,
  );
  const child = spawn(process.execPath, [script], { stdio: "inherit" });
  children.push(child);
  await waitForPort(port);
  if (processes > 1) await waitForPort(countPort);
  const countUrl = processes > 1 ? `http://127.0.0.1:${countPort}/` : `http://127.0.0.1:${port}/count`;
  await new Promise((r) => setTimeout(r, 500));
  return {
    name,
    request: { url: `http://127.0.0.1:${port}/httpapi/send?message=x` },
    counters: async () => {
      const n = Number(await (await fetch(countUrl)).text());
      return { accepted: n, delivered: n, callbacks: 0 };
    },
    acceptedFrom: (wrk) => wrk.ok,
    cpu: () => ({ system: treeCpu(child.pid), receiver: nginx.cpu(), smsc: smscCpu() }),
    peakRssMb: () => treePids(child.pid).reduce((t, p) => t + peakRssMb(p), 0),
    stop: async () => {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

// --- processes ------------------------------------------------------------------------------

/** The pid and every descendant of it (cluster workers, nginx workers). */
function treePids(root) {
  const parentOf = new Map();
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // ended meanwhile
    }
  }
  const pids = [root];
  for (let i = 0; i < pids.length; i++) {
    for (const [pid, ppid] of parentOf) if (ppid === pids[i]) pids.push(pid);
  }
  return pids;
}

/** CPU seconds of a process and its live descendants, plus what its ended children used. */
function treeCpu(root) {
  let total = 0;
  for (const pid of treePids(root)) {
    try {
      total += cpuSeconds(pid) + childrenCpuSeconds(pid);
    } catch {
      // ended meanwhile
    }
  }
  return total;
}

function childrenCpuSeconds(pid) {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[13]) + Number(fields[14])) / 100;
}

function peakRssMb(pid) {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

async function waitForPort(port) {
  await waitFor(
    () =>
      new Promise((resolve) => {
        const socket = net.connect(port, "127.0.0.1");
        socket.once("connect", () => {
          socket.destroy();
          resolve(true);
        });
        socket.once("error", () => resolve(false));
      }),
    { timeoutMs: 20_000, intervalMs: 100 },
  );
}

function kannelVersion() {
  const r = spawnSync("dpkg-query", ["-W", "-f", "$" + "{Version}", "kannel"], { encoding: "utf8" });
  return r.stdout || "unknown";
}

function wrkVersion() {
  const r = spawnSync("wrk", ["-v"], { encoding: "utf8" });
  return (r.stdout || r.stderr).split("\n")[0].trim();
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function fmt(n) {
  return Math.round(n).toLocaleString("en-US");
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}
