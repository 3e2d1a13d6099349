// The stored carrier configuration: connectors (carriers table) and SMS routes (sms_routes).
// The operator API, the CLI and the carriers file all change it through these functions; each
// change bumps a version in `settings` and signals CARRIERS_CHANGED, and the workers rebuild
// their connectors and router from it (registry.ts).
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { moveVersion, readVersion, type VersionStore } from "../../base/store/setting-versions.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Actor, type Change, recordChange } from "../../domain/audit/index.js";
import { VOICE_HTTP_CONNECTOR, VOICE_SIMULATOR_CONNECTOR } from "../dispatch/index.js";
import {
  CarrierConfigError,
  type CarrierDefinition,
  checkCallbackAuthentication,
  keepMaskedSecrets,
  maskSecrets,
  parseCarrierDefinition,
  parseRoutingRule,
  type RouteScoring,
  type RouteStrategy,
  type RoutingRule,
} from "./definitions.js";

export const CARRIERS_CHANGED = "carriers_changed";
const VERSION_KEY = "carriers_version";

/** `actor`: who changes the catalog, for the audit log; without one (the carriers file applied at start) nothing is logged. */
type Deps = { store: Store; clock: Clock; actor?: Actor | undefined };

export interface Carrier {
  name: string;
  type: CarrierDefinition["type"];
  enabled: boolean;
  source: "api" | "file";
  definition: CarrierDefinition;
  created_at: number;
  updated_at: number;
}

export interface StoredRoute extends RoutingRule {
  id: number;
  created_at: number;
}

/** What the operator API and CLI show: the definition with its secrets masked. */
export function describeCarrier(carrier: Carrier) {
  return {
    name: carrier.name,
    type: carrier.type,
    enabled: carrier.enabled,
    source: carrier.source,
    definition: maskSecrets(carrier.definition),
    created_at: new Date(carrier.created_at).toISOString(),
    updated_at: new Date(carrier.updated_at).toISOString(),
  };
}

export function describeRoute(route: StoredRoute) {
  const { scoring } = route;
  return {
    id: route.id,
    route: route.route,
    prefix: route.prefix,
    connectors: route.connectors,
    strategy: route.strategy ?? "weighted",
    ...(scoring
      ? {
          scoring: { delivery: scoring.delivery, latency: scoring.latency, cost: scoring.cost },
          explore_share: scoring.explore_share,
          floor_share: scoring.floor_share,
        }
      : {}),
  };
}

type CarrierRow = {
  name: string;
  type: string;
  config: string;
  enabled: number;
  source: string;
  created_at: number | string;
  updated_at: number | string;
};

function toCarrier(row: CarrierRow): Carrier {
  return {
    name: row.name,
    type: row.type as Carrier["type"],
    enabled: Number(row.enabled) === 1,
    source: row.source as Carrier["source"],
    definition: JSON.parse(row.config) as CarrierDefinition,
    created_at: Number(row.created_at),
    updated_at: Number(row.updated_at),
  };
}

export async function listCarriers(db: Db): Promise<Carrier[]> {
  const rows = await db.selectFrom("carriers").selectAll().orderBy("name").execute();
  return rows.map(toCarrier);
}

/** The stored definitions of the enabled carriers, as JSON text by name (what `doctor` checks). */
export async function enabledCarrierConfigs(db: Db) {
  return db.selectFrom("carriers").select(["name", "config"]).where("enabled", "=", 1).execute();
}

export async function findCarrier(db: Db, name: string): Promise<Carrier | undefined> {
  const row = await db.selectFrom("carriers").selectAll().where("name", "=", name).executeTakeFirst();
  return row ? toCarrier(row) : undefined;
}

export async function requireCarrier(db: Db, name: string): Promise<Carrier> {
  const carrier = await findCarrier(db, name);
  if (!carrier) throw new GatewayError("not_found", `No connector named ${name}.`);
  return carrier;
}

export async function listRoutes(db: Db): Promise<StoredRoute[]> {
  const rows = await db.selectFrom("sms_routes").selectAll().orderBy("route").orderBy("prefix").execute();
  return rows.map((row) => ({
    id: Number(row.id),
    route: row.route as RoutingRule["route"],
    prefix: row.prefix,
    connectors: JSON.parse(row.connectors) as RoutingRule["connectors"],
    strategy: (row.strategy ?? "weighted") as RouteStrategy,
    ...(row.scoring ? { scoring: JSON.parse(row.scoring) as RouteScoring } : {}),
    created_at: Number(row.created_at),
  }));
}

/** The version workers compare to know the configuration changed. */
export async function carriersVersion(store: VersionStore): Promise<string> {
  return readVersion(store, VERSION_KEY);
}

function bumpVersion(trx: Db, now: number): Promise<void> {
  return moveVersion(trx, VERSION_KEY, now);
}

/** PostgreSQL advisory lock taken by every change of the catalog (any 64-bit number of our own). */
const CATALOG_LOCK = 0x5357_4341_5252; // "SWCARR"

