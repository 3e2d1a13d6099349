// What an operator writes to connect a carrier and route SMS to it: a connector definition
// (`smpp` or `http-sms`) and a route (route code + number prefix → connectors with weights).
// TypeBox schemas, so the operator API, the CLI and the carriers file take the same shapes,
// plus the checks a schema cannot express. Secrets are masked when a definition is shown.
import { DateTime } from "luxon";
import { type Static, type TSchema, Type } from "typebox";
import { Value } from "typebox/value";
import { describeValidation } from "../../base/http/http-errors.js";
import { type ErrorCodeTable, ErrorCodeTableError, parseErrorCodes } from "./error-codes.js";
import {
  callbackAuthentication,
  type HttpSmsConfig,
  HttpSmsConfigError,
  parseHttpSmsConfig,
  weakCallbackCheck,
} from "./http-sms/index.js";
import type { SmppSessionOptions } from "./smpp/index.js";

export const CONNECTOR_NAME = "^[a-z0-9][a-z0-9_-]{0,62}$";
/** Names of connectors the gateway builds itself; a configured carrier cannot take them. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["simulator"]);

const int = (minimum: number, maximum: number, description: string) => Type.Integer({ minimum, maximum, description });

export const SmppDefinitionSchema = Type.Object(
  {
    name: Type.String({ pattern: CONNECTOR_NAME, description: "The connector's name." }),
    type: Type.Literal("smpp"),
    host: Type.String({ minLength: 1, maxLength: 253, description: "The SMSC's host name or address." }),
    port: int(1, 65535, "The SMSC's port (commonly 2775)."),
    // SMPP 3.4 §5.2: system_id is at most 15 characters, password 8, system_type 12.
    system_id: Type.String({ minLength: 1, maxLength: 15 }),
    password: Type.String({ maxLength: 8 }),
    system_type: Type.Optional(Type.String({ maxLength: 12 })),
    bind: Type.Optional(
      Type.Union([Type.Literal("transceiver"), Type.Literal("transmitter+receiver")], {
        description: "One transceiver bind (default), or a transmitter and a receiver bind per connection.",
      }),
    ),
    connections: Type.Optional(int(1, 64, "Binds to open to this account (default 1).")),
    window: Type.Optional(int(1, 1000, "submit_sm awaiting their response at once, per connection (default 10).")),
    throughput_per_second: Type.Optional(
      int(0, 100_000, "submit_sm per second per connection; 0 for no cap (default 0)."),
    ),
    enquire_link_seconds: Type.Optional(int(5, 3600, "Seconds of silence before an enquire_link (default 30).")),
    response_timeout_ms: Type.Optional(int(500, 10_000, "How long a submit_sm waits for its response (default 5000).")),
    reconnect_initial_ms: Type.Optional(
      int(10, 60_000, "First reconnect delay (default 1000), doubled up to the max."),
    ),
    reconnect_max_ms: Type.Optional(int(100, 600_000, "Longest reconnect delay (default 60000).")),
    dlt_tags: Type.Optional(
      Type.Object(
        {
          entity_id: int(0x1400, 0x3fff, "TLV tag of the DLT entity id (default 0x1400 = 5120)."),
          template_id: int(0x1400, 0x3fff, "TLV tag of the DLT template id (default 0x1401 = 5121)."),
          tm_chain: Type.Optional(
            Type.Object(
              {
                tag: int(0x1400, 0x3fff, "TLV tag of the DLT telemarketer chain (often 0x1402 = 5122)."),
                format: Type.Union([Type.Literal("ids"), Type.Literal("hash")], {
                  description:
                    "The chain as its IDs, PE,TM1,…,TMn (ids), or the SHA-256 of that text in lower-case hex (hash).",
                }),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    dlt_format: Type.Optional(
      Type.Union([Type.Literal("octets"), Type.Literal("cstring")], {
        description: "The DLT ids as their ASCII digits alone (octets, default) or with a NUL at the end (cstring).",
      }),
    ),
    service_type: Type.Optional(Type.String({ maxLength: 5 })),
    source_ton: Type.Optional(int(0, 6, "TON of the sender; default 5 (alphanumeric) or 1/0 by its digits.")),
    source_npi: Type.Optional(int(0, 18, "NPI of the sender.")),
    destination_ton: Type.Optional(int(0, 6, "TON of the number (default 1, international).")),
    destination_npi: Type.Optional(int(0, 18, "NPI of the number (default 1, E.164).")),
    registered_delivery: Type.Optional(int(0, 255, "registered_delivery of each part (default 1: every receipt).")),
    // The zone the SMSC writes its receipts' done dates in: IANA (Asia/Kolkata) or UTC+5:30; default UTC.
    receipt_time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

/** Every connector may map its carrier's failure codes to reasons (error-codes.ts). */
type WithErrorCodes = { error_codes?: ErrorCodeTable };
export type SmppDefinition = Static<typeof SmppDefinitionSchema> & WithErrorCodes;
export type HttpSmsDefinition = HttpSmsConfig & { type: "http-sms" } & WithErrorCodes;
export type CarrierDefinition = SmppDefinition | HttpSmsDefinition;

