// Webhooks: the URL of each account's events, its signing secrets (several while a rotated
// one is in its grace period), the outbox of deliveries and every attempt made.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function webhooks(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("webhook_endpoints")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("event", "text", (c) => c.notNull())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("webhook_endpoints_pk", ["account_id", "event"])
        .execute();
      await withId(db, engine, "webhook_secrets")
        .addColumn("account_id", "bigint", (c) => c.notNull().references("accounts.id"))
        .addColumn("secret", "text", (c) => c.notNull())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        // Null for the current secret; a rotated-out secret still signs until then.
        .addColumn("expires_at", "bigint")
        .execute();
      await db.schema.createIndex("webhook_secrets_by_account").on("webhook_secrets").column("account_id").execute();

      // The outbox: written in the same transaction as the state change the event reports.
      await withId(db, engine, "webhook_deliveries")
        .addColumn("account_id", "bigint", (c) => c.notNull())
        .addColumn("event", "text", (c) => c.notNull())
        // Events with the same key are delivered in id order (a message's submitted before its delivered).
        .addColumn("order_key", "text", (c) => c.notNull())
        .addColumn("webhook_id", "text", (c) => c.notNull().unique())
        .addColumn("url", "text", (c) => c.notNull())
        .addColumn("payload", "text", (c) => c.notNull())
        .addColumn("status", "text", (c) => c.notNull())
        .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("next_attempt_at", "bigint", (c) => c.notNull())
        .addColumn("lease_until", "bigint")
        .addColumn("last_status", "integer")
        .addColumn("last_error", "text")
        .addColumn("redelivery_of", "bigint")
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("done_at", "bigint")
        .execute();
      await db.schema
        .createIndex("webhook_deliveries_due")
        .on("webhook_deliveries")
        .columns(["next_attempt_at", "id"])
        .where(sql.ref("status"), "=", "pending")
        .execute();
      await db.schema
        .createIndex("webhook_deliveries_leased")
        .on("webhook_deliveries")
        .column("lease_until")
        .where(sql.ref("status"), "=", "delivering")
        .execute();
      // Finished deliveries, for pruning after the retention period.
      await db.schema
        .createIndex("webhook_deliveries_done")
        .on("webhook_deliveries")
        .column("done_at")
        .where(sql.ref("done_at"), "is not", null)
        .execute();
      await db.schema
        .createIndex("webhook_deliveries_by_key")
        .on("webhook_deliveries")
        .columns(["order_key", "id"])
        .execute();
      await db.schema
        .createIndex("webhook_deliveries_by_account")
        .on("webhook_deliveries")
        .columns(["account_id", "id"])
        .execute();
      await withId(db, engine, "webhook_attempts")
        .addColumn("delivery_id", "bigint", (c) => c.notNull())
        .addColumn("attempt", "integer", (c) => c.notNull())
        .addColumn("status_code", "integer")
        .addColumn("latency_ms", "integer", (c) => c.notNull())
        .addColumn("error", "text")
        .addColumn("at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex("webhook_attempts_by_delivery")
        .on("webhook_attempts")
        .columns(["delivery_id", "attempt"])
        .execute();
    },
  };
}
