// The worker's live carriers: builds a connector for every enabled carrier of the catalog,
// keeps the router the dispatcher uses, and rebuilds both when the configuration changes
// (CARRIERS_CHANGED, or a version poll for changes made by another process). Tracks every
// connector's health, shows it in /metrics and writes it to connector_health for the operator
// API (which may run in another process).

import os from "node:os";
import { RepeatedErrors } from "../../base/core/repeated-errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { TmChainBook } from "../../domain/accounts/index.js";
import { type DeliveryReport, wakeConnectorWaits } from "../../domain/messages/index.js";
import type { Routing } from "../dispatch/index.js";
import {
  type Connector,
  type InboundSms,
  outcomeOf,
  QUEUED_SIGNAL,
  Router,
  type SubmitResult,
} from "../dispatch/index.js";
import { CARRIERS_CHANGED, type Carrier, carriersVersion, listCarriers, listRoutes } from "./catalog.js";
import { type CarrierDefinition, smppSessionOptions } from "./definitions.js";
import { type ConnectorHealth, type HealthOptions, HealthTracker, type NativeHealth } from "./health.js";
import { HttpSmsConnector } from "./http-sms/index.js";
import { compiledCostCards, RouteScores } from "./route-scores.js";
import { pruneParts, SmppConnector } from "./smpp/index.js";
import { CarrierWarnings } from "./warnings.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock" | "logger" | "metrics">;

export const HTTP_SMS_DLR_PATH = "/carriers/http-sms/:name/dlr";

export interface Sinks {
  reports: (reports: DeliveryReport[]) => void;
  inbound: (messages: InboundSms[]) => Promise<void>;
}

export interface RegistryOptions {
  /** How often the configuration version is read (default 2 s; a signal wakes it at once). */
  pollMs?: number;
  /** How often health is written to connector_health when nothing changed (default 5 s). */
  healthWriteMs?: number;
  health?: HealthOptions;
}

interface Live {
  key: string;
  connector: Connector;
  tracker: HealthTracker;
}

/** The DLR callback URL of an http-sms connector. */
export function httpSmsCallbackUrl(baseUrl: string, name: string): string {
  return `${baseUrl.replace(/\/+$/, "")}${HTTP_SMS_DLR_PATH.replace(":name", encodeURIComponent(name))}`;
}

function smppHealth(connector: SmppConnector): NativeHealth {
  const statuses = connector.pool.sessions.map((session) => session.status());
  const bound = statuses.filter((status) => status.bound).length;
  const sessions = {
    total: statuses.length,
    bound,
    outstanding: statuses.reduce((sum, status) => sum + status.outstanding, 0),
    queued: statuses.reduce((sum, status) => sum + status.queued, 0),
  };
  const reason = statuses.find((status) => status.lastError)?.lastError ?? null;
  if (bound === 0) return { state: "down", reason: reason ?? "not bound", sessions };
  return {
    state: bound < statuses.length ? "degraded" : "up",
    reason: bound < statuses.length ? reason : null,
    sessions,
  };
}

export class CarrierRegistry implements Routing {
  readonly worker = `${os.hostname()}:${process.pid}:${Math.random().toString(36).slice(2, 6)}`;
  private readonly live = new Map<string, Live>();
  private readonly builtIn = new Map<string, HealthTracker>();
  private current: Router;
  private version: string | null = null;
  private reloading: Promise<void> = Promise.resolve();
  private reloadFailures: RepeatedErrors | undefined;
  private timers: NodeJS.Timeout[] = [];
  private unlisten: (() => void) | undefined;
  private lastStates = "";
  private lastWrite = 0;
  /** Connectors of the catalog switched off by the operator (not running, so not in `live`). */
  private disabled = new Set<string>();
  /** Connectors down by their own account (no bind), not by their circuit breaker. */
  private readonly nativelyDown = new Set<string>();
  private stopped = false;
  private readonly warnings: CarrierWarnings;
  /** The adaptive routes' scores, measured from the database. */
  readonly scores: RouteScores;
  /** The DLT telemarketer chains the connectors carry (one cache for all of them). */
  private readonly tmChains: TmChainBook;
  /** Base of the http-sms DLR callback URLs: CARRIER_CALLBACK_URL, else the address the server listens on. */
  callbackBase: string;

  constructor(
    private readonly ctx: Deps,
    private readonly builtIns: readonly Connector[],
    private readonly sinks: Sinks,
    private readonly options: RegistryOptions = {},
  ) {
    for (const connector of builtIns) {
      this.builtIn.set(connector.name, new HealthTracker(connector.name, connector.name, undefined, options.health));
    }
    this.current = new Router(builtIns);
    this.warnings = new CarrierWarnings(ctx.logger);
    this.scores = new RouteScores(ctx);
    this.tmChains = new TmChainBook(ctx.store, ctx.config.dlt.tmId);
    this.callbackBase = ctx.config.carrierCallbackUrl ?? `http://localhost:${ctx.config.port}`;
  }