export const ROUTE_CODES = ["T", "P", "PS", "I", "V", "*"] as const;
export type RouteCode = (typeof ROUTE_CODES)[number];

export const RoutingRuleSchema = Type.Object(
  {
    route: Type.Union(
      [
        Type.Literal("T"),
        Type.Literal("P"),
        Type.Literal("PS"),
        Type.Literal("I"),
        Type.Literal("V"),
        Type.Literal("*"),
      ],
      {
        description:
          "T transactional, P promotional, PS promotional with sender ID, I international, V voice, * any SMS route.",
      },
    ),
    prefix: Type.Optional(
      Type.String({
        pattern: "^\\d{0,15}$",
        description: "Leading digits of the number with its country code (9198…); empty or left out for every number.",
      }),
    ),
    connectors: Type.Array(
      Type.Object(
        {
          name: Type.String({ pattern: CONNECTOR_NAME }),
          weight: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 1000,
              description: "Share of the route's traffic (default 1); 0: a standby used only in failover.",
            }),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 16, description: "In failover order." },
    ),
    strategy: Type.Optional(
      Type.Union([Type.Literal("weighted"), Type.Literal("least_cost"), Type.Literal("adaptive")], {
        description:
          "weighted (default): shared by weight; least_cost: the cheapest by the cost cards, then in cost order; adaptive: by measured delivery, latency and cost.",
      }),
    ),
    scoring: Type.Optional(
      Type.Object(
        {
          delivery: Type.Optional(share(0, 100, "Weight of the delivery rate (default 0.7).")),
          latency: Type.Optional(share(0, 100, "Weight of accept → receipt latency (default 0.15).")),
          cost: Type.Optional(share(0, 100, "Weight of the cost (default 0.15).")),
        },
        { additionalProperties: false, description: "An adaptive route's weights of what it measures." },
      ),
    ),
    explore_share: Type.Optional(
      share(0, 0.5, "Share of an adaptive route's traffic spread over every connector (default 0.05)."),
    ),
    floor_share: Type.Optional(
      share(0, 0.5, "Least share of an adaptive route's traffic each connector gets (default 0.02)."),
    ),
  },
  { additionalProperties: false },
);

function share(minimum: number, maximum: number, description: string) {
  return Type.Number({ minimum, maximum, description });
}

export const ROUTE_STRATEGIES = ["weighted", "least_cost", "adaptive"] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** An adaptive route's weights and shares, defaults filled in. */
export interface RouteScoring {
  delivery: number;
  latency: number;
  cost: number;
  explore_share: number;
  floor_share: number;
}

export const DEFAULT_SCORING: Readonly<RouteScoring> = {
  delivery: 0.7,
  latency: 0.15,
  cost: 0.15,
  explore_share: 0.05,
  floor_share: 0.02,
};

/** A route as checked: `prefix` is "" for every number when it was left out; an adaptive route has its scoring. */
export type RoutingRule = Pick<Static<typeof RoutingRuleSchema>, "route" | "connectors"> & {
  prefix: string;
  /** weighted when absent. */
  strategy?: RouteStrategy;
  scoring?: RouteScoring;
};

export class CarrierConfigError extends Error {
  override readonly name = "CarrierConfigError";
}

/** The first problem, in words (as a request body's are answered), without its full stop. */
function schemaProblems(schema: TSchema, input: unknown): string {
  return describeValidation([...Value.Errors(schema, input)], "definition", undefined).text.replace(/\.$/, "");
}

/** Validates a connector definition; the error names the field that is wrong. */
export function parseCarrierDefinition(input: unknown): CarrierDefinition {
  if (typeof input !== "object" || input === null || !("error_codes" in input)) return parseConnection(input);
  const { error_codes, ...connection } = input as Record<string, unknown>;
  const definition = parseConnection(connection);
  try {
    return { ...definition, error_codes: parseErrorCodes(error_codes) };
  } catch (error) {
    if (error instanceof ErrorCodeTableError)
      throw new CarrierConfigError(`Invalid ${definition.type} connector: ${error.message}`);
    throw error;
  }
}

