// Issue 42, item 3: what a key's scopes and address allow-list cost a send. Runs
// bench/profile-send.mjs (no profiler) with a new plain key and with a key limited to `send` and
// an allow-list of 8 ranges (the client's matched last), alternated round by round (plain,
// limited, plain, limited …) for each family, and prints each variant's accepted rate and CPU per
// accepted message (all threads) with its ratio to the plain run of the same round. Usage:
//   npm run build && node bench/key-scopes-send.mjs [--rounds 4] [--seconds 10] [--families v2,legacy]
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { machine, median, range } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "4" },
    seconds: { type: "string", default: "10" },
    families: { type: "string", default: "v2,legacy" },
  },
});
const VARIANTS = ["plain", "limited"];
const script = new URL("./profile-send.mjs", import.meta.url).pathname;

/** One run; a run whose server did not start in time (a loaded machine) is tried again, twice at most. */
function run(family, variant, tries = 3) {
  const result = spawnSync(
    process.execPath,
    [script, "--no-profile", "--family", family, "--seconds", values.seconds, "--key", variant],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) {
    if (tries > 1 && result.stderr.includes("timed out waiting")) return run(family, variant, tries - 1);
    throw new Error(`${family} ${variant} failed: ${result.stderr}`);
  }
  const rate = Number(/accepted \d+ \((\d+)\/s\)/.exec(result.stdout)?.[1]);
  const micros = [...result.stdout.matchAll(/(\d+) µs per accepted message/g)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  return { rate, micros };
}

console.log(machine());
for (const family of values.families.split(",")) {
  const results = new Map(VARIANTS.map((v) => [v, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    // The order inside a round alternates too, so neither variant always runs on a warmer machine.
    const order = round % 2 === 0 ? VARIANTS : [...VARIANTS].reverse();
    for (const variant of order) {
      const r = run(family, variant);
      results.get(variant).push(r);
      console.log(`${family} round ${round + 1} ${variant}: ${r.rate}/s, ${r.micros} µs CPU per message`);
    }
  }
  const base = results.get("plain");
  console.log(`\n${family}: key | rate/s median (range) | CPU µs/msg median | rate ratio to plain (range) | CPU ratio`);
  for (const variant of VARIANTS) {
    const rs = results.get(variant);
    const rateRatios = rs.map((r, i) => r.rate / base[i].rate);
    const cpuRatios = rs.map((r, i) => r.micros / base[i].micros);
    console.log(
      `${variant} | ${median(rs.map((r) => r.rate))} (${Math.min(...rs.map((r) => r.rate))}–${Math.max(...rs.map((r) => r.rate))})` +
        ` | ${median(rs.map((r) => r.micros))} | ${median(rateRatios).toFixed(3)} (${range(rateRatios)}) | ${median(cpuRatios).toFixed(3)} (${range(cpuRatios)})`,
    );
  }
}