  router(): Router {
    return this.current;
  }

  observe(name: string, results: readonly SubmitResult[]): void {
    const tracker = this.live.get(name)?.tracker ?? this.builtIn.get(name);
    tracker?.observe(results);
    this.warnings.results(name, results);
    const counts = new Map<string, number>();
    for (const result of results) {
      const outcome = outcomeOf(result);
      counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    }
    for (const [outcome, count] of counts) this.ctx.metrics.connectorResults.inc({ connector: name, outcome }, count);
  }

  /** Whether `name` reports delivery; true for a connector this worker does not run (it may again). */
  reportsDelivery(name: string): boolean {
    const connector = this.live.get(name)?.connector ?? this.builtIns.find((c) => c.name === name);
    return connector?.reportsDelivery !== false;
  }

  /** Forgets carrier message parts a week after they were sent once their message is reported, else after a month. */
  pruneParts(now: number): Promise<number> {
    return pruneParts(this.ctx.store.db, now);
  }

  /** Health of every connector this worker runs. */
  health(): ConnectorHealth[] {
    return this.trackers().map((tracker) => tracker.snapshot());
  }

  private trackers(): HealthTracker[] {
    return [...this.builtIn.values(), ...[...this.live.values()].map((live) => live.tracker)];
  }

  async start(): Promise<void> {
    await this.reload();
    this.unlisten = this.ctx.store.signals.listen(CARRIERS_CHANGED, () => void this.reload());
    const poll = setInterval(() => void this.reload(), this.options.pollMs ?? 2_000);
    const health = setInterval(() => void this.reportHealth(), 1_000);
    poll.unref();
    health.unref();
    this.timers.push(poll, health);
    await this.reportHealth();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    this.scores.stop();
    this.unlisten?.();
    await this.reloading;
    await Promise.all([...this.live.values()].map((live) => live.connector.stop?.()));
    this.live.clear();
    await this.ctx.store.db
      .deleteFrom("connector_health")
      .where("worker", "=", this.worker)
      .execute()
      .catch(() => undefined);
  }

  /** Reads the configuration again when its version moved; one reload at a time. */
  reload(): Promise<void> {
    const next = this.reloading
      .then(() => this.reloadNow())
      .catch((error: unknown) => {
        // Polled every 2 s: the database away would write a stack every time; once, then counts.
        this.reloadFailures ??= new RepeatedErrors(this.ctx.logger);
        this.reloadFailures.log("error", error, "reloading the carrier configuration failed; keeping the current one");
      });
    this.reloading = next;
    return next;
  }

  private async reloadNow(): Promise<void> {
    if (this.stopped) return;
    const { db } = this.ctx.store;
    const version = await carriersVersion(this.ctx.store);
    if (version === this.version) return;
    const [carriers, routes, costs] = await Promise.all([listCarriers(db), listRoutes(db), compiledCostCards(db)]);
    const wanted = new Map(carriers.filter((c) => c.enabled).map((c) => [c.name, c]));
    for (const [name, live] of this.live) {
      const carrier = wanted.get(name);
      if (!carrier || this.keyOf(carrier) !== live.key) {
        // Stopped before its replacement binds: carriers limit the binds of an account.
        this.live.delete(name);
        await live.connector.stop?.();
        this.ctx.logger.info({ connector: name }, carrier ? "connector changed: restarting it" : "connector removed");
      }
    }
    for (const [name, carrier] of wanted) {
      if (this.live.has(name)) continue;
      const connector = this.build(carrier.definition);
      connector.onReports(this.sinks.reports);
      connector.onInbound?.(this.sinks.inbound);
      await connector.start?.();
      const native = connector instanceof SmppConnector ? () => smppHealth(connector) : undefined;
      this.live.set(name, {
        key: this.keyOf(carrier),
        connector,
        tracker: new HealthTracker(name, carrier.type, native, this.options.health),
      });
      this.ctx.logger.info({ connector: name, type: carrier.type }, "connector started");
    }
    const connectors = [...this.builtIns, ...[...this.live.values()].map((live) => live.connector)];
    await this.scores.configure(routes, costs);
    this.disabled = new Set(carriers.filter((c) => !c.enabled).map((c) => c.name));
    this.current = new Router(connectors, {
      routes,
      costs,
      scores: this.scores,
      isUp: (name) => this.isUp(name),
      whyNotUp: (name) => this.whyNotUp(name),
    });
    this.version = version;
    if (routes.length === 0 && carriers.length > 0) {
      this.ctx.logger.warn("carriers are configured but no SMS route names them: SMS still go to the simulator");
    }
  }

  private isUp(name: string): boolean {
    return (this.live.get(name)?.tracker ?? this.builtIn.get(name))?.isUp() ?? true;
  }