/** A definition but for its error_codes. */
function parseConnection(input: unknown): CarrierDefinition {
  const type = (input as { type?: unknown } | null)?.type;
  if (type === "smpp") {
    if (!Value.Check(SmppDefinitionSchema, input)) {
      throw new CarrierConfigError(`Invalid smpp connector: ${schemaProblems(SmppDefinitionSchema, input)}.`);
    }
    const definition = input as SmppDefinition;
    if (RESERVED_NAMES.has(definition.name)) throw new CarrierConfigError(`The name ${definition.name} is reserved.`);
    const tags = definition.dlt_tags;
    if (tags && tags.entity_id === tags.template_id) {
      throw new CarrierConfigError("Invalid smpp connector: dlt_tags.entity_id and template_id must differ.");
    }
    if (tags?.tm_chain && [tags.entity_id, tags.template_id].includes(tags.tm_chain.tag)) {
      throw new CarrierConfigError(
        "Invalid smpp connector: dlt_tags.tm_chain.tag must differ from entity_id and template_id.",
      );
    }
    if ((definition.reconnect_initial_ms ?? 1_000) > (definition.reconnect_max_ms ?? 60_000)) {
      throw new CarrierConfigError("Invalid smpp connector: reconnect_initial_ms is above reconnect_max_ms.");
    }
    const zone = definition.receipt_time_zone;
    if (zone !== undefined && !DateTime.now().setZone(zone).isValid) {
      throw new CarrierConfigError(
        `Invalid smpp connector: receipt_time_zone "${zone}" is not a time zone (Asia/Kolkata, UTC+5:30).`,
      );
    }
    return definition;
  }
  if (type === "http-sms") {
    const { type: _type, ...rest } = input as Record<string, unknown>;
    try {
      const config = parseHttpSmsConfig(rest);
      if (RESERVED_NAMES.has(config.name)) throw new CarrierConfigError(`The name ${config.name} is reserved.`);
      return { ...config, type: "http-sms" };
    } catch (error) {
      if (error instanceof HttpSmsConfigError) throw new CarrierConfigError(error.message);
      throw error;
    }
  }
  throw new CarrierConfigError('A connector needs "type": "smpp" or "http-sms".');
}

/**
 * An http-sms connector's callbacks say who may call them (dlr.secret, dlr.allowed_ips; one that
 * protects nothing is refused, dlr-checks.ts), or opt out with dlr.unauthenticated: true. One stored
 * before without either (`legacy`), or with that same weak check, may be saved again as it was.
 */
export function checkCallbackAuthentication(definition: CarrierDefinition, stored: CarrierDefinition | undefined) {
  if (definition.type !== "http-sms") return;
  const weak = weakCallbackCheck(definition, stored);
  if (weak) throw new CarrierConfigError(`Invalid http-sms configuration "${definition.name}": ${weak}`);
  if (callbackAuthentication(definition) !== "legacy") return;
  if (stored?.type === "http-sms" && callbackAuthentication(stored) === "legacy") return;
  throw new CarrierConfigError(
    `Invalid http-sms configuration "${definition.name}": dlr needs secret or allowed_ips, so that only the aggregator can report its messages (or dlr.unauthenticated: true to take reports from anyone who reaches the callback URL).`,
  );
}

/** Validates a route's shape (the connectors it names are checked against the catalog). */
export function parseRoutingRule(input: unknown): RoutingRule {
  if (!Value.Check(RoutingRuleSchema, input)) {
    throw new CarrierConfigError(`Invalid route: ${schemaProblems(RoutingRuleSchema, input)}.`);
  }
  const route = input as Static<typeof RoutingRuleSchema>;
  const names = route.connectors.map((c) => c.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) throw new CarrierConfigError(`Invalid route: ${twice} is listed twice.`);
  if (route.connectors.every((c) => (c.weight ?? 1) === 0)) {
    throw new CarrierConfigError("Invalid route: at least one connector needs a weight above 0.");
  }
  const strategy = route.strategy ?? "weighted";
  const { scoring, explore_share, floor_share } = route;
  if (strategy !== "adaptive" && (scoring || explore_share !== undefined || floor_share !== undefined)) {
    throw new CarrierConfigError(
      `Invalid route: scoring, explore_share and floor_share apply to "strategy": "adaptive" routes (this one is ${strategy}).`,
    );
  }
  const checked: RoutingRule = {
    route: route.route,
    prefix: route.prefix ?? "",
    strategy,
    connectors: route.connectors.map((c) => ({ name: c.name, weight: c.weight ?? 1 })),
  };
  if (strategy !== "adaptive") return checked;
  const weights = { ...DEFAULT_SCORING, ...(scoring ? { delivery: 0, latency: 0, cost: 0, ...scoring } : {}) };
  if (weights.delivery + weights.latency + weights.cost <= 0) {
    throw new CarrierConfigError("Invalid route: scoring needs a weight above 0 for delivery, latency or cost.");
  }
  const full: RouteScoring = {
    ...weights,
    explore_share: explore_share ?? DEFAULT_SCORING.explore_share,
    floor_share: floor_share ?? DEFAULT_SCORING.floor_share,
  };
  const serving = route.connectors.filter((c) => (c.weight ?? 1) > 0).length;
  if (full.floor_share * serving > 1) {
    throw new CarrierConfigError(
      `Invalid route: floor_share ${full.floor_share} for each of ${serving} connectors is more than all the traffic.`,
    );
  }
  return { ...checked, scoring: full };
}

