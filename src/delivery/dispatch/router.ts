// Picks the connectors for a message, in the order to try them.
//
// SMS and voice follow the operator's routes (carriers/definitions.ts): a route names a route
// code (T, P, PS, I, V or * for any) and a number prefix (digits with the country code, "" for
// every number) and lists connectors with weights. The route for a message is the one with its
// own route code before *, then the longest matching prefix. Within it, traffic is shared by
// weight (smooth weighted round robin: 70/30 sends exactly 7 of every 10 to the first) among
// the connectors that are up; the others of the list follow in list order as failover, and
// standbys (weight 0) come last. Connectors that are down are left out. A least_cost or adaptive
// route orders them by cost or by measured quality instead (route-strategies.ts).
//
// With no SMS route configured, SMS go to the simulator (the developer default); once any SMS
// route exists, an SMS no route matches fails with no_route (and is refunded). Email and
// WhatsApp go to their channel's one connector; voice to its connector unless a V route matches.
import { internationalDigits } from "../../base/core/indian-mobile.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { CompiledCard, UnitPrice } from "../../domain/accounts/index.js";
import type { Connector } from "./connector.js";
import {
  adaptiveOrder,
  leastCostOrder,
  type Ordered,
  type RouteEntry,
  type RouteScoresSource,
  type Strategy,
  weightedOrder,
} from "./route-strategies.js";

/** The code a routing rule matches: T, P, PS, I (SMS traffic classes), V (voice), * (any SMS). */
export type RouteCode = "T" | "P" | "PS" | "I" | "V" | "*";

/** A routing rule as the router reads it; carriers/definitions.ts validates the operator's (RoutingRuleSchema). */
export interface RoutingRule {
  route: RouteCode;
  prefix: string;
  connectors: { name: string; weight?: number }[];
  /** weighted when absent. */
  strategy?: Strategy;
}

export type RoutedMessage = Pick<MessageRow, "channel" | "route" | "recipient">;

export type Plan =
  | {
      ok: true;
      connectors: Connector[];
      /** Why the route chose `connector` (least_cost and adaptive routes). */
      note?: ((connector: string) => string) | null;
    }
  | { ok: false; retryable: boolean; code: "no_route" | "connectors_down"; message: string };

export interface RouterOptions {
  /** Routes of SMS (T, P, PS, I, *) and voice (V). */
  routes?: readonly RoutingRule[];
  /** Whether a connector takes traffic now (health); every connector is up when absent. */
  isUp?: (name: string) => boolean;
  /**
   * Why a connector a route names takes no traffic (`disabled`, `down (not bound)`, `circuit open
   * until …`), for the words of a message held because none does; `down` when absent.
   */
  whyNotUp?: (name: string) => string;
  /** Each connector's cost card (carriers/cost-cards.ts), by connector name. */
  costs?: ReadonlyMap<string, CompiledCard>;
  /** The current scores of adaptive routes. */
  scores?: RouteScoresSource;
  now?: () => number;
}

/** A route's key in scores and metrics: route code / prefix (`*` for every number). */
export function routeKey(route: { route: string; prefix: string }): string {
  return `${route.route}/${route.prefix || "*"}`;
}

const ROUTE_CODES: Record<string, RouteCode> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
};

/** The route code a message travels under: V for voice, T/P/PS/I for SMS ("" when it has none). */
export function routeCodeOf(message: Pick<MessageRow, "channel" | "route">): RouteCode | "" {
  if (message.channel === "voice") return "V";
  return ROUTE_CODES[message.route] ?? "";
}

interface CompiledRoute {
  code: RouteCode;
  prefix: string;
  key: string;
  strategy: Strategy;
  entries: RouteEntry[];
  /** Every connector the route lists, running or not (a disabled one has no entry). */
  names: string[];
}

const NO_COSTS: ReadonlyMap<string, CompiledCard> = new Map();

