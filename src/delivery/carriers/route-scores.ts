// The scores of adaptive routes: each connector of each adaptive route scored for the route's
// destination prefix from what the gateway measured (the delivery rate of its last receipts, the
// median accept → receipt latency, the share of its submits the carrier refused) and from its cost
// card, weighed by the route's scoring, and turned into shares of the route's traffic.
// A receipt weighs less the more receipts of its connector and the more messages of its route
// came after it (decision 0147): a connector the route starves of traffic does not keep its old
// score, its few new receipts outweigh its old ones. A connector with fewer than MIN_RECEIPTS
// receipts is on trial: its share stays between TRIAL_SHARE and an even split, whatever it costs.
// A connector disabled or down gets share 0, the others the traffic they carry (carriedShares).
// Measured from the database (messages, connector_health, carriers), so the thread or process that routes
// sees receipts whichever one applied them; refreshed every REFRESH_MS and kept between refreshes.

import { internationalDigits } from "../../base/core/indian-mobile.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { CompiledCard, type PriceRow, storedPriceRow } from "../../domain/accounts/index.js";
import { recentConnectorOutcomes } from "../../domain/messages/index.js";
import type { ConnectorScore, RouteScoresSource } from "../dispatch/index.js";
import { routeCodeOf, routeKey } from "../dispatch/index.js";
import { type ConnectorHealthView, listCarriers, readConnectorHealth } from "./catalog.js";
import { DEFAULT_SCORING, type RouteScoring, type RoutingRule } from "./definitions.js";

/** Receipts a connector is judged by (its last, newest weighing most). */
export const SAMPLE = 500;
/** A receipt's weight halves every HALF_LIFE newer receipts: a carrier that turns bad (or good) shows within about that many. */
const HALF_LIFE = 30;
/**
 * And halves every ROUTE_HALF_LIFE messages its route submitted after it, to any connector: the
 * receipts of a connector that gets 2.5 % of the traffic lose half their weight every 5 of its own.
 */
export const ROUTE_HALF_LIFE = 200;
/** Receipts a connector needs before its score decides its share. */
export const MIN_RECEIPTS = 20;
/** Until then its share is at least this (or an even split, if less) and at most an even split. */
export const TRIAL_SHARE = 0.1;
/** Receipts older than this are not read. */
const WINDOW_MS = 3_600_000;
const REFRESH_MS = 5_000;
/** How sharply shares follow scores: a score 0.02 higher is worth e (2.7) times the share. */
const TEMPERATURE = 0.02;
/** What a connector without receipts is taken to deliver (so that it is tried, not preferred). */
const PRIOR_RATE = 0.9;

/** One connector of an adaptive route as scored. */
export interface RouteScoreView extends ConnectorScore {
  route: string;
  connector: string;
  /** Receipts measured (delivered + failed) of the last SAMPLE messages. */
  receipts: number;
  /** Of them, delivered: the plain ratio is receipts_delivered / receipts, as delivery analytics counts. */
  receipts_delivered: number;
  /** Delivered share weighted to recent receipts (the newest weigh most): what the score uses; null before any receipt. */
  delivery_rate: number | null;
  latency_p50_ms: number | null;
  /** Share of its last submits the carrier refused (each worker's last RECENT_SUBMITS, summed). */
  refusal_rate: number | null;
  /** Credits a unit for the route's prefix by its cost card; null: no cost row. */
  cost: number | null;
  /** Why it takes none of the route's traffic now (the router leaves it out; its share is 0); null: it carries. */
  idle: Idle | null;
}

/** Why a connector of a route takes no traffic: disabled by the operator, or down as its workers report. */
export type Idle = "disabled" | "down";

interface Measured {
  receipts: number;
  /** Receipts delivered, unweighted. */
  delivered: number;
  /** Delivered share weighted to recent receipts. */
  rate: number | null;
  p50: number | null;
}

type Outcome = Awaited<ReturnType<typeof recentConnectorOutcomes>>[number];

/** The route's messages submitted after `at`, counted in its submit times sorted ascending. */
function newerThan(sorted: readonly number[], at: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (sorted[mid]! <= at) low = mid + 1;
    else high = mid;
  }
  return sorted.length - low;
}

