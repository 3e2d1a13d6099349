// Price cards written in chunks (audit F8, decision 0146): price_card_rows.generation names the
// upload a row belongs to and price_cards.generation the one the card answers with (null: a card
// whose first upload is still being written, or a deleted card whose rows are still being
// removed: no card to any reader). An upload writes its rows under a new generation a few
// thousand per transaction, then one short transaction moves the card's generation; rows of any
// other generation are never read. Rows written before this migration are generation 0.
// Card names compare without case, as usernames (audit F4): a card whose name has capitals is
// renamed to lower case, with its rows and the accounts on it, unless another card already has
// that lower-case name (those keep their names; the API answers 409 naming both for a name that
// is neither exactly).
import { type Kysely, sql } from "kysely";

export function priceCardGenerations() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("price_cards")
        .addColumn("generation", "bigint", (c) => c.defaultTo(0))
        .execute();
      await db.schema
        .alterTable("price_card_rows")
        .addColumn("generation", "bigint", (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.dropIndex("price_card_rows_by_card").execute();
      await db.schema
        .createIndex("price_card_rows_by_generation")
        .on("price_card_rows")
        .columns(["card", "generation", "id"])
        .execute();
      const { rows } = await sql<{ name: string }>`
        select name from price_cards c where name <> lower(name)
          and (select count(*) from price_cards o where lower(o.name) = lower(c.name)) = 1`.execute(db);
      for (const { name } of rows) {
        const lower = name.toLowerCase();
        await sql`insert into price_cards (name, created_at, updated_at, generation)
          select ${lower}, created_at, updated_at, generation from price_cards where name = ${name}`.execute(db);
        await sql`update price_card_rows set card = ${lower} where card = ${name}`.execute(db);
        await sql`update accounts set price_card = ${lower} where price_card = ${name}`.execute(db);
        await sql`delete from price_cards where name = ${name}`.execute(db);
      }
    },
  };
}
