// SMS traffic classes (the `route` of a send: transactional, promotional, promotional with sender
// ID, international): what the v2 names and the legacy codes mean, which lane they ride and what
// they cost per segment. Not to be confused with a routing rule (dispatch/router.ts) or an HTTP route.
import { GatewayError } from "./errors.js";

export type TrafficClass = "transactional" | "promotional" | "promotional_sender" | "international";

/** A Map, not an object: a client's "constructor" or "__proto__" must not find Object.prototype's. */
const BY_NAME = new Map<string, TrafficClass>([
  ["transactional", "transactional"],
  ["promotional", "promotional"],
  ["t", "transactional"],
  ["p", "promotional"],
  ["ps", "promotional_sender"],
  ["i", "international"],
  ["international", "international"],
]);

const CODES: Record<TrafficClass, string> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
};

/** The legacy letter code of a route (what accounts.routes lists). */
export function trafficClassCode(route: TrafficClass): string {
  return CODES[route];
}

export function parseTrafficClass(raw: string | undefined, fallback: TrafficClass = "transactional"): TrafficClass {
  if (raw === undefined || raw.trim() === "") return fallback;
  if (raw.trim().toLowerCase() === "v") {
    throw new GatewayError(
      "route_not_approved",
      "Route V (voice) is not available on the SMS API; use /voicecall/v1/send.",
    );
  }
  const route = BY_NAME.get(raw.trim().toLowerCase());
  if (!route) {
    throw new GatewayError(
      "invalid_route",
      `Unknown route "${raw}": use transactional, promotional or international (legacy codes T, P, PS, I).`,
    );
  }
  return route;
}

/** Transactional traffic (OTPs, alerts) is lane 0 and always dispatched before promotional. */
export function laneOf(route: TrafficClass): number {
  return route === "transactional" ? 0 : 1;
}

/** Credits per segment, in milli-credits. */
export function pricePerSegment(_route: TrafficClass): number {
  return 1000;
}