/**
 * Whether the route takes such a message: of its route code (any under `*`), to its prefix. A
 * connector shared by an I route and a T route is judged on each by that route's own messages,
 * not by the other's (a carrier good in India may not be abroad). V routes name voice connectors,
 * which carry calls only.
 */
function takes(route: Pick<RoutingRule, "route" | "prefix">, row: Outcome): boolean {
  if (route.route !== "*" && route.route !== "V" && routeCodeOf({ channel: "sms", route: row.route }) !== route.route) {
    return false;
  }
  return !route.prefix || internationalDigits(row.recipient, row.route).startsWith(route.prefix);
}

/**
 * Each connector of a route measured from its recent messages (newest first, as
 * recentConnectorOutcomes reads them): those the route takes, a receipt weighing
 * 0.5^(newer receipts of its connector / HALF_LIFE) × 0.5^(newer messages of the route / ROUTE_HALF_LIFE).
 */
export function measureRoute(
  route: Pick<RoutingRule, "route" | "prefix">,
  rowsOf: ReadonlyMap<string, readonly Outcome[]>,
): Map<string, Measured> {
  const mine = new Map([...rowsOf].map(([name, rows]) => [name, rows.filter((row) => takes(route, row))]));
  const submits = [...mine.values()].flatMap((rows) => rows.map((row) => row.submitted_at)).sort((a, b) => a - b);
  return new Map([...mine].map(([name, rows]) => [name, measure(rows, submits)]));
}

function measure(rows: readonly Outcome[], submits: readonly number[]): Measured {
  let weight = 0;
  let delivered = 0;
  let receipts = 0;
  let deliveredReceipts = 0;
  const latencies: number[] = [];
  for (const row of rows) {
    if (row.status !== "delivered" && row.status !== "failed") continue;
    const w = 0.5 ** (receipts / HALF_LIFE + newerThan(submits, row.submitted_at) / ROUTE_HALF_LIFE);
    receipts++;
    weight += w;
    if (row.status === "delivered") {
      delivered += w;
      deliveredReceipts++;
      if (row.done_at !== null) latencies.push(row.done_at - row.created_at);
    }
  }
  latencies.sort((a, b) => a - b);
  return {
    receipts,
    delivered: deliveredReceipts,
    rate: receipts === 0 ? null : delivered / weight,
    p50: latencies.length === 0 ? null : latencies[Math.floor((latencies.length - 1) / 2)]!,
  };
}

/** The share refused of each serving worker's last submits (a sliding window, as receipts are). */
function refusalRate(view: ConnectorHealthView | undefined): number | null {
  let refused = 0;
  let total = 0;
  for (const worker of view?.workers ?? []) {
    const recent = worker.recent as { submits?: number; refused?: number } | undefined;
    refused += recent?.refused ?? 0;
    total += recent?.submits ?? 0;
  }
  return total === 0 ? null : refused / total;
}

const percent = (share: number) => `${Math.round(share * 1000) / 10} %`;

/** Scores one route's connectors from their measurements; shares (and weights) add up to 1 over the serving ones. */
export function scoreRoute(
  route: Pick<RoutingRule, "route" | "prefix" | "connectors"> & { scoring?: RouteScoring | undefined },
  measured: ReadonlyMap<string, Measured & { refusals: number | null; cost: number | null }>,
): RouteScoreView[] {
  const scoring = route.scoring ?? DEFAULT_SCORING;
  const serving = route.connectors.filter((c) => (c.weight ?? 1) > 0).map((c) => c.name);
  const latencies = serving.flatMap((name) => measured.get(name)?.p50 ?? []).filter((p) => p > 0);
  const costs = serving.flatMap((name) => measured.get(name)?.cost ?? []).filter((c) => c > 0);
  const fastest = latencies.length > 0 ? Math.min(...latencies) : null;
  const cheapest = costs.length > 0 ? Math.min(...costs) : null;
  const total = scoring.delivery + scoring.latency + scoring.cost;
  const views = serving.map((name) => {
    const m = measured.get(name);
    const delivery = (m?.rate ?? PRIOR_RATE) * (1 - (m?.refusals ?? 0));
    const latency = fastest !== null && m?.p50 ? fastest / Math.max(m.p50, 1) : 1;
    const cost = cheapest !== null && m?.cost ? cheapest / m.cost : 1;
    const score = (scoring.delivery * delivery + scoring.latency * latency + scoring.cost * cost) / total;
    // The score's figure is weighted to recent receipts; the plain count beside it is what an
    // operator can check against delivery analytics.
    const parts = [
      m?.rate == null
        ? "no receipts yet"
        : `${percent(m.rate)} delivered weighted to recent receipts (${m.delivered} of the last ${m.receipts})`,
      (m?.receipts ?? 0) < MIN_RECEIPTS ? `on trial until ${MIN_RECEIPTS} receipts` : null,
      m?.p50 == null ? null : `${(m.p50 / 1000).toFixed(1)} s p50`,
      m?.refusals ? `${percent(m.refusals)} refused` : null,
      m?.cost == null ? "no cost row" : `cost ${m.cost / 1000}`,
    ];
    return {
      route: routeKey(route),
      connector: name,
      score,
      share: 0,
      note: parts.filter((p) => p !== null).join(", "),
      receipts: m?.receipts ?? 0,
      receipts_delivered: m?.delivered ?? 0,
      delivery_rate: m?.rate ?? null,
      latency_p50_ms: m?.p50 ?? null,
      refusal_rate: m?.refusals ?? null,
      cost: m?.cost == null ? null : m.cost / 1000,
      weight: 0,
      idle: null,
    };
  });
  shareOut(views, scoring);
  return views;
}

