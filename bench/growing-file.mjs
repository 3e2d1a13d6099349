// The SQLite gateway as its file grows (decision 0137): one `switchboard start` on one fresh
// file, legacy sends under `wrk -t2 -c50` for --seconds, --rounds times in a row, each round's
// messages delivered before the next. Per round: accepted/s, the gateway's CPU per message (all
// threads, from the round's start until its messages are delivered) and the file's messages so
// far. A gateway whose statements walk what the file holds slows round by round; one whose
// statements read only what is due does not. --carrier smpp routes the sends to bench/smsc.mjs
// (4 binds of window 50, receipts after 100 ms) instead of the simulated carrier; --profile sets
// SWITCHBOARD_SQL_PROFILE=1, so the gateway prints its slowest statements when it stops.
// Usage: npm run build && node bench/growing-file.mjs [--rounds 6] [--seconds 15] [--carrier smpp] [--profile]
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { cli, cpuSeconds, freshSqliteUrl, machine, metric, startGatewayOnSmsc, startServer, waitFor } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "6" },
    seconds: { type: "string", default: "15" },
    carrier: { type: "string", default: "simulator" },
    profile: { type: "boolean", default: false },
  },
});
const port = String(19_000 + Math.floor(Math.random() * 1_000));
const settings = {
  LEGACY_THROTTLE_PER_SECOND: "0",
  SIMULATOR_FAILURE_RATE: "0",
  ...(values.profile ? { SWITCHBOARD_SQL_PROFILE: "1" } : {}),
};
let server;
let stop;
if (values.carrier === "smpp") {
  const started = await startGatewayOnSmsc({ port, connections: 4, window: 50, receiptDelayMs: 100, env: settings });
  server = started.server;
  stop = started.stop;
} else {
  const db = freshSqliteUrl();
  const env = { PORT: port, DATABASE_URL: db.url, LOG_LEVEL: "warn", ...settings };
  server = await startServer("start", env);
  cli(env, "credits", "add", "--account", "demo", "--wallet", "sms", "--amount", "100000000");
  stop = async () => {
    server.child.kill("SIGTERM");
    await new Promise((resolve) => server.child.once("exit", resolve));
    db.cleanup();
  };
}
const base = `http://127.0.0.1:${port}`;
const pid = server.child.pid;
const password = /Demo account[\s\S]*?password:\s+(\S+)/.exec(server.output())?.[1];
const url = `${base}/httpapi/send?${new URLSearchParams({ username: "demo", password, sender_id: "SWBRD", route: "T", phonenumber: "9876543210", message: "Your OTP is 482913. Do not share it with anyone." })}`;

console.log(
  `machine: ${machine()}; ${values.rounds} rounds of ${values.seconds} s on one file; carrier ${values.carrier}`,
);
console.log("| Round | Messages in the file before | Accepted/s | CPU µs per message |");
console.log("|---|---|---|---|");
const perRound = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  const before = await metric(base, "switchboard_messages_accepted_total");
  const cpuBefore = cpuSeconds(pid);
  const wrk = spawnSync("wrk", ["-t2", "-c50", `-d${values.seconds}s`, url], { encoding: "utf8" });
  if (wrk.status !== 0) throw new Error(`wrk failed: ${wrk.stderr}`);
  const accepted = (await metric(base, "switchboard_messages_accepted_total")) - before;
  await waitFor(async () => (await metric(base, "switchboard_messages_delivered_total")) >= before + accepted, {
    timeoutMs: 300_000,
  });
  const micros = ((cpuSeconds(pid) - cpuBefore) * 1e6) / accepted;
  perRound.push(micros);
  console.log(
    `| ${round} | ${before.toLocaleString("en")} | ${Math.round(accepted / Number(values.seconds)).toLocaleString("en")} | ${micros.toFixed(0)} |`,
  );
}
console.log(`CPU per message, last round against the first: ${(perRound.at(-1) / perRound[0]).toFixed(2)}`);
await stop();
process.exit(0);
