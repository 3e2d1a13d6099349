// Issue 39: what prices cost a send. Runs bench/profile-send.mjs (no profiler) for today's send
// (the demo account on the built-in default card), the same account on a 50,000-row card, and a
// send from a sub-account three levels below it (charged at every level), alternated round by
// round (base, card, levels, base, card, levels …) for each family, and prints each variant's
// accepted rate and CPU per accepted message (all threads) with its ratio to the base run of the
// same round. Usage:
//   npm run build && node bench/pricing-send.mjs [--rounds 3] [--seconds 10] [--families v2,legacy] [--card 50000]
import { spawnSync } from "node:child_process";
import { parseArgs } from "node:util";
import { machine, median, range } from "./lib.mjs";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    seconds: { type: "string", default: "10" },
    families: { type: "string", default: "v2,legacy" },
    card: { type: "string", default: "50000" },
  },
});
const VARIANTS = [
  { name: "today", args: [] },
  { name: `card ${values.card} rows`, args: ["--card", values.card] },
  { name: "3-level reseller", args: ["--levels", "3"] },
];
const script = new URL("./profile-send.mjs", import.meta.url).pathname;

function run(family, variant) {
  const result = spawnSync(
    process.execPath,
    [script, "--no-profile", "--family", family, "--seconds", values.seconds, ...variant.args],
    { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
  );
  if (result.status !== 0) throw new Error(`${family} ${variant.name} failed: ${result.stderr}`);
  const rate = Number(/accepted \d+ \((\d+)\/s\)/.exec(result.stdout)?.[1]);
  const micros = [...result.stdout.matchAll(/(\d+) µs per accepted message/g)].reduce(
    (sum, m) => sum + Number(m[1]),
    0,
  );
  return { rate, micros };
}

console.log(machine());
for (const family of values.families.split(",")) {
  const results = new Map(VARIANTS.map((v) => [v.name, []]));
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const variant of VARIANTS) {
      const r = run(family, variant);
      results.get(variant.name).push(r);
      console.log(`${family} round ${round + 1} ${variant.name}: ${r.rate}/s, ${r.micros} µs CPU per message`);
    }
  }
  const base = results.get("today");
  console.log(
    `\n${family}: variant | rate/s median (range) | CPU µs/msg median | rate ratio to today (range) | CPU ratio`,
  );
  for (const variant of VARIANTS) {
    const rs = results.get(variant.name);
    const rateRatios = rs.map((r, i) => r.rate / base[i].rate);
    const cpuRatios = rs.map((r, i) => r.micros / base[i].micros);
    console.log(
      `${variant.name} | ${median(rs.map((r) => r.rate))} (${Math.min(...rs.map((r) => r.rate))}–${Math.max(...rs.map((r) => r.rate))})` +
        ` | ${median(rs.map((r) => r.micros))} | ${median(rateRatios).toFixed(2)} (${range(rateRatios, 2)}) | ${median(cpuRatios).toFixed(2)} (${range(cpuRatios, 2)})`,
    );
  }
}