  /** Why a connector a route names takes no traffic, in the words of a held message. */
  private whyNotUp(name: string): string {
    const tracker = this.live.get(name)?.tracker ?? this.builtIn.get(name);
    if (!tracker) return this.disabled.has(name) ? "disabled" : "not running";
    const health = tracker.snapshot();
    const reason = health.reason ? ` (${health.reason})` : "";
    return health.retry_at ? `circuit open until ${health.retry_at}${reason}` : `${health.state}${reason}`;
  }

  /** What restarts a connector when it changes: its definition but for its error_codes, which the reports' book reads. */
  private keyOf(carrier: Carrier): string {
    const { error_codes: _codes, ...connection } = carrier.definition;
    return JSON.stringify(connection);
  }

  private build(definition: CarrierDefinition): Connector {
    const { logger } = this.ctx;
    if (definition.type === "smpp") {
      return new SmppConnector({
        name: definition.name,
        session: {
          ...smppSessionOptions(definition),
          log: (level, message, details) => logger[level]({ connector: definition.name, ...details }, message),
        },
        connections: definition.connections ?? 1,
        store: this.ctx.store,
        tmChains: this.tmChains,
        promotionalHeader: this.ctx.config.dlt.promotionalHeader,
        logger,
        dropped: (reason, receipts) => this.ctx.metrics.earlyReportsDropped.inc({ reason: `smpp_${reason}` }, receipts),
      });
    }
    // Callbacks without a secret or allowed addresses are warned about by the API role, which takes them.
    const { type: _type, ...config } = definition;
    return new HttpSmsConnector(config, {
      callbackUrl: () => httpSmsCallbackUrl(this.callbackBase, definition.name),
      tmChains: this.tmChains,
      promotionalHeader: this.ctx.config.dlt.promotionalHeader,
      logger,
    });
  }

  /**
   * A connector is back (bound again, or its submits succeed again after its circuit opened):
   * messages that waited because every connector of their route was down are due now, not at
   * the end of their wait. Every message of that kind is woken, whatever its route: one whose
   * route is still down waits again (not an attempt).
   */
  private async wakeWaiting(connectors: string[]): Promise<void> {
    try {
      const woken = await wakeConnectorWaits(this.ctx.store.db, this.ctx.clock.now().getTime());
      if (woken === 0) return;
      this.ctx.logger.info(
        { connectors, messages: woken },
        "connectors are back: messages waiting for them are due now",
      );
      await this.ctx.store.signals.notify(QUEUED_SIGNAL);
    } catch (error) {
      // They keep their back-off.
      this.ctx.logger.warn({ err: error, connectors }, "waking the messages waiting for a connector failed");
    }
  }

  /** Updates the gauges; writes connector_health when a state changed or every healthWriteMs. */
  private async reportHealth(): Promise<void> {
    const snapshots = this.health();
    this.warnings.health(snapshots);
    const { metrics } = this.ctx;
    for (const health of snapshots) {
      const value = health.state === "up" ? 1 : health.state === "degraded" ? 0.5 : 0;
      metrics.connectorUp.set({ connector: health.connector, type: health.type }, value);
      if (health.sessions) {
        metrics.connectorSessions.set({ connector: health.connector, state: "bound" }, health.sessions.bound);
        metrics.connectorSessions.set(
          { connector: health.connector, state: "unbound" },
          health.sessions.total - health.sessions.bound,
        );
      }
    }
    // Back: a connector that bound again, or whose submits succeed again after its circuit
    // opened; a circuit breaker's half-open trial is not a return.
    const back = new Set<string>();
    for (const health of snapshots) {
      if (health.state === "down" && health.retry_at === null) this.nativelyDown.add(health.connector);
      else if (health.state !== "down" && this.nativelyDown.delete(health.connector)) back.add(health.connector);
    }
    for (const tracker of this.trackers()) if (tracker.takeRecovery()) back.add(tracker.connector);
    if (back.size > 0) await this.wakeWaiting([...back]);
    const states = snapshots.map((h) => `${h.connector}=${h.state}`).join(",");
    const now = Date.now();
    if (states === this.lastStates && now - this.lastWrite < (this.options.healthWriteMs ?? 5_000)) return;
    this.lastStates = states;
    this.lastWrite = now;
    try {
      await this.ctx.store.transaction(async (trx) => {
        await trx.deleteFrom("connector_health").where("worker", "=", this.worker).execute();
        if (snapshots.length === 0) return;
        await trx
          .insertInto("connector_health")
          .values(
            snapshots.map((health) => ({
              connector: health.connector,
              worker: this.worker,
              state: health.state,
              detail: JSON.stringify(health),
              updated_at: now,
            })),
          )
          .execute();
      });
    } catch (error) {
      this.ctx.logger.warn({ err: error }, "writing connector health failed");
    }
  }
}
