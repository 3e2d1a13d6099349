// A PostgreSQL dialect whose catalog introspection sees only the connection's current schema.
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  PostgresDialect,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from "kysely";

/**
 * Kysely's PostgreSQL introspector reads the columns of every table of every schema, joined
 * through pg_namespace and calling pg_get_serial_sequence on each: when another schema is
 * dropped while that query runs (parallel test files, or another tenant's schema on a shared
 * server), PostgreSQL fails it with "relation does not exist" or "schema does not exist", and a
 * first migration fails. The only caller is the Migrator, which asks whether its bookkeeping
 * tables and schema exist; both questions are about our own schema, so that is all we read.
 */
class CurrentSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select current_schema() as name`.execute(this.#db);
    return rows.filter((row) => row.name !== null).map((row) => ({ name: row.name }));
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; schema: string; is_view: boolean }>`
      select c.relname as name, n.nspname as schema, c.relkind = 'v' as is_view
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p')
      order by c.relname`.execute(this.#db);
    return rows.map((row) => ({ name: row.name, schema: row.schema, isView: row.is_view, columns: [] }));
  }

  async getMetadata(_options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
