// Longer variants of the fault suite (test/faults/faults.test.ts): more rounds of every fault,
// longer outages (Redis stopped, the SMSC refusing connections, the webhook receiver answering
// 500) and another offered rate, through the same test and its invariants. Prints the figures
// line per fault. Needs PostgreSQL's initdb/pg_ctl and redis-server, and a build (dist/).
// Usage: npm run build && node bench/faults/run.mjs [--rounds 3] [--seconds 30] [--rate 100]
//   [--receiver-seconds 600]
//   e.g. the issue's long variants: --seconds 30 (Redis down 30 s) or --receiver-seconds 600 (the
//   receiver answering 500 for 10 minutes of the webhook senders' clock, lived in --seconds:
//   the test shortens each retry's wait as a faster clock would; --seconds 600 waits it out).
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "30" },
    rate: { type: "string", default: "100" },
    "receiver-seconds": { type: "string" },
  },
});
const root = fileURLToPath(new URL("../..", import.meta.url));
const started = Date.now();
const run = spawnSync("npx", ["vitest", "run", "test/faults/faults.test.ts"], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    SWITCHBOARD_REQUIRE_POSTGRES: "1",
    FAULT_TRACE: "1",
    FAULT_ROUNDS: values.rounds,
    FAULT_OUTAGE_SECONDS: values.seconds,
    FAULT_RATE: values.rate,
    ...(values["receiver-seconds"] ? { FAULT_RECEIVER_SECONDS: values["receiver-seconds"] } : {}),
  },
});
console.log(
  `\nbench/faults: ${values.rounds} round(s), outages of ${values.seconds} s${values["receiver-seconds"] ? ` (the receiver's ${values["receiver-seconds"]} s)` : ""}, ${values.rate} sends/s offered: ${run.status === 0 ? "every invariant held" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
process.exit(run.status ?? 1);
