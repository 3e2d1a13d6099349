// A PostgreSQL dialect whose catalog introspection and migration lock see only the
// connection's current schema.
import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type DialectAdapter,
  type Kysely,
  type MigrationLockOptions,
  PostgresAdapter,
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

/**
 * Kysely's migration lock is one advisory lock for the whole PostgreSQL server, so a schema's
 * migration waits for every other schema's: tenants sharing a server, or parallel test files
 * each migrating a schema of their own, queue behind one another (a start waited over 20 s
 * amid the test suite on a slow machine). The lock here is per schema: two processes
 * migrating the same schema still take turns (test/store/migrate-race.test.ts), other schemas
 * do not wait. Session-level, as Kysely's, with the same hour-long lock_timeout.
 */
class SchemaMigrationLockAdapter extends PostgresAdapter {
  override async acquireMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`
      with set_timeout as (select set_config('lock_timeout', '3600000', true) as config_val)
      select pg_advisory_lock(${migrationLockKey(options)}) from set_timeout`.execute(db);
  }

  override async releaseMigrationLock(db: Kysely<unknown>, options: MigrationLockOptions): Promise<void> {
    await sql`select pg_advisory_unlock(${migrationLockKey(options)})`.execute(db);
  }
}

/** A 64-bit key derived from the schema's name (the bookkeeping table's, else the current one). */
function migrationLockKey(options: MigrationLockOptions) {
  const schema = options.lockTableSchema === undefined ? sql`current_schema()` : sql`${options.lockTableSchema}`;
  return sql`hashtextextended('switchboard migrations ' || ${schema}, 0)`;
}

export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createAdapter(): DialectAdapter {
    return new SchemaMigrationLockAdapter();
  }

  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
