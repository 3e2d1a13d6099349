// Column helpers the migrations share, written once for both engines.
import type { ColumnDefinitionBuilder, Kysely } from "kysely";
import type { Engine } from "../engine.js";

/** An auto-incrementing primary key: INTEGER AUTOINCREMENT on SQLite (ids never reused), BIGSERIAL on PostgreSQL. */
export function idColumn(engine: Engine): "integer" | "bigserial" {
  return engine === "sqlite" ? "integer" : "bigserial";
}

export function idConstraints(engine: Engine) {
  return (c: ColumnDefinitionBuilder) => (engine === "sqlite" ? c.primaryKey().autoIncrement() : c.primaryKey());
}

/** Adds the standard `id` primary key to a table under construction. */
export function withId(db: Kysely<unknown>, engine: Engine, table: string) {
  return db.schema.createTable(table).addColumn("id", idColumn(engine), idConstraints(engine));
}
