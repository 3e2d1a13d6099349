// Routing by cost and measured quality (issue 39, items 2 and 4): each connector's cost card (the
// price cards' rows, keyed by connector), what each message cost at submit and why its connector
// was chosen, each route's strategy and scoring, and an index to read a connector's recent
// messages (route-quality.ts measures them) (docs/decisions/0114-routing-by-cost-and-quality.md).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function routingCosts(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withId(db, engine, "cost_card_rows")
        .addColumn("connector", "text", (c) => c.notNull())
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("route", "text", (c) => c.notNull())
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("price", "bigint", (c) => c.notNull())
        .addColumn("effective_from", "bigint")
        .execute();
      await db.schema
        .createIndex("cost_card_rows_by_connector")
        .on("cost_card_rows")
        .columns(["connector", "id"])
        .execute();
      await db.schema.alterTable("messages").addColumn("cost", "bigint").execute();
      await db.schema.alterTable("messages").addColumn("cost_prefix", "text").execute();
      await db.schema.alterTable("messages").addColumn("route_note", "text").execute();
      await db.schema.alterTable("sms_routes").addColumn("strategy", "text").execute();
      await db.schema.alterTable("sms_routes").addColumn("scoring", "text").execute();
      await db.schema
        .createIndex("messages_by_connector_submit")
        .on("messages")
        .columns(["connector", "submitted_at"])
        .execute();
    },
  };
}
