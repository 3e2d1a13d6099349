// Profiles a `switchboard start` under send load: runs it with node --cpu-prof (a profile per
// thread), loads it with wrk for --seconds, stops it, and prints where each thread's CPU went
// (self time by function and by package), with each thread's CPU per accepted message. The profiles stay in --dir for a flame-graph viewer
// (Chrome DevTools, speedscope). Usage:
//   node bench/profile-send.mjs [--family legacy|v2] [--webhooks] [--seconds 15] [--connections 50] [--dir DIR] [--no-profile]
//     [--levels N]  (sends from a sub-account N levels below the demo account, charged at every level)
//     [--card ROWS] (the demo account priced by a card of ROWS rows, Indian mobile prefixes of 2-8
//                    digits and other countries', a tenth with a later effective_from)
//     [--key plain|limited] (sends with a new API key of the sender, on legacy too (api_key): plain,
//                    or limited to the send scope and an allow-list of 8 ranges that takes 127.0.0.1 last)
//     [--dlt on|off [--dlt-entries N]] (a text with a link and a callback number, the DLT checks of
//                    issue 40 on with N white-listed entries, or scrubbing off: bench/dlt-setup.mjs)
import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { DLT_CODE, DLT_TEXT, dltEnv, setUpDlt } from "./dlt-setup.mjs";
import {
  benchEnvOverrides,
  cli,
  freePort,
  freshSqliteUrl,
  metric,
  sendBenchEnv,
  startServer,
  threadCpu,
} from "./lib.mjs";

const { values } = parseArgs({
  options: {
    family: { type: "string", default: "legacy" },
    webhooks: { type: "boolean", default: false },
    seconds: { type: "string", default: "15" },
    connections: { type: "string", default: "50" },
    dir: { type: "string" },
    top: { type: "string", default: "25" },
    // Thread CPU figures only, without the profiler's own cost.
    "no-profile": { type: "boolean", default: false },
    levels: { type: "string", default: "0" },
    card: { type: "string", default: "0" },
    key: { type: "string", default: "" },
    dlt: { type: "string", default: "" },
    "dlt-entries": { type: "string", default: "10000" },
  },
});
const dir = values.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-profile-"));
fs.mkdirSync(dir, { recursive: true });
const TEXT = values.dlt ? DLT_TEXT : "Your OTP is 482913. Do not share it with anyone.";

let receiverHits = 0;
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    receiverHits++;
    res.end("ok");
  });
});
await new Promise((r) => receiver.listen(0, "127.0.0.1", r));

const db = freshSqliteUrl();
const port = String(await freePort());
const env = {
  ...sendBenchEnv(db.url, port),
  SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
  ...(values.dlt ? dltEnv() : {}),
  ...benchEnvOverrides(),
};
if (!values["no-profile"]) {
  process.env.BENCH_SERVER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
  process.env.BENCH_UNBUNDLED ??= "1"; // the profile's files by source file, not by bundle chunk
}
const server = await startServer("start", env);
cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
const base = `http://127.0.0.1:${port}`;
if (Number(values.card) > 0) {
  const file = path.join(dir, "card.csv");
  fs.writeFileSync(file, priceCardCsv(Number(values.card)));
  cli(env, "prices", "import", "--card", "bench", "--file", file);
  cli(env, "accounts", "set", "--username", "demo", "--price-card", "bench");
}
if (values.dlt) await setUpDlt(env, base, values.dlt, Number(values["dlt-entries"]));
let password = /Demo account[\s\S]*?password:\s+(\S+)/.exec(server.output())?.[1];
let sender = { username: "demo", key: server.demoKey };
// A reseller tree below the demo account: each level funded, the last one sends.
for (let level = 1; level <= Number(values.levels); level++) {
  const username = `bench-sub-${level}`;
  password = "bench-sub-password";
  const created = JSON.parse(
    cli(
      env,
      "accounts",
      "create",
      "--username",
      username,
      "--password",
      password,
      "--parent",
      sender.username,
      "--sender",
      "SWBRD",
      "--credits",
      "sms=100000000",
      "--rate-limit",
      "0",
      "--json",
    ),
  );
  cli(env, "accounts", "set", "--username", username, "--dlt-scrubbing", "off");
  sender = { username, key: created.api_key };
}
if (values.key) {
  const limits =
    values.key === "limited"
      ? [
          "--scopes",
          "send",
          "--allowed-ips",
          "203.0.113.0/24,198.51.100.0/24,192.0.2.0/24,2001:db8::/32,10.0.0.0/8,172.16.0.0/12,::1,127.0.0.0/8",
        ]
      : [];
  const made = JSON.parse(
    cli(env, "keys", "create", "--account", sender.username, "--rate-limit", "0", ...limits, "--json"),
  );
  sender = { ...sender, key: made.api_key, byKey: true };
}
if (values.webhooks) {
  const r = await fetch(`${base}/api/v2/webhooks`, {
    method: "PUT",
    headers: { authorization: `Bearer ${server.demoKey}`, "content-type": "application/json" },
    body: JSON.stringify({ delivery_report: `http://127.0.0.1:${receiver.address().port}/hook` }),
  });
  if (!r.ok) throw new Error(await r.text());
}
const request =
  values.family === "v2"
    ? {
        url: `${base}/api/v2/sms/send`,
        method: "POST",
        auth: `Bearer ${sender.key}`,
        body: JSON.stringify({ sender_id: "SWBRD", recipient: "9876543210", message: TEXT }),
      }
    : {
        url: `${base}/httpapi/send?${new URLSearchParams({ ...(sender.byKey ? { api_key: sender.key } : { username: sender.username, password }), sender_id: "SWBRD", route: "T", phonenumber: "9876543210", message: TEXT })}`,
      };