export class Router {
  private readonly firstOfChannel = new Map<string, Connector>();
  private readonly routes: CompiledRoute[];
  private readonly hasSmsRoutes: boolean;
  private readonly isUp: (name: string) => boolean;
  private readonly whyNotUp: (name: string) => string;
  private readonly costs: ReadonlyMap<string, CompiledCard>;
  private readonly scores: RouteScoresSource | undefined;
  private readonly now: () => number;

  constructor(connectors: readonly Connector[], options: RouterOptions = {}) {
    const byName = new Map<string, Connector>();
    for (const connector of connectors) {
      byName.set(connector.name, connector);
      if (!this.firstOfChannel.has(connector.channel)) this.firstOfChannel.set(connector.channel, connector);
    }
    this.isUp = options.isUp ?? (() => true);
    this.whyNotUp = options.whyNotUp ?? (() => "down");
    this.costs = options.costs ?? NO_COSTS;
    this.scores = options.scores;
    this.now = options.now ?? Date.now;
    this.routes = (options.routes ?? [])
      .map((route) => ({
        code: route.route,
        prefix: route.prefix,
        key: routeKey(route),
        strategy: route.strategy ?? "weighted",
        entries: route.connectors.flatMap((entry) => {
          const connector = byName.get(entry.name);
          return connector ? [{ connector, weight: entry.weight ?? 1, current: 0 }] : [];
        }),
        names: route.connectors.map((entry) => entry.name),
      }))
      // Own route code before *, then the longest prefix first: the first match wins.
      .sort((a, b) => Number(a.code === "*") - Number(b.code === "*") || b.prefix.length - a.prefix.length);
    this.hasSmsRoutes = this.routes.some((route) => route.code !== "V");
  }

  /** The connectors to try for `message`, first choice first. */
  plan(message: RoutedMessage): Plan {
    const code = routeCodeOf(message);
    if (message.channel !== "sms" && message.channel !== "voice") return this.channelDefault(message.channel);
    const number = internationalDigits(message.recipient, message.route);
    const route = this.routes.find(
      (r) => (r.code === code || (r.code === "*" && message.channel === "sms")) && number.startsWith(r.prefix),
    );
    if (!route) {
      if (message.channel === "voice" || !this.hasSmsRoutes) return this.channelDefault(message.channel);
      return {
        ok: false,
        retryable: false,
        code: "no_route",
        message: `No route for route code ${code || "(none)"} and number ${number}.`,
      };
    }
    const { connectors, note } = this.order(route, message.channel, code, number);
    if (connectors.length > 0) return { ok: true, connectors, note };
    // Each connector the route lists and why it takes no traffic, so support knows which carrier to look at.
    const states = route.names.map((name) => `${name} ${this.whyNotUp(name)}`).join("; ");
    return {
      ok: false,
      retryable: true,
      code: "connectors_down",
      message: `No connector of the route ${route.code}/${route.prefix || "*"} is up: ${states || "it lists none"}.`,
    };
  }

  private channelDefault(channel: string): Plan {
    const connector = this.firstOfChannel.get(channel);
    if (connector) return { ok: true, connectors: [connector] };
    return { ok: false, retryable: false, code: "no_route", message: `No connector serves the ${channel} channel.` };
  }

  /** The route's up connectors in the order its strategy tries them, standbys last. */
  private order(route: CompiledRoute, channel: "sms" | "voice", code: string, digits: string): Ordered {
    const up = route.entries.filter((entry) => this.isUp(entry.connector.name));
    if (route.strategy === "least_cost")
      return leastCostOrder(up, this.costs, { channel, code, digits, now: this.now() });
    if (route.strategy === "adaptive") return adaptiveOrder(up, this.scores?.scoresOf(route.key));
    return weightedOrder(up);
  }

  /** What the connector's carrier charges for a unit (SMS segment, voice unit) of the message; undefined: no cost row. */
  unitCost(connector: string, message: RoutedMessage): UnitPrice | undefined {
    const card = this.costs.get(connector);
    if (!card || (message.channel !== "sms" && message.channel !== "voice")) return undefined;
    const code = routeCodeOf(message) || "*";
    return card.find(message.channel, code, internationalDigits(message.recipient, message.route), this.now());
  }
}
