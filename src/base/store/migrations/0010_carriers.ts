// Carriers (issue 10): the SMS connectors an operator configured (SMPP binds, HTTP aggregators),
// the routes that pick them by route code and number prefix, and what each worker last saw of
// each connector's health.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function carriers(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("carriers")
        .addColumn("name", "text", (c) => c.primaryKey())
        // smpp or http-sms.
        .addColumn("type", "text", (c) => c.notNull())
        // The whole definition as JSON (validated by carriers/definitions.ts before it is stored).
        .addColumn("config", "text", (c) => c.notNull())
        .addColumn("enabled", "integer", (c) => c.notNull().defaultTo(1))
        // api (operator API or CLI) or file (SWITCHBOARD_CARRIERS_FILE).
        .addColumn("source", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await withId(db, engine, "sms_routes")
        // T, P, PS, I, V or * (any).
        .addColumn("route", "text", (c) => c.notNull())
        // Leading digits of the number in international form (91…); empty matches every number.
        .addColumn("prefix", "text", (c) => c.notNull())
        // JSON: [{ "name": connector, "weight": n }, …] in failover order.
        .addColumn("connectors", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addUniqueConstraint("sms_routes_once", ["route", "prefix"])
        .execute();
      await db.schema
        .createTable("connector_health")
        .addColumn("connector", "text", (c) => c.notNull())
        // The worker process that saw it (host:pid).
        .addColumn("worker", "text", (c) => c.notNull())
        // up, degraded or down.
        .addColumn("state", "text", (c) => c.notNull())
        // JSON: sessions bound, counts, last error.
        .addColumn("detail", "text", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("connector_health_pkey", ["connector", "worker"])
        .execute();
    },
  };
}
