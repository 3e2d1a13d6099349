// `switchboard backup <file>`: an online copy of the configured SQLite database, taken while the
// gateway runs (base/store/sqlite-backup.ts). PostgreSQL has its own tool for that, pg_dump: the
// command says so and exits 1, having written nothing (docs/deployment.md, Backups).
import fs from "node:fs";
import { loadConfig } from "../../base/runtime/config.js";
import { MIGRATION_NAMES, unknownMigrations } from "../../base/store/migrations/index.js";
import { backupSqlite } from "../../base/store/sqlite-backup.js";
import { print } from "./cli-support.js";

export const PG_DUMP_ADVICE =
  "this database is PostgreSQL, which `switchboard backup` does not copy (it copies SQLite): back it up with " +
  'pg_dump while the gateway runs: pg_dump -Fc -f switchboard.dump "$DATABASE_URL" (restore: pg_restore; docs/deployment.md, Backups)';

export async function backupCommand(file: string, options: { json?: boolean }): Promise<void> {
  const { database } = loadConfig();
  if (database.engine === "postgres") throw new Error(PG_DUMP_ADVICE);
  if (database.file === ":memory:") throw new Error("DATABASE_URL is an in-memory database: there is nothing to copy");
  if (!fs.existsSync(database.file)) throw new Error(`there is no database at ${database.file} (DATABASE_URL)`);
  const backup = await backupSqlite(database.file, file);
  const pending = MIGRATION_NAMES.filter((name) => !backup.migrations.includes(name)).length;
  const unknown = unknownMigrations(backup.migrations).length;
  print(
    { ...backup, migrations: backup.migrations.length, pending_migrations: pending, unknown_migrations: unknown },
    options.json,
    () =>
      [
        `backup written: ${backup.file} (${backup.bytes} bytes in ${backup.ms} ms; ${backup.migrations.length} migrations)`,
        ...(pending > 0
          ? [`${pending} migration(s) of this version are not applied in it; a start on it applies them`]
          : []),
        ...(unknown > 0 ? [`${unknown} migration(s) in it are a newer version's: restore it with that version`] : []),
        "restore: stop Switchboard, copy this file over the database's (removing its -wal and -shm files), start it again",
      ].join("\n"),
  );
}
