// Alerts (issue 38): the operator's settings (one row, JSON), each account's low-balance
// threshold, and the state of every alert condition, shared by all processes so that one of them
// raises an alert and one clears it (conditional updates on `active`). Also the index the
// delivery-rate alert reads a connector's latest final messages by.
import { type Kysely, sql } from "kysely";

export function alerts() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("alert_settings")
        .addColumn("id", "integer", (c) => c.primaryKey())
        .addColumn("settings", "text", (c) => c.notNull())
        // The operator account whose webhook secret signs the alert webhooks.
        .addColumn("operator_account_id", "bigint", (c) => c.references("accounts.id"))
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("alert_thresholds")
        .addColumn("account_id", "bigint", (c) => c.primaryKey().references("accounts.id"))
        .addColumn("wallet", "text", (c) => c.notNull())
        // Milli-credits: below this the account's wallet raises low_balance.
        .addColumn("threshold", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await db.schema
        .createTable("alert_states")
        .addColumn("kind", "text", (c) => c.notNull())
        .addColumn("subject", "text", (c) => c.notNull())
        // When the condition was first seen (the window counts from here).
        .addColumn("since", "bigint", (c) => c.notNull())
        // 0: condition seen, not yet raised; 1: raised (its row is deleted when it clears).
        .addColumn("active", "integer", (c) => c.notNull().defaultTo(0))
        .addColumn("raised_at", "bigint")
        .addColumn("value", "double precision")
        .addColumn("detail", "text", (c) => c.notNull())
        .addColumn("account_id", "bigint")
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .addPrimaryKeyConstraint("alert_states_pk", ["kind", "subject"])
        .execute();
      await db.schema
        .createIndex("messages_by_connector_done")
        .on("messages")
        .columns(["connector", "done_at"])
        .where(sql.ref("done_at"), "is not", null)
        .execute();
    },
  };
}
