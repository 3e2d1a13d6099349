// A place in a price card's upload is one row (decision 0154): (card, generation, position) is a
// unique index, so two uploads of one card that drew the same generation (the same millisecond
// and random part) cannot both write under it. The second's first chunk is refused and it draws
// again, having written nothing (replacePriceCard); before, both wrote their rows under one
// generation and the loser's clean-up removed the winner's. A copy of a place left by such a
// pair is removed first (the later row), so the index can be made.
import { type Kysely, sql } from "kysely";

export function priceCardPlacesUnique() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`delete from price_card_rows where id in (
          select later.id from price_card_rows later
          join price_card_rows earlier
            on earlier.card = later.card and earlier.generation = later.generation
           and earlier.position = later.position and earlier.id < later.id)`.execute(db);
      await db.schema.dropIndex("price_card_rows_by_position").execute();
      await db.schema
        .createIndex("price_card_rows_by_position")
        .on("price_card_rows")
        .columns(["card", "generation", "position"])
        .unique()
        .execute();
    },
  };
}
