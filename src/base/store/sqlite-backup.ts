// An online copy of a SQLite database (`switchboard backup`): SQLite's backup API, through a
// connection of its own, while the gateway goes on writing. The copy is the database as one
// read transaction saw it, the WAL's committed pages with the main file's, unlike a `cp` of the
// main file, which misses whatever the WAL holds: every commit since the last checkpoint (up to
// 32 MB of them), schema migrations included.
import fs from "node:fs";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";

export interface SqliteBackup {
  file: string;
  bytes: number;
  ms: number;
  /** The names in the copy's schema_migrations. */
  migrations: string[];
}

/**
 * Copies the database at `source` to `destination`, which must not exist yet. Written beside it
 * under another name and renamed when complete, checked (quick_check) and made one file
 * (journal_mode DELETE): a restore copies that file alone. Changes nothing in the source, and
 * runs no migration (a backup before an upgrade is of the database as it is).
 */
export async function backupSqlite(source: string, destination: string): Promise<SqliteBackup> {
  const target = path.resolve(destination);
  if (path.resolve(source) === target) throw new Error(`${destination} is the database itself: give another file`);
  if (fs.existsSync(target)) throw new Error(`${destination} already exists: give a file that does not exist yet`);
  if (!fs.existsSync(path.dirname(target))) throw new Error(`the directory of ${destination} does not exist`);
  const started = performance.now();
  const partial = `${target}.partial-${process.pid}`;
  const db = new BetterSqlite3(source, { fileMustExist: true });
  try {
    // A gateway's commit holds the write lock for milliseconds; the copy only reads.
    db.pragma("busy_timeout = 10000");
    // Every page in one step: one read transaction, so the copy is one moment of the database.
    // In steps (SQLite's 100 pages), a commit by the gateway between two steps restarts the copy
    // from its first page, and under a steady stream of sends it would never finish. In WAL mode
    // the read holds up no writer; only checkpoints wait past it.
    await db.backup(partial, { progress: () => 0x7fffffff });
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  } finally {
    db.close();
  }
  let checked: Omit<SqliteBackup, "file" | "bytes" | "ms">;
  try {
    checked = checkCopy(partial);
    fs.renameSync(partial, target);
  } catch (error) {
    fs.rmSync(partial, { force: true });
    throw error;
  }
  syncDirectory(path.dirname(target));
  return { file: target, bytes: fs.statSync(target).size, ms: Math.round(performance.now() - started), ...checked };
}

/** The copy checked and made a single file; what it holds. */
function checkCopy(file: string): Omit<SqliteBackup, "file" | "bytes" | "ms"> {
  const copy = new BetterSqlite3(file, { fileMustExist: true });
  try {
    const problems = (copy.pragma("quick_check") as Array<{ quick_check: string }>).map((row) => row.quick_check);
    if (problems.join() !== "ok") throw new Error(`the copy failed SQLite's quick_check: ${problems.join("; ")}`);
    // The source's WAL mode is in the copied header: the copy would open with a -wal of its own.
    copy.pragma("journal_mode = DELETE");
    const migrations = (copy.prepare("select name from schema_migrations").all() as Array<{ name: string }>).map(
      (row) => row.name,
    );
    return { migrations };
  } finally {
    copy.close();
  }
}

/** The rename made durable (a crash right after could otherwise lose the new name). */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
