// A price card read a page at a time (decision 0154): rows in the order channel, prefix, route,
// effective_from (the row's key, so the order is total; `always` first), filtered by channel and
// by the start of the prefix, both answered from one index that also holds the price, so a page
// at any offset and its count read the index alone. On PostgreSQL channel, route and prefix
// compare byte by byte (COLLATE "C", as 0022's keys): the order is then SQLite's, `*` before the
// digits, and "prefix starts with 91" is the range ['91', '91:') in any database locale. The type
// is unchanged, so no table is rewritten; an index is built over every card's rows.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

export function priceCardRowOrder(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (engine === "postgres") {
        const columns = ["channel", "route", "prefix"].map(
          (c) => sql`alter column ${sql.ref(c)} type text collate "C"`,
        );
        await sql`alter table price_card_rows ${sql.join(columns)}`.execute(db);
      }
      // SQLite puts nulls first in ascending order; PostgreSQL is told to (the reads say so too).
      const always = engine === "postgres" ? sql`effective_from nulls first` : sql`effective_from`;
      await sql`create index price_card_rows_in_order on price_card_rows
        (card, generation, channel, prefix, route, ${always}, price)`.execute(db);
    },
  };
}