/**
 * The shares routing gives now: a connector disabled or down gets none (the router leaves it
 * out), the others the route's traffic in proportion to their scored shares (what the round robin
 * by weight among them does), so a route's shares add up to 1 while any connector carries.
 */
export function carriedShares(views: RouteScoreView[], idleOf: (connector: string) => Idle | null): void {
  for (const view of views) view.idle = idleOf(view.connector);
  const carrying = views.reduce((sum, view) => sum + (view.idle ? 0 : view.weight), 0);
  for (const view of views) view.share = view.idle || carrying === 0 ? 0 : view.weight / carrying;
}

/**
 * Shares: a softmax of the scores for (1 − explore_share), explore_share evenly. A connector on
 * trial (fewer than MIN_RECEIPTS receipts, scored on those or on PRIOR_RATE) keeps that share
 * only between TRIAL_SHARE and an even split; the measured ones share the rest in proportion; an
 * even split while all are on trial. Then each at least floor_share.
 */
function shareOut(views: RouteScoreView[], scoring: RouteScoring): void {
  if (views.length === 0) return;
  const even = 1 / views.length;
  const best = Math.max(...views.map((v) => v.score));
  const exp = views.map((v) => Math.exp((v.score - best) / TEMPERATURE));
  const sum = exp.reduce((a, b) => a + b, 0);
  let shares = exp.map((e) => (1 - scoring.explore_share) * (e / sum) + scoring.explore_share * even);
  const trial = views.map((v) => v.receipts < MIN_RECEIPTS);
  if (trial.every(Boolean)) shares = shares.map(() => even);
  else if (trial.some(Boolean)) {
    const clamped = shares.map((s, i) => (trial[i] ? Math.min(Math.max(s, Math.min(TRIAL_SHARE, even)), even) : 0));
    const left = 1 - clamped.reduce((a, s) => a + s, 0);
    const measured = shares.reduce((a, s, i) => a + (trial[i] ? 0 : s), 0);
    shares = shares.map((s, i) => (trial[i] ? clamped[i]! : (s * left) / measured));
  }
  // Raise the starved to the floor, taking it from the others in proportion.
  const low = shares.map((s) => s < scoring.floor_share);
  const raised = low.filter(Boolean).length * scoring.floor_share;
  const rest = shares.reduce((a, s, i) => a + (low[i] ? 0 : s), 0);
  if (raised > 0 && rest > 0) shares = shares.map((s, i) => (low[i] ? scoring.floor_share : (s * (1 - raised)) / rest));
  views.forEach((view, index) => {
    view.share = shares[index]!;
    view.weight = shares[index]!;
  });
}

