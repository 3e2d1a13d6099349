// A price card read a page at a time (decision 0154). Its rows are in the order channel, prefix,
// route, effective_from (the row's key, so the order is total; `always` first), and each row keeps
// its place in that order within its upload (`position`, from 0, written by the upload): a page is
// a run of places read by (card, generation, position), and the rows of a channel, or of a
// channel and a prefix's start, are one run whose ends (card, generation, channel, prefix,
// position) finds, so a page at any depth and its count cost a few index look-ups on either
// engine; the table keeps two indexes, as (card, generation, id) goes. Rows written before are given
// their places here. On PostgreSQL channel, route and prefix compare byte by byte (COLLATE "C",
// as 0022's keys): the order is then SQLite's and JavaScript's (`*` before the digits), and
// "prefix starts with 91" is the range ['91', '91:') in any database locale. Adding a column
// with a constant default and changing a text column's collation rewrite no table.
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
      await db.schema
        .alterTable("price_card_rows")
        .addColumn("position", "integer", (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update price_card_rows set position = placed.n
        from (select id, row_number() over (partition by card, generation
                order by channel, prefix, route, effective_from asc nulls first, id) - 1 as n
              from price_card_rows) as placed
        where price_card_rows.id = placed.id`.execute(db);
      // (card, generation, position) serves what (card, generation, id) did: an upload's removals
      // and reads of a generation go by place now.
      await db.schema.dropIndex("price_card_rows_by_generation").execute();
      await db.schema
        .createIndex("price_card_rows_by_position")
        .on("price_card_rows")
        .columns(["card", "generation", "position"])
        .execute();
      // Within a channel and a prefix the places follow route and effective_from: so a filter's
      // first and last rows by (channel, prefix, position) end its run.
      await db.schema
        .createIndex("price_card_rows_in_order")
        .on("price_card_rows")
        .columns(["card", "generation", "channel", "prefix", "position"])
        .execute();
    },
  };
}