/** Runs a change, with its audit entry when an actor makes it, and tells the workers. */
export async function changeCatalog<T>(
  deps: Deps,
  fn: (trx: Db, now: number) => Promise<T>,
  change?: Omit<Change, "accountId">,
): Promise<T> {
  const now = deps.clock.now().getTime();
  const result = await deps.store.transaction(async (trx) => {
    // One change at a time: each reads before it writes (is the connector there? delete the
    // routes, insert them), and processes starting together each apply the carriers file, which
    // on a fresh database collided on the primary key and ended all but one (found by
    // test/faults). SQLite's write transactions are serial already.
    if (deps.store.engine === "postgres") await sql`select pg_advisory_xact_lock(${CATALOG_LOCK})`.execute(trx);
    const value = await fn(trx, now);
    await bumpVersion(trx, now);
    const { actor } = deps;
    if (actor && change) await recordChange(trx, { clock: deps.clock, actor }, { ...change, accountId: null });
    return value;
  });
  await deps.store.signals.notify(CARRIERS_CHANGED).catch(() => undefined);
  return result;
}

function invalid(error: unknown): never {
  if (error instanceof CarrierConfigError) throw new GatewayError("invalid_request", error.message);
  throw error;
}

/** Validates a connector definition (secrets sent back masked keep the stored ones). */
export async function checkedDefinition(db: Db, input: unknown): Promise<CarrierDefinition> {
  const name = (input as { name?: unknown } | null)?.name;
  const stored = typeof name === "string" ? await findCarrier(db, name) : undefined;
  try {
    const definition = parseCarrierDefinition(keepMaskedSecrets(input, stored?.definition));
    checkCallbackAuthentication(definition, stored?.definition);
    return definition;
  } catch (error) {
    return invalid(error);
  }
}

export async function upsertCarrier(trx: Db, definition: CarrierDefinition, source: Carrier["source"], now: number) {
  const existing = await trx
    .selectFrom("carriers")
    .select(["type"])
    .where("name", "=", definition.name)
    .executeTakeFirst();
  if (existing && existing.type !== definition.type) {
    throw new GatewayError(
      "conflict",
      `The connector ${definition.name} is of type ${existing.type}; remove it first to make it ${definition.type}.`,
    );
  }
  const config = JSON.stringify(definition);
  if (existing) {
    await trx
      .updateTable("carriers")
      .set({ config, source, updated_at: now })
      .where("name", "=", definition.name)
      .execute();
  } else {
    await trx
      .insertInto("carriers")
      .values({
        name: definition.name,
        type: definition.type,
        config,
        source,
        enabled: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
  }
  return !existing;
}

/** Adds a connector or replaces its definition; `created` tells which. */
export async function saveCarrier(
  deps: Deps,
  input: unknown,
  source: Carrier["source"] = "api",
): Promise<{ created: boolean; carrier: Carrier }> {
  const definition = await checkedDefinition(deps.store.db, input);
  const before = await findCarrier(deps.store.db, definition.name);
  const created = await changeCatalog(deps, (trx, now) => upsertCarrier(trx, definition, source, now), {
    action: "carrier.save",
    target: `carrier ${definition.name}`,
    before: before && { type: before.type, definition: maskSecrets(before.definition) },
    after: { type: definition.type, definition: maskSecrets(definition) },
  });
  return { created, carrier: await requireCarrier(deps.store.db, definition.name) };
}

export async function setCarrierEnabled(deps: Deps, name: string, enabled: boolean): Promise<Carrier> {
  const before = await requireCarrier(deps.store.db, name);
  const change = { before: { enabled: before.enabled }, after: { enabled } };
  const set = { enabled: enabled ? 1 : 0 };
  await changeCatalog(
    deps,
    (trx, now) =>
      trx
        .updateTable("carriers")
        .set({ ...set, updated_at: now })
        .where("name", "=", name)
        .execute(),
    { action: enabled ? "carrier.enable" : "carrier.disable", target: `carrier ${name}`, ...change },
  );
  return requireCarrier(deps.store.db, name);
}

/** Removes a connector no route names; its messages in flight keep their reports (message_parts). */
export async function removeCarrier(deps: Deps, name: string): Promise<Carrier> {
  const carrier = await requireCarrier(deps.store.db, name);
  const users = (await listRoutes(deps.store.db)).filter((route) => route.connectors.some((c) => c.name === name));
  if (users.length > 0) {
    const where = users.map((route) => `${route.route}/${route.prefix || "*"}`).join(", ");
    throw new GatewayError("conflict", `The connector ${name} is used by route(s) ${where}; change them first.`);
  }
  await changeCatalog(
    deps,
    async (trx) => {
      await trx.deleteFrom("carriers").where("name", "=", name).execute();
      await trx.deleteFrom("connector_health").where("connector", "=", name).execute();
    },
    { action: "carrier.remove", target: `carrier ${name}`, before: describeCarrier(carrier) },
  );
  return carrier;
}

/** Connector names a route may list: configured carriers serve SMS; `builtIn` names their channels. */
export async function checkRoute(trx: Db, route: RoutingRule, builtIn: ReadonlyMap<string, string>): Promise<void> {
  const carriers = new Set((await trx.selectFrom("carriers").select("name").execute()).map((row) => row.name));
  const channel = route.route === "V" ? "voice" : "sms";
  for (const { name } of route.connectors) {
    const serves = carriers.has(name) ? "sms" : builtIn.get(name);
    if (serves === undefined) throw new GatewayError("invalid_request", `Invalid route: no connector named ${name}.`);
    if (serves !== channel) {
      throw new GatewayError(
        "invalid_request",
        `Invalid route: ${name} carries ${serves}, and route ${route.route} carries ${channel}.`,
      );
    }
  }
}

/** The connectors the gateway builds itself, by the channel they carry (routes may name them). */
export const BUILT_IN_CONNECTORS: ReadonlyMap<string, string> = new Map([
  ["simulator", "sms"],
  [VOICE_SIMULATOR_CONNECTOR, "voice"],
  [VOICE_HTTP_CONNECTOR, "voice"],
]);

function parsedRoute(input: unknown): RoutingRule {
  try {
    return parseRoutingRule(input);
  } catch (error) {
    return invalid(error);
  }
}

/** Adds the route for (route code, prefix) or replaces its connectors. */
export async function saveRoute(deps: Deps, input: unknown): Promise<{ created: boolean; route: StoredRoute }> {
  const route = parsedRoute(input);
  const before = (await listRoutes(deps.store.db)).find((r) => r.route === route.route && r.prefix === route.prefix);
  const target = `route ${route.route}/${route.prefix || "*"}`;
  const created = await changeCatalog(
    deps,
    async (trx, now) => {
      await checkRoute(trx, route, BUILT_IN_CONNECTORS);
      return upsertRoute(trx, route, now);
    },
    { action: "route.save", target, before: before && describeRoute(before), after: route },
  );
  const stored = (await listRoutes(deps.store.db)).find((r) => r.route === route.route && r.prefix === route.prefix)!;
  return { created, route: stored };
}

export async function upsertRoute(trx: Db, route: RoutingRule, now: number): Promise<boolean> {
  const connectors = JSON.stringify(route.connectors);
  const strategy = route.strategy === undefined || route.strategy === "weighted" ? null : route.strategy;
  const scoring = route.scoring ? JSON.stringify(route.scoring) : null;
  const updated = await trx
    .updateTable("sms_routes")
    .set({ connectors, strategy, scoring })
    .where("route", "=", route.route)
    .where("prefix", "=", route.prefix)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) > 0) return false;
  await trx
    .insertInto("sms_routes")
    .values({ route: route.route, prefix: route.prefix, connectors, strategy, scoring, created_at: now })
    .execute();
  return true;
}

