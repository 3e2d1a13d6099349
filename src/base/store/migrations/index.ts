// The ordered list of migrations, which both engines run, and the run itself.
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator, sql } from "kysely";
import type { Engine } from "../engine.js";
import type { Db } from "../schema.js";

/**
 * The migrations in the order they run. Kept apart from their bodies (bodies.ts, which must list
 * the same names: test/base/store/migrations.test.ts) so that a start against an up-to-date
 * database reads one table and loads none of them.
 */
export const MIGRATION_NAMES: readonly string[] = [
  "0001_accounts_and_ledger",
  "0002_messages",
  "0003_sms_rules",
  "0004_campaigns_and_inbound",
  "0005_webhooks",
  "0006_whatsapp",
  "0007_voice",
  "0008_email",
  "0009_carrier_parts",
  "0010_carriers",
  "0011_message_parts_age",
  "0012_usernames_case_insensitive",
  "0013_login_locks",
  "0014_default_dlt_entity",
  "0015_message_listing",
  "0016_console_sessions",
  "0017_smpp_server",
  "0018_process_heartbeats",
  "0019_smpp_binds",
  "0020_voice_caller_requests",
  "0021_messages_held_since",
  "0022_key_collation",
  "0023_hot_table_keys",
  "0024_message_parts_count",
  "0025_message_parts_room",
  "0026_early_reports",
  "0027_login_budget",
  "0028_early_reports_by_age",
  "0029_messages_by_created",
  "0030_account_views",
  "0032_refusals",
  "0033_alerts",
  "0034_price_cards",
  "0035_delivery_rollups",
  "0036_resellers",
  "0037_routing_costs",
  "0038_dlt_whitelists",
  "0039_verifications",
  "0040_verify_countries",
  "0041_verify_guards",
  "0042_dlt_matching",
  "0043_dlt_tm_chain",
  "0044_audit_log",
  "0045_send_chains",
  "0046_promo_hours",
  "0047_short_links",
  "0048_carrier_reasons",
  "0049_key_scopes",
  "0050_users",
  "0051_two_factor",
  "0053_prefix_alerts_chain_pruning",
  "0054_fewer_message_writes",
  "0055_early_receipts",
  "0056_key_makers",
  "0057_attempt_urls_rejection_reasons",
  "0059_more_rejection_reasons",
  "0060_message_dlt_chain_scrub",
  "0061_price_card_generations",
  "0064_rollups_rejected",
  "0067_price_card_row_order",
  "0068_refusal_recipients",
  "0069_refusal_username",
  "0070_refusal_upline",
  "0071_price_card_places_unique",
  "0074_email_unsubscribe",
  "0075_message_carrier_source",
  "0076_early_report_carrier_code",
  "0077_whatsapp_early_statuses",
  "0078_webhook_secret_one_current",
];

export function migrationProvider(engine: Engine): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const { migrationBodies } = await import("./bodies.js");
      return migrationBodies(engine);
    },
  };
}

/** The applied migrations this version does not know: a newer version's, in the order given. */
export function unknownMigrations(applied: Iterable<string>): string[] {
  const known = new Set(MIGRATION_NAMES);
  return [...applied].filter((name) => !known.has(name));
}

/** What a process of this version says, and doctor, about a database a newer version migrated. */
export function newerSchemaMessage(unknown: readonly string[]): string {
  return (
    `This database was migrated by a newer Switchboard: it has ${unknown.length} migration(s) this version ` +
    `does not know (${unknown.join(", ")}). Upgrade Switchboard on this machine to the version that ` +
    "migrated it, or a later one, and start it again; this version does not run on it (decision 0180)."
  );
}

/**
 * Brings the database to the latest migration; nothing to do (one read) when it is there.
 * Refuses, changing nothing, a database that holds a migration this version does not know.
 */
export async function runMigrations(db: Db, engine: Engine): Promise<void> {
  // Without an explicit schema Kysely looks for its bookkeeping tables in every schema, and
  // another schema's tables would make it skip creating ours.
  const schema =
    engine === "postgres"
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined;
  // Already at the latest migration (every start after the first): nothing to do.
  const applied = await sql<{ name: string }>`select name from schema_migrations`
    .execute(db)
    .then((result) => new Set(result.rows.map((row) => row.name)))
    .catch(() => new Set<string>());
  // A newer Switchboard migrated this database: this version would write rows without what its
  // migrations added (decision 0180), so no process of it starts, and `migrate` refuses too.
  const unknown = unknownMigrations(applied);
  if (unknown.length > 0) throw new Error(newerSchemaMessage(unknown));
  if (MIGRATION_NAMES.every((name) => applied.has(name))) return;
  const migrator = new Migrator({
    db,
    provider: migrationProvider(engine),
    migrationTableName: "schema_migrations",
    migrationLockTableName: "schema_migrations_lock",
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = engine === "sqlite" ? await migrateSqlite(db, migrator) : await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (!error && !failed) return;
  const cause = error instanceof Error ? error.message : String(error ?? "");
  throw new Error(`Database migration ${failed?.migrationName ?? ""} failed: ${cause}`.trim());
}

/**
 * SQLite's migrations in one write transaction taken before Kysely reads which are applied: its
 * SQLite adapter takes no lock and runs each migration by itself, so two processes starting on a
 * new file (a `start` and an operator's first command) both ran the migrations, and the second
 * failed on a column the first had added. `begin immediate` makes the second wait (busy_timeout)
 * and then find them applied; a failure leaves the file as it was. The store's one connection
 * runs nothing else while a process migrates.
 */
async function migrateSqlite(db: Db, migrator: Migrator): Promise<MigrationResultSet> {
  await sql`begin immediate`.execute(db);
  try {
    const outcome = await migrator.migrateToLatest();
    await sql.raw(outcome.error ? "rollback" : "commit").execute(db);
    return outcome;
  } catch (error) {
    await sql`rollback`.execute(db).catch(() => undefined);
    throw error;
  }
}
