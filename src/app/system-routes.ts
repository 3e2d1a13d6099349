// GET /admin/api/system: what the operator's system view shows, read from the database so any
// process (an `api` alone too) answers it: messages waiting per channel and lane, the webhook
// backlog, every connector's health as the workers last wrote it (their cumulative results, from
// which the console works out throughput between two reads), and the processes that beat.

import type { FastifyInstance } from "fastify";
import { sql } from "kysely";
import { operatorAnswer } from "../base/http/typed-routes.js";
import type { Runtime } from "../base/runtime/runtime.js";
import { readConnectorHealth } from "../delivery/carriers/catalog.js";
import { BACKLOG_CAP, readBacklog } from "./backlog-metrics.js";
import { databaseNowSql, HEARTBEAT_INTERVAL_MS } from "./heartbeat.js";
import { SystemView } from "./system-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

async function processes(deps: Deps) {
  const dbNow = Number(
    (await sql<{ now: number }>`select ${databaseNowSql(deps.store)} as now`.execute(deps.store.db)).rows[0]?.now,
  );
  const beats = await deps.store.db
    .selectFrom("process_heartbeats")
    .selectAll()
    .orderBy("role")
    .orderBy("host")
    .execute();
  return beats
    .filter((beat) => dbNow - Number(beat.beat_db) <= HEARTBEAT_INTERVAL_MS * 3)
    .map((beat) => ({
      role: beat.role,
      host: beat.host,
      pid: Number(beat.pid),
      version: beat.version,
      started_at: new Date(Number(beat.started_at)).toISOString(),
      last_beat_at: new Date(Number(beat.beat_db)).toISOString(),
    }));
}

export function registerSystemRoutes(admin: FastifyInstance, deps: Deps): void {
  admin.get("/system", { schema: { response: operatorAnswer(SystemView) } }, async () => {
    const now = deps.clock.now().getTime();
    const [backlog, connectors, running] = await Promise.all([
      readBacklog(deps.store, now),
      readConnectorHealth(deps.store.db, now),
      processes(deps),
    ]);
    return {
      status: "success",
      data: {
        at: new Date(now).toISOString(),
        counted_up_to: BACKLOG_CAP,
        queues: backlog.queued
          .map((row) => ({ channel: row.channel, lane: row.lane, queued: row.n, held: row.held }))
          .sort((a, b) => a.channel.localeCompare(b.channel) || a.lane - b.lane),
        webhooks: {
          pending: backlog.webhooksPending,
          overdue_seconds: Math.round(backlog.webhooksOverdueMs / 100) / 10,
        },
        connectors,
        processes: running,
      },
    };
  });
}
