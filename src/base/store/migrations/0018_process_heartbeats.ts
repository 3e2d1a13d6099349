// Every running gateway process (start, api, worker) says it is alive every few seconds, with
// its own clock and the database's at that moment: `switchboard doctor` lists the processes
// and the skew of each one's clock against the database (leases, schedules and retries compare
// times written by different machines).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function processHeartbeats(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("process_heartbeats")
        // Random per process start.
        .addColumn("id", "text", (c) => c.primaryKey())
        // start, api or worker.
        .addColumn("role", "text", (c) => c.notNull())
        .addColumn("host", "text", (c) => c.notNull())
        .addColumn("pid", "integer", (c) => c.notNull())
        .addColumn("version", "text", (c) => c.notNull())
        // The address its HTTP listener answers on.
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("started_at", "bigint", (c) => c.notNull())
        // Epoch ms of the last beat by the process's clock, and by the database's in the same statement.
        .addColumn("beat_local", "bigint", (c) => c.notNull())
        .addColumn("beat_db", "bigint", (c) => c.notNull())
        .execute();
    },
  };
}
