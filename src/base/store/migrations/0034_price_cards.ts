// Price cards (issue 39): what a send costs by channel, route code and destination prefix. A card
// is a name and its rows; an account names its card (null: the built-in `default`, 1 credit a
// unit). Prices are milli-credits per SMS segment or voice call unit; a row applies from its
// effective_from (null: always). A change of any card bumps `price_cards_version` in `settings`,
// which every process's cache compares (domain/accounts/price-lookup.ts).
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";
import { withId } from "./columns.js";

export function priceCards(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable("price_cards")
        .addColumn("name", "text", (c) => c.primaryKey())
        .addColumn("created_at", "bigint", (c) => c.notNull())
        .addColumn("updated_at", "bigint", (c) => c.notNull())
        .execute();
      await withId(db, engine, "price_card_rows")
        .addColumn("card", "text", (c) => c.notNull().references("price_cards.name"))
        .addColumn("channel", "text", (c) => c.notNull())
        .addColumn("route", "text", (c) => c.notNull())
        .addColumn("prefix", "text", (c) => c.notNull())
        .addColumn("price", "bigint", (c) => c.notNull())
        .addColumn("effective_from", "bigint")
        .execute();
      await db.schema.createIndex("price_card_rows_by_card").on("price_card_rows").columns(["card", "id"]).execute();
      await db.schema.alterTable("accounts").addColumn("price_card", "text").execute();
    },
  };
}
