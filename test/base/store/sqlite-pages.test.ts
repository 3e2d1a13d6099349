// The page size of a SQLite database (docs/decisions/0136-smaller-sqlite-pages.md): a new one gets
// PAGE_SIZE, an older one keeps its own, and both checkpoint their WAL at about 32 MB whatever
// the size of their pages.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { sql } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite, PAGE_SIZE, walCheckpointPages } from "../../../src/base/store/sqlite-store.js";
import type { Store } from "../../../src/base/store/store.js";

describe("SQLite page size", () => {
  const dirs: string[] = [];
  const stores: Store[] = [];
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });
  const fileIn = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-pages-"));
    dirs.push(dir);
    return path.join(dir, "gateway.db");
  };
  const pragma = async (store: Store, name: string) =>
    Number(Object.values((await sql.raw(`pragma ${name}`).execute(store.db)).rows[0] as object)[0]);

  it("is PAGE_SIZE for a new database, migrated and written", async () => {
    const store = openSqlite(fileIn(), { sqliteSynchronous: "NORMAL" });
    stores.push(store);
    await store.migrate();
    expect(await pragma(store, "page_size")).toBe(PAGE_SIZE);
    expect(await pragma(store, "wal_autocheckpoint")).toBe(walCheckpointPages(PAGE_SIZE));
    expect(walCheckpointPages(PAGE_SIZE) * PAGE_SIZE).toBe(32 * 1024 * 1024);
  });

  it("holds SQLITE_CACHE_MB of page cache per connection, 8 MiB when left out", async () => {
    const plain = openSqlite(fileIn(), { sqliteSynchronous: "NORMAL" });
    const larger = openSqlite(fileIn(), { sqliteSynchronous: "NORMAL", sqliteCacheMb: 64 });
    stores.push(plain, larger);
    expect(await pragma(plain, "cache_size")).toBe(-8 * 1024);
    expect(await pragma(larger, "cache_size")).toBe(-64 * 1024);
  });

  it("stays what it was for a database made before, whose WAL is checkpointed at the same size", async () => {
    const file = fileIn();
    const older = new BetterSqlite3(file);
    older.pragma("page_size = 4096");
    older.pragma("journal_mode = WAL");
    older.exec("create table made_before (id integer primary key)");
    older.close();
    const store = openSqlite(file, { sqliteSynchronous: "NORMAL" });
    stores.push(store);
    await store.migrate();
    expect(await pragma(store, "page_size")).toBe(4096);
    expect(await pragma(store, "wal_autocheckpoint")).toBe(8192);
  });
});
