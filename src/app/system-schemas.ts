// GET /admin/api/system's answer as a schema (system-routes.ts): what waits per channel and lane,
// the webhook backlog, every connector's health and the processes that beat. It serializes the
// answer and types the console's system view; typebox and schema files only.
import { Type } from "typebox";
import { Time } from "../base/http/answer-schemas.js";
import { ConnectorHealth } from "../delivery/carriers/carrier-schemas.js";

export const SystemView = Type.Object({
  at: Time,
  /** Counts stop here: a larger backlog is shown as this many. */
  counted_up_to: Type.Integer(),
  /** `held`: of `queued`, those waiting because no connector of their route is up. */
  queues: Type.Array(
    Type.Object({ channel: Type.String(), lane: Type.Integer(), queued: Type.Integer(), held: Type.Integer() }),
  ),
  webhooks: Type.Object({ pending: Type.Integer(), overdue_seconds: Type.Number() }),
  connectors: Type.Array(ConnectorHealth),
  processes: Type.Array(
    Type.Object({
      role: Type.String(),
      host: Type.String(),
      pid: Type.Integer(),
      version: Type.String(),
      started_at: Time,
      last_beat_at: Time,
    }),
  ),
});