/** Every adaptive route's scores, measured now. */
export async function measureRouteScores(
  db: Db,
  routes: readonly RoutingRule[],
  costs: ReadonlyMap<string, CompiledCard>,
  now: number,
): Promise<RouteScoreView[]> {
  const adaptive = routes.filter((route) => route.strategy === "adaptive");
  if (adaptive.length === 0) return [];
  const names = [...new Set(adaptive.flatMap((route) => route.connectors.map((c) => c.name)))];
  const [outcomes, health, carriers] = await Promise.all([
    Promise.all(names.map((name) => recentConnectorOutcomes(db, name, now - WINDOW_MS, SAMPLE))),
    readConnectorHealth(db, now),
    listCarriers(db),
  ]);
  const rowsOf = new Map(names.map((name, index) => [name, outcomes[index]!]));
  const healthOf = new Map(health.map((view) => [view.connector, view]));
  const disabled = new Set(carriers.filter((carrier) => !carrier.enabled).map((carrier) => carrier.name));
  const idleOf = (name: string): Idle | null =>
    disabled.has(name) ? "disabled" : healthOf.get(name)?.state === "down" ? "down" : null;
  return adaptive.flatMap((route) => {
    const channel = route.route === "V" ? "voice" : "sms";
    const of = measureRoute(route, new Map(route.connectors.map((c) => [c.name, rowsOf.get(c.name) ?? []])));
    const measured = new Map(
      route.connectors.map((c) => [
        c.name,
        {
          ...of.get(c.name)!,
          refusals: refusalRate(healthOf.get(c.name)),
          cost: costs.get(c.name)?.find(channel, route.route, route.prefix, now)?.price ?? null,
        },
      ]),
    );
    const views = scoreRoute(route, measured);
    carriedShares(views, idleOf);
    return views;
  });
}

/** Every connector's cost card compiled for look-ups (connectors without rows have none). */
export async function compiledCostCards(db: Db): Promise<Map<string, CompiledCard>> {
  const rows = await db
    .selectFrom("cost_card_rows")
    .select(["connector", "channel", "route", "prefix", "price", "effective_from"])
    .orderBy("connector")
    .orderBy("id")
    .execute();
  const byConnector = new Map<string, PriceRow[]>();
  for (const row of rows) {
    const list = byConnector.get(row.connector) ?? [];
    list.push(storedPriceRow(row));
    byConnector.set(row.connector, list);
  }
  return new Map([...byConnector].map(([connector, list]) => [connector, new CompiledCard(connector, list)]));
}

/** The scores a worker's router reads: measured every REFRESH_MS, or at once by refresh(). */
export class RouteScores implements RouteScoresSource {
  private byRoute = new Map<string, Map<string, RouteScoreView>>();
  private views: RouteScoreView[] = [];
  private routes: readonly RoutingRule[] = [];
  private costs: ReadonlyMap<string, CompiledCard> = new Map();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly ctx: Pick<Runtime, "store" | "clock" | "metrics" | "logger">) {}

  scoresOf(key: string): ReadonlyMap<string, ConnectorScore> | undefined {
    return this.byRoute.get(key);
  }

  current(): readonly RouteScoreView[] {
    return this.views;
  }

  /** The routes and costs to score (the registry's, at each reload); scores them at once. */
  configure(routes: readonly RoutingRule[], costs: ReadonlyMap<string, CompiledCard>): Promise<void> {
    this.routes = routes;
    this.costs = costs;
    const adaptive = routes.some((route) => route.strategy === "adaptive");
    if (adaptive && !this.timer) {
      this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
      this.timer.unref();
    } else if (!adaptive && this.timer) {
      this.stop();
    }
    return this.refresh();
  }

  /** Measures again (one measurement at a time; a call during one waits for the next). */
  async refresh(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.measure().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async measure(): Promise<void> {
    try {
      const views = await measureRouteScores(
        this.ctx.store.db,
        this.routes,
        this.costs,
        this.ctx.clock.now().getTime(),
      );
      const byRoute = new Map<string, Map<string, RouteScoreView>>();
      for (const view of views) {
        const route = byRoute.get(view.route) ?? new Map();
        route.set(view.connector, view);
        byRoute.set(view.route, route);
      }
      this.byRoute = byRoute;
      this.views = views;
      const { metrics } = this.ctx;
      metrics.routeScore.reset();
      metrics.routeShare.reset();
      for (const view of views) {
        metrics.routeScore.set({ route: view.route, connector: view.connector }, view.score);
        metrics.routeShare.set({ route: view.route, connector: view.connector }, view.share);
      }
    } catch (error) {
      this.ctx.logger.warn({ err: error }, "measuring the adaptive routes' scores failed; keeping the last scores");
    }
  }
}