/** The session options of an SMPP definition. */
export function smppSessionOptions(definition: SmppDefinition): SmppSessionOptions {
  const options: SmppSessionOptions = {
    host: definition.host,
    port: definition.port,
    systemId: definition.system_id,
    password: definition.password,
    bind: definition.bind ?? "transceiver",
    window: definition.window ?? 10,
    throughputPerSecond: definition.throughput_per_second ?? 0,
    enquireLinkSeconds: definition.enquire_link_seconds ?? 30,
    responseTimeoutMs: definition.response_timeout_ms ?? 5_000,
    reconnectInitialMs: definition.reconnect_initial_ms ?? 1_000,
    reconnectMaxMs: definition.reconnect_max_ms ?? 60_000,
  };
  if (definition.system_type !== undefined) options.systemType = definition.system_type;
  if (definition.dlt_tags) {
    const { entity_id, template_id, tm_chain } = definition.dlt_tags;
    options.dltTags = { entityId: entity_id, templateId: template_id, ...(tm_chain ? { tmChain: tm_chain } : {}) };
  }
  if (definition.dlt_format === "cstring") options.dltNulTerminated = true;
  if (definition.service_type !== undefined) options.serviceType = definition.service_type;
  if (definition.source_ton !== undefined) options.sourceTon = definition.source_ton;
  if (definition.source_npi !== undefined) options.sourceNpi = definition.source_npi;
  if (definition.destination_ton !== undefined) options.destinationTon = definition.destination_ton;
  if (definition.destination_npi !== undefined) options.destinationNpi = definition.destination_npi;
  if (definition.registered_delivery !== undefined) options.registeredDelivery = definition.registered_delivery;
  if (definition.receipt_time_zone !== undefined) options.receiptTimeZone = definition.receipt_time_zone;
  return options;
}

export const MASK = "********";

/** Where each type keeps its secrets: paths of string fields. */
function secretPaths(definition: CarrierDefinition): string[][] {
  if (definition.type === "smpp") return [["password"]];
  return [
    ["auth", "password"],
    ["auth", "token"],
    ["auth", "value"],
    ["dlr", "secret", "value"],
    ["dlr", "secret", "secret"],
  ];
}

function walk(object: unknown, path: string[]): { parent: Record<string, unknown>; key: string } | null {
  let node = object as Record<string, unknown> | undefined;
  for (const key of path.slice(0, -1)) {
    node = node?.[key] as Record<string, unknown> | undefined;
    if (typeof node !== "object" || node === null) return null;
  }
  const key = path.at(-1)!;
  return node && typeof node[key] === "string" ? { parent: node, key } : null;
}

/** A copy with every secret replaced by MASK (what the operator API and CLI show). */
export function maskSecrets<T extends CarrierDefinition>(definition: T): T {
  const copy = structuredClone(definition);
  for (const path of secretPaths(copy)) {
    const found = walk(copy, path);
    if (found && found.parent[found.key] !== "") found.parent[found.key] = MASK;
  }
  return copy;
}

/**
 * A definition sent back with masked secrets (as GET showed it) keeps the stored secrets, so an
 * operator can edit one field of what they read. Runs before validation.
 */
export function keepMaskedSecrets(input: unknown, stored: CarrierDefinition | undefined): unknown {
  if (!stored || typeof input !== "object" || input === null) return input;
  const copy = structuredClone(input) as CarrierDefinition;
  if (copy.type !== stored.type) return input;
  for (const path of secretPaths(copy)) {
    const sent = walk(copy, path);
    const kept = walk(stored, path);
    if (sent && kept && sent.parent[sent.key] === MASK) sent.parent[sent.key] = kept.parent[kept.key];
  }
  return copy;
}
