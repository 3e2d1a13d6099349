// How a route orders its connectors, by its strategy (router.ts picks the route):
//   weighted    smooth weighted round robin by each connector's weight (today's behaviour)
//   least_cost  the connector whose cost card prices the message lowest first, then in cost order
//               (a connector with no row for it after every priced one, in list order)
//   adaptive    smooth weighted round robin by the shares the route's scores give (route-scores.ts
//               in carriers/ measures them from the database), then in score order
// In each, connectors that are down are left out and standbys (weight 0) come last. least_cost and
// adaptive say why in a note the message keeps (its timeline shows it).
import type { CompiledCard, UnitPrice } from "../../domain/accounts/index.js";
import type { Connector } from "./connector.js";

export type Strategy = "weighted" | "least_cost" | "adaptive";

/** A connector of a route as the router keeps it; `current` is its round robin's running weight. */
export interface RouteEntry {
  connector: Connector;
  weight: number;
  current: number;
}

/** What an adaptive route's scores say of one of its connectors. */
export interface ConnectorScore {
  score: number;
  /**
   * Share of the route's traffic it gets now: 0 when disabled or down (left out), the others'
   * shares of what they carry (adding up to 1), as the round robin by `weight` among them gives.
   */
  share: number;
  /** Its share were every connector of the route up: its weight in the round robin among those up. */
  weight: number;
  /** Why, in words: "97.1 % delivered weighted to recent receipts (480 of the last 500), 1.2 s p50, cost 0.11". */
  note: string;
}

/** The current scores of adaptive routes, by route (`T/44`), then connector name. */
export interface RouteScoresSource {
  scoresOf(routeKey: string): ReadonlyMap<string, ConnectorScore> | undefined;
}

/** The connectors in the order to try them, and why the first (null: weighted, nothing to say). */
export interface Ordered {
  connectors: Connector[];
  note: ((connector: string) => string) | null;
}

/** The message's unit as a cost card looks it up. */
export interface CostedUnit {
  channel: "sms" | "voice";
  code: string;
  digits: string;
  now: number;
}

/** Picks by smooth weighted round robin (as nginx's upstream balancer): spreads picks evenly by weight. */
function roundRobin(entries: readonly RouteEntry[], weightOf: (entry: RouteEntry) => number): RouteEntry {
  let total = 0;
  let best = entries[0]!;
  for (const entry of entries) {
    const weight = weightOf(entry);
    entry.current += weight;
    total += weight;
    if (entry.current > best.current) best = entry;
  }
  best.current -= total;
  return best;
}

const standbysLast = (chosen: RouteEntry[], up: readonly RouteEntry[]) => [
  ...chosen.map((entry) => entry.connector),
  ...up.filter((entry) => entry.weight === 0).map((entry) => entry.connector),
];

export function weightedOrder(up: readonly RouteEntry[]): Ordered {
  const weighted = up.filter((entry) => entry.weight > 0);
  if (weighted.length === 0) return { connectors: up.map((entry) => entry.connector), note: null };
  const best = roundRobin(weighted, (entry) => entry.weight);
  return { connectors: standbysLast([best, ...weighted.filter((entry) => entry !== best)], up), note: null };
}

/** Credits with up to 3 decimals, as cards are written. */
export const credits = (milli: number) => String(Math.round(milli) / 1000);

export function leastCostOrder(
  up: readonly RouteEntry[],
  costs: ReadonlyMap<string, CompiledCard>,
  unit: CostedUnit,
): Ordered {
  const priced = up
    .filter((entry) => entry.weight > 0)
    .map((entry, index) => ({
      entry,
      index,
      cost: costs.get(entry.connector.name)?.find(unit.channel, unit.code, unit.digits, unit.now),
    }))
    .sort((a, b) => (a.cost?.price ?? Infinity) - (b.cost?.price ?? Infinity) || a.index - b.index);
  const describe = (item: { entry: RouteEntry; cost: UnitPrice | undefined }) =>
    `${item.entry.connector.name} ${item.cost ? `${credits(item.cost.price)} (prefix ${item.cost.prefix})` : "no cost row"}`;
  return {
    connectors: standbysLast(
      priced.map((item) => item.entry),
      up,
    ),
    note: (connector) => {
      const rank = priced.findIndex((item) => item.entry.connector.name === connector);
      const place = rank === 0 ? "cheapest" : rank > 0 ? `number ${rank + 1} by cost` : "a standby";
      return `least_cost: ${connector}, ${place} of ${priced.length} up (${priced.map(describe).join(", ")} a unit)`;
    },
  };
}

export function adaptiveOrder(
  up: readonly RouteEntry[],
  scores: ReadonlyMap<string, ConnectorScore> | undefined,
): Ordered {
  const serving = up.filter((entry) => entry.weight > 0);
  if (serving.length === 0) return weightedOrder(up);
  // A connector the scores do not know yet (just added) gets an even share until they do.
  // By weight, not share: one the scores took for down (another worker's view, or a state older
  // than their last measure) gets its part here as soon as this worker sees it up.
  const shareOf = (entry: RouteEntry) => scores?.get(entry.connector.name)?.weight ?? 1 / serving.length;
  const best = roundRobin(serving, shareOf);
  const scoreOf = (entry: RouteEntry) => scores?.get(entry.connector.name)?.score ?? 0;
  const rest = serving.filter((entry) => entry !== best).sort((a, b) => scoreOf(b) - scoreOf(a));
  return {
    connectors: standbysLast([best, ...rest], up),
    note: (connector) => {
      const score = scores?.get(connector);
      if (!score) return `adaptive: ${connector}, not scored yet (an even share)`;
      return `adaptive: ${connector}: ${score.note}; score ${score.score.toFixed(3)}, share ${Math.round(score.share * 1000) / 10} %`;
    },
  };
}
