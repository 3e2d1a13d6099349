// The operator API's answers about carriers (admin-routes.ts) as schemas: connectors with their
// health as the workers last wrote it, and the routes that pick them. They serialize the answers
// and type what the console reads; typebox and schema files only. Also a connector's error codes
// and the refund policy per reason (error-code-routes.ts, refund-policy-routes.ts).
import { Type } from "typebox";
import { NullableString, NullableTime, OneOf, OpenObject, Time } from "../../base/http/answer-schemas.js";

/**
 * A connector's definition as saved, secrets masked: an smpp or http-sms configuration with its
 * own optional fields (catalog.ts checks it). Shown as it was given, so declared open.
 */
const Definition = OpenObject();

export const Carrier = Type.Object({
  name: Type.String(),
  type: Type.String(),
  enabled: Type.Boolean(),
  source: OneOf(["api", "file"]),
  definition: Definition,
  created_at: Time,
  updated_at: Time,
});

/** One worker's view of a connector (health.ts ConnectorHealth, as written to connector_health). */
export const WorkerHealth = Type.Object({
  type: Type.String(),
  state: OneOf(["up", "degraded", "down"]),
  reason: NullableString(),
  sessions: Type.Unsafe<{ total: number; bound: number; outstanding: number; queued: number } | null>({
    type: ["object", "null"],
    properties: {
      total: Type.Integer(),
      bound: Type.Integer(),
      outstanding: Type.Integer(),
      queued: Type.Integer(),
    },
    required: ["total", "bound", "outstanding", "queued"],
  }),
  /** Submits since the worker started, by outcome: throughput is their change between two reads. */
  results: Type.Object({
    ok: Type.Integer(),
    retryable: Type.Integer(),
    failed: Type.Integer(),
    deferred: Type.Integer(),
  }),
  /**
   * Of its last 500 answered submits (deferred aside), how many the carrier refused: adaptive
   * routes' refusal share (read as none from a worker of an earlier version).
   */
  recent: Type.Object({ submits: Type.Integer(), refused: Type.Integer() }),
  last_error: Type.Unsafe<{ code: string; message: string; at: string } | null>({
    type: ["object", "null"],
    properties: { code: Type.String(), message: Type.String(), at: Time },
    required: ["code", "message", "at"],
  }),
  /** While the circuit is open: when traffic is tried again. */
  retry_at: NullableTime(),
  worker: Type.String(),
  updated_at: Time,
});

const ConnectorState = OneOf(["up", "degraded", "down", "unknown"]);

/** A connector as the workers see it: the best state any of them sees (unknown when none runs it). */
export const ConnectorHealth = Type.Object({
  connector: Type.String(),
  state: ConnectorState,
  workers: Type.Array(WorkerHealth),
});

export const CarrierWithHealth = Type.Object({
  ...Carrier.properties,
  health: Type.Object({ state: ConnectorState, workers: Type.Array(WorkerHealth) }),
});

export const CarrierRoute = Type.Object({
  id: Type.Integer(),
  route: Type.String(),
  prefix: Type.String(),
  connectors: Type.Array(Type.Object({ name: Type.String(), weight: Type.Integer() })),
  strategy: OneOf(["weighted", "least_cost", "adaptive"]),
  /** An adaptive route's weights of delivery, latency and cost, and its shares. */
  scoring: Type.Optional(Type.Object({ delivery: Type.Number(), latency: Type.Number(), cost: Type.Number() })),
  explore_share: Type.Optional(Type.Number()),
  floor_share: Type.Optional(Type.Number()),
});

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

/** A connector of an adaptive route as scored now (route-scores.ts). */
export const RouteScore = Type.Object({
  route: Type.String({ description: "Route code / prefix, * for every number" }),
  connector: Type.String(),
  score: Type.Number(),
  share: Type.Number({
    description:
      "Share of the route's traffic it gets now: 0 when idle, the others' shares of what they carry (adding up to 1)",
  }),
  note: Type.String(),
  receipts: Type.Integer({
    description: "Receipts measured (delivered + failed) of its last 500 messages to the route's prefix",
  }),
  receipts_delivered: Type.Integer({
    description: "Of them, delivered: the plain ratio is receipts_delivered / receipts",
  }),
  delivery_rate: Type.Union([Type.Number(), Type.Null()], {
    description: "Delivered share weighted to recent receipts (the score's figure); null before any receipt",
  }),
  latency_p50_ms: NullableNumber,
  refusal_rate: NullableNumber,
  cost: NullableNumber,
  idle: Type.Union([Type.Literal("disabled"), Type.Literal("down"), Type.Null()], {
    description: "Why it takes none of the route's traffic now (the router leaves it out); null when it carries",
  }),
});

/** A connector's carrier codes mapped to reasons (error-code-routes.ts): its own over the default table. */
export const ErrorCodes = Type.Object({
  connector: Type.String(),
  codes: Type.Array(
    Type.Object({
      code: Type.String(),
      reason: Type.String(),
      description: Type.String(),
      source: OneOf(["connector", "default"]),
    }),
  ),
});

/** Whether carrier failures of each reason are refunded (refund-policy.ts): the operator's choice, else the default. */
export const RefundPolicy = Type.Object({
  /** The reasons REFUND_CARRIER_REASONS refunds (the installation's default). */
  default_reasons: Type.Array(Type.String()),
  reasons: Type.Array(
    Type.Object({
      reason: Type.String(),
      refund: Type.Boolean(),
      source: OneOf(["operator", "default"]),
      description: Type.String(),
    }),
  ),
});
