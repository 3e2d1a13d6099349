// Issue 40: the send rate with the DLT checks of issue 40 on against off. Runs
// bench/profile-send.mjs (no profiler) with `--dlt on` and `--dlt off`: the same account, text,
// settings and white-lists (strict matching, the telemarketer chain required and declared, 10,000
// white-listed links and callback numbers, a text with a link and a number in its values;
// bench/dlt-setup.mjs), DLT scrubbing on or off. Alternated round by round (on, off; off, on; …),
// it prints each round and the median ratio on/off of the accepted rate, of the CPU per accepted
// message (all threads), and of the main thread's CPU per message (HTTP and the SMS rules, where
// the checks run; the other threads' CPU includes costs per second, not per message, which a run
// at a lower rate spreads over fewer messages). Usage:
//   npm run build && node bench/dlt-send.mjs [--rounds 5] [--seconds 10] [--families v2] [--entries 10000]
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { machine, median, range } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "5" },
    seconds: { type: "string", default: "10" },
    families: { type: "string", default: "v2" },
    entries: { type: "string", default: "10000" },
  },
});
const script = new URL("./profile-send.mjs", import.meta.url).pathname;

/** One run; a run whose server did not start in time (a busy machine) is tried again, twice at most. */
function run(family, mode, tries = 3) {
  try {
    return runOnce(family, mode);
  } catch (error) {
    if (tries <= 1) throw error;
    console.log(`${family} ${mode}: ${String(error).split("\n")[0]}; trying again`);
    return run(family, mode, tries - 1);
  }
}

function runOnce(family, mode) {
  const result = spawnSync(
    process.execPath,
    [
      script,
      "--no-profile",
      "--family",
      family,
      "--seconds",
      values.seconds,
      "--dlt",
      mode,
      "--dlt-entries",
      values.entries,
    ],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`${family} ${mode} failed: ${result.stderr}`);
  const rate = Number(/accepted \d+ \((\d+)\/s\)/.exec(result.stdout)?.[1]);
  const threads = [...result.stdout.matchAll(/(\d+) µs per accepted message/g)].map((m) => Number(m[1]));
  const micros = threads.reduce((sum, m) => sum + m, 0);
  if (!(rate > 0)) throw new Error(`${family} ${mode}: nothing accepted\n${result.stdout}`);
  // The first thread listed is the main one: HTTP and the SMS rules, where the DLT checks run.
  return { rate, micros, main: threads[0] };
}

console.log(machine());
for (const family of values.families.split(",")) {
  const rateRatios = [];
  const cpuRatios = [];
  const mainRatios = [];
  for (let round = 1; round <= Number(values.rounds); round++) {
    // Alternate which goes first, so a machine growing busier or quieter favours neither.
    const order = round % 2 ? ["on", "off"] : ["off", "on"];
    const r = {};
    for (const mode of order) {
      r[mode] = run(family, mode);
      console.log(
        `${family} round ${round} ${mode}: ${r[mode].rate}/s, ${r[mode].micros} µs CPU per message (main thread ${r[mode].main})`,
      );
    }
    rateRatios.push(r.on.rate / r.off.rate);
    cpuRatios.push(r.on.micros / r.off.micros);
    mainRatios.push(r.on.main / r.off.main);
  }
  console.log(
    `\n${family}: rate on/off median ${median(rateRatios).toFixed(3)} (range ${range(rateRatios)}); ` +
      `CPU per message on/off median ${median(cpuRatios).toFixed(3)} (range ${range(cpuRatios)}); ` +
      `main thread's CPU per message on/off median ${median(mainRatios).toFixed(3)} (range ${range(mainRatios)})`,
  );
}
