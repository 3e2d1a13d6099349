// Price look-up cost on the accept path: one recipient priced by a 50,000-row card (CompiledCard,
// domain/accounts/price-lookup.ts): the send's own route code, then *, each from the longest
// prefix down, the row in force by effective_from. The card has rows on every route and many
// prefixes of 2 to 8 digits (country codes and number ranges), a tenth of them with a later
// effective_from; recipients are random numbers of those countries (most hit a long prefix, some
// fall through to a short one or the * row). Reports the compile time and ns per look-up.
// Usage: npm run build && node bench/price-lookup.mjs [--rows 50000] [--lookups 2000000]
import { parseArgs } from "node:util";
import { CompiledCard } from "../dist/domain/accounts/price-lookup.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({
  options: { rows: { type: "string", default: "50000" }, lookups: { type: "string", default: "2000000" } },
});
const ROWS = Number(values.rows);
const LOOKUPS = Number(values.lookups);

let seed = 11;
const random = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");
const COUNTRIES = ["1", "44", "91", "33", "49", "61", "65", "971", "234", "880", "86", "81", "7", "55", "27"];
const ROUTES = ["T", "P", "PS", "I", "*"];
const NOW = Date.parse("2026-11-22T06:30:00Z");

const rows = [];
const seen = new Set();
while (rows.length < ROWS) {
  const country = COUNTRIES[Math.floor(random() * COUNTRIES.length)];
  const prefix = country + digits(Math.floor(random() * 6));
  const route = ROUTES[Math.floor(random() * ROUTES.length)];
  const effective = random() < 0.1 ? NOW + (random() < 0.5 ? -1 : 1) * 30 * 86_400_000 : null;
  const key = `${route}|${prefix}|${effective}`;
  if (seen.has(key)) continue;
  seen.add(key);
  rows.push({ channel: "sms", route, prefix, price: 1 + Math.floor(random() * 5000), effective_from: effective });
}
rows.push({ channel: "sms", route: "*", prefix: "*", price: 1000, effective_from: null });

let started = process.hrtime.bigint();
const card = new CompiledCard("bench", rows);
const compileMs = Number(process.hrtime.bigint() - started) / 1e6;

const probes = Array.from({ length: 10_000 }, () => {
  const country = COUNTRIES[Math.floor(random() * COUNTRIES.length)];
  return { route: ROUTES[Math.floor(random() * 4)], number: country + digits(12 - country.length) };
});

let sink = 0;
for (let i = 0; i < 200_000; i++) {
  const p = probes[i % probes.length];
  sink += card.price("sms", p.route, p.number, NOW).price;
}
// Batches of 10,000 look-ups, timed one batch at a time: the median and slowest batch per look-up.
const batches = [];
for (let done = 0; done < LOOKUPS; done += probes.length) {
  started = process.hrtime.bigint();
  for (const p of probes) sink += card.price("sms", p.route, p.number, NOW).price;
  batches.push(Number(process.hrtime.bigint() - started) / probes.length);
}
batches.sort((a, b) => a - b);
const mean = batches.reduce((a, b) => a + b, 0) / batches.length;
const hits = new Map();
for (const p of probes) {
  const { prefix } = card.price("sms", p.route, p.number, NOW);
  const kind = prefix === "*" ? "*" : `${prefix.length} digits`;
  hits.set(kind, (hits.get(kind) ?? 0) + 1);
}
console.log(machine());
console.log(`card: ${rows.length} rows, compiled in ${compileMs.toFixed(1)} ms`);
console.log(
  `look-up: mean ${mean.toFixed(0)} ns, median batch ${batches[Math.floor(batches.length / 2)].toFixed(0)} ns, slowest batch ${batches[batches.length - 1].toFixed(0)} ns per recipient (${LOOKUPS} look-ups)`,
);
console.log(`rows applied: ${[...hits].map(([k, n]) => `${k} ${n}`).join(", ")} (checksum ${sink % 997})`);