if (values.dlt) {
  // One send first, in every mode: the account's DLT caches (its template index; checks on, its
  // white-lists) loaded as in a server that has been sending. A running server loads them once a
  // minute or after a change; a 10 s run would count the whole load (10,000 entries) each time.
  const r = await fetch(request.url, {
    method: request.method ?? "GET",
    headers: request.auth ? { authorization: request.auth, "content-type": "application/json" } : {},
    ...(request.body ? { body: request.body } : {}),
  });
  if (!r.ok) throw new Error(`warm-up send: ${r.status} ${await r.text()}`);
}
const accepted0 = await metric(base, "switchboard_messages_accepted_total");
const threads0 = threadCpu(server.child.pid);
// The load's window on the monotonic clock V8 stamps profile samples with (µs), so the summaries
// count the load only, not the start-up and set-up before it nor the stop after it.
const loadFrom = Number(process.hrtime.bigint() / 1000n);
const wrk = spawn(
  "wrk",
  [
    "-t2",
    `-c${values.connections}`,
    `-d${values.seconds}s`,
    "--latency",
    "-s",
    new URL("./wrk-send.lua", import.meta.url).pathname,
    request.url,
  ],
  {
    env: {
      ...process.env,
      BENCH_METHOD: request.method ?? "GET",
      BENCH_BODY: request.body ?? "",
      BENCH_AUTH: request.auth ?? "",
      // The DLT text's OTP differs in every request, as in real sends (none is read from memory).
      BENCH_VARY: values.dlt ? DLT_CODE : "",
    },
    stdio: ["ignore", "pipe", "inherit"],
  },
);
let wrkOut = "";
wrk.stdout.on("data", (c) => {
  wrkOut += c;
});
await new Promise((r) => wrk.on("exit", r));
const loadTo = Number(process.hrtime.bigint() / 1000n);
const accepted = (await metric(base, "switchboard_messages_accepted_total")) - accepted0;
// Where a send's time goes: the whole request (HTTP thread), the Acceptor's wait for its group's
// commit and fsync (the committing thread), and how many sends a group held.
const mean = async (name, labels = "") =>
  (await metric(base, `${name}_sum`, labels)) / Math.max(1, await metric(base, `${name}_count`, labels));