export async function removeRoute(deps: Deps, code: string, prefix: string): Promise<StoredRoute> {
  const route = (await listRoutes(deps.store.db)).find((r) => r.route === code && r.prefix === prefix);
  if (!route) throw new GatewayError("not_found", `No route ${code} with prefix "${prefix}".`);
  await changeCatalog(deps, (trx) => trx.deleteFrom("sms_routes").where("id", "=", route.id).execute(), {
    action: "route.remove",
    target: `route ${code}/${prefix || "*"}`,
    before: describeRoute(route),
  });
  return route;
}

/** A health row is current when a worker wrote it within this long (workers write every 5 s). */
export const HEALTH_FRESH_MS = 30_000;

export interface ConnectorHealthView {
  connector: string;
  /** The best state any worker sees: up, degraded, down, or unknown when no worker runs it. */
  state: "up" | "degraded" | "down" | "unknown";
  workers: (Record<string, unknown> & { worker: string; state: string; updated_at: string })[];
}

const RANK = { up: 3, degraded: 2, down: 1, unknown: 0 } as const;

/** Every row of connector_health, fresh or not (what `doctor` reports per worker). */
export async function connectorHealthRows(db: Db) {
  return db.selectFrom("connector_health").selectAll().execute();
}

/** Every connector's health as the running workers last wrote it. */
export async function readConnectorHealth(db: Db, now: number): Promise<ConnectorHealthView[]> {
  const rows = await db
    .selectFrom("connector_health")
    .selectAll()
    .where("updated_at", ">=", now - HEALTH_FRESH_MS)
    .orderBy("connector")
    .orderBy("worker")
    .execute();
  const views = new Map<string, ConnectorHealthView>();
  for (const row of rows) {
    const view = views.get(row.connector) ?? { connector: row.connector, state: "unknown", workers: [] };
    const { connector: _connector, ...detail } = JSON.parse(row.detail) as Record<string, unknown>;
    // A worker of an earlier version wrote no refusal window: none measured.
    detail.recent ??= { submits: 0, refused: 0 };
    view.workers.push({
      ...detail,
      worker: row.worker,
      state: row.state,
      updated_at: new Date(Number(row.updated_at)).toISOString(),
    });
    if (RANK[row.state] > RANK[view.state]) view.state = row.state;
    views.set(row.connector, view);
  }
  return [...views.values()];
}
