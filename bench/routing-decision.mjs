// The routing decision per message, for each route strategy (delivery/dispatch/router.ts and
// route-strategies.ts): Router.plan() for an SMS to a random number on a route of 4 connectors,
// plus, for least_cost and adaptive, the note the message keeps, and the cost look-up at submit
// (unitCost). Cost cards of 5,000 rows per connector; adaptive scores set as route-scores.ts
// leaves them (their measurement from the database runs every 5 s, off this path).
// Usage: npm run build && node bench/routing-decision.mjs [--decisions 500000]
import { parseArgs } from "node:util";
import { Router } from "../dist/delivery/dispatch/router.js";
import { CompiledCard } from "../dist/domain/accounts/price-lookup.js";
import { machine } from "./lib.mjs";

const { values } = parseArgs({ options: { decisions: { type: "string", default: "500000" } } });
const DECISIONS = Number(values.decisions);

let seed = 7;
const random = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const digits = (n) => Array.from({ length: n }, () => Math.floor(random() * 10)).join("");
const NAMES = ["c1", "c2", "c3", "c4"];
const connectors = NAMES.map((name) => ({ name, channel: "sms", submit: async () => [], onReports() {} }));
const costs = new Map(
  NAMES.map((name) => {
    const rows = [];
    const seen = new Set();
    while (rows.length < 5000) {
      const prefix = `91${digits(1 + Math.floor(random() * 4))}`;
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      rows.push({ channel: "sms", route: "*", prefix, price: 5 + Math.floor(random() * 30), effective_from: null });
    }
    return [name, new CompiledCard(name, rows)];
  }),
);
const scoresByConnector = new Map(
  NAMES.map((name, i) => [
    name,
    {
      score: 0.9 - i * 0.01,
      share: [0.7, 0.2, 0.05, 0.05][i],
      note: "97.1 % delivered over the last 500, 1.2 s p50, cost 0.011",
    },
  ]),
);
const scores = { scoresOf: () => scoresByConnector };
const messages = Array.from({ length: 10_000 }, () => ({
  channel: "sms",
  route: "transactional",
  recipient: `9${digits(9)}`,
}));

console.log(machine());
for (const strategy of ["weighted", "least_cost", "adaptive"]) {
  const router = new Router(connectors, {
    routes: [{ route: "T", prefix: "", strategy, connectors: NAMES.map((name) => ({ name, weight: 1 })) }],
    costs,
    scores,
  });
  let sink = 0;
  const decide = (message) => {
    const plan = router.plan(message);
    const first = plan.connectors[0].name;
    sink += plan.note ? plan.note(first).length : 0;
    sink += router.unitCost(first, message)?.price ?? 0;
  };
  for (let i = 0; i < 100_000; i++) decide(messages[i % messages.length]);
  const batches = [];
  for (let done = 0; done < DECISIONS; done += messages.length) {
    const started = process.hrtime.bigint();
    for (const message of messages) decide(message);
    batches.push(Number(process.hrtime.bigint() - started) / messages.length / 1000);
  }
  batches.sort((a, b) => a - b);
  console.log(
    `${strategy.padEnd(10)} median batch ${batches[Math.floor(batches.length / 2)].toFixed(2)} µs, fastest ${batches[0].toFixed(2)} µs, slowest ${batches[batches.length - 1].toFixed(2)} µs per message (checksum ${sink % 997})`,
  );
}