console.log(
  `mean request ${(1000 * (await mean("switchboard_http_request_duration_seconds"))).toFixed(2)} ms,` +
    ` of which waiting for the commit ${(1000 * (await mean("switchboard_accept_seconds"))).toFixed(2)} ms;` +
    ` ${(await mean("switchboard_accept_batch_size")).toFixed(1)} sends per commit group`,
);
const threads1 = threadCpu(server.child.pid);
for (const [tid, t] of threads1) {
  const before = threads0.get(tid)?.cpu ?? 0;
  const used = t.cpu - before;
  if (used > 0.05)
    console.log(
      `thread ${tid} ${t.name}: ${used.toFixed(2)} s CPU, ${((used * 1e6) / accepted).toFixed(0)} µs per accepted message`,
    );
}
console.log(
  wrkOut
    .split("\n")
    .filter((l) => /Latency|50%|99%|Requests\/sec/.test(l))
    .join("\n"),
);
console.log(
  `accepted ${accepted} (${(accepted / Number(values.seconds)).toFixed(0)}/s), webhook posts received ${receiverHits}`,
);
await new Promise((r) => setTimeout(r, 1000));
server.child.kill("SIGTERM");
await new Promise((r) => server.child.once("exit", r));
receiver.close();
db.cleanup();

// For tools that compare two runs' profiles (per message, over the load only).
fs.writeFileSync(path.join(dir, "load.json"), JSON.stringify({ loadFrom, loadTo, accepted }));
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile"))) summarize(path.join(dir, file));
console.log(`profiles in ${dir}`);
process.exit(0);

function summarize(file) {
  const profile = JSON.parse(fs.readFileSync(file, "utf8"));
  const self = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < loadFrom || at > loadTo) return;
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byPackage = new Map();
  for (const node of profile.nodes) {
    const t = self.get(node.id) ?? 0;
    if (!t) continue;
    const url = node.callFrame.url || "";
    const where = url.includes("node_modules/")
      ? url.replace(/.*node_modules\/((@[^/]+\/)?[^/]+).*/, "$1")
      : url.includes("/dist/")
        ? url.replace(/.*\/dist\//, "dist/")
        : url.startsWith("node:")
          ? url
          : "(native/gc/idle)";
    const key = `${node.callFrame.functionName || "(anonymous)"} ${where}:${node.callFrame.lineNumber + 1}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + t);
    const pkg = where.startsWith("dist/") ? where.replace(/^dist\/([^/]+).*/, "dist/$1") : where.replace(/:.*/, "");
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + t);
  }
  const idle = [...byFunction.entries()].filter(([k]) => k.startsWith("(idle)")).reduce((a, [, v]) => a + v, 0);
  console.log(
    `\n== ${path.basename(file)}: ${(total / 1e6).toFixed(1)} s sampled during the load, ${((100 * (total - idle)) / total).toFixed(0)}% busy`,
  );
  const top = Number(values.top);
  const show = (map) =>
    [...map.entries()]
      .filter(([k]) => !k.startsWith("(idle)"))
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .forEach(([k, v]) => {
        console.log(`${((100 * v) / (total - idle)).toFixed(1).padStart(5)}%  ${k}`);
      });
  console.log("-- by package/folder");
  show(byPackage);
  console.log("-- by function");
  show(byFunction);
}

/**
 * A price card of `rows` rows as CSV: Indian mobile prefixes (91 and 2-8 more digits) and other
 * countries', on every SMS route and `*`, a tenth in force only from 30 days on, and a `*,*` row.
 */
function priceCardCsv(rows) {
  let seed = 11;
  const random = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");
  const countries = ["91", "91", "91", "1", "44", "971", "65", "880"];
  const routes = ["T", "P", "PS", "I", "*"];
  const later = new Date(Date.now() + 30 * 86_400_000).toISOString();
  const lines = ["channel,route,prefix,price,effective_from"];
  const seen = new Set();
  while (lines.length < rows) {
    const prefix = countries[Math.floor(random() * countries.length)] + digits(Math.floor(random() * 7));
    const route = routes[Math.floor(random() * routes.length)];
    const from = random() < 0.1 ? later : "";
    if (seen.has(`${route}|${prefix}|${from}`)) continue;
    seen.add(`${route}|${prefix}|${from}`);
    lines.push(`sms,${route},${prefix},${(1 + Math.floor(random() * 2000)) / 1000},${from}`);
  }
  lines.push("sms,*,*,1,");
  return `${lines.join("\n")}\n`;
}
