// Migration 0044 on a database with views of accounts recorded (0030): each view becomes an
// `account.view` entry, and its end an `account.view_end`, in time order and chained, so the
// log verifies and the next change is appended after them.
import { type Kysely, Migrator, sql } from "kysely";
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { migrationProvider } from "../../../src/base/store/migrations/index.js";
import { openStore } from "../../../src/base/store/store.js";
import { cliActor, recordChange, verifyAuditChain } from "../../../src/domain/audit/index.js";
import { createEmptyDatabase } from "../../helpers/empty-database.js";
import { describeEachEngine } from "../../helpers/engines.js";

const BEFORE = "0039_verifications";

describeEachEngine("migration 0044 moves the recorded views into the audit log", (engine) => {
  it("writes each view's start and end as chained entries, in time order", async () => {
    const empty = await createEmptyDatabase(engine);
    const store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
    try {
      const schema =
        engine === "postgres"
          ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(store.db)).rows[0]?.schema
          : undefined;
      const migrator = new Migrator({
        db: store.db as unknown as Kysely<unknown>,
        provider: migrationProvider(engine),
        migrationTableName: "schema_migrations",
        migrationLockTableName: "schema_migrations_lock",
        ...(schema ? { migrationTableSchema: schema } : {}),
      });
      expect((await migrator.migrateTo(BEFORE)).error).toBeUndefined();
      const ids: number[] = [];
      for (const [username, role] of [
        ["ops", "operator"],
        ["shop", "customer"],
      ] as const) {
        const row = await store.db
          .insertInto("accounts")
          .values({ username, password_hash: "x", role, status: "active", created_at: 0, updated_at: 0 } as never)
          .returning("id")
          .executeTakeFirstOrThrow();
        ids.push(Number(row.id));
      }
      const [ops, shop] = ids as [number, number];
      const view = { viewer_account_id: ops, account_id: shop, address: "203.0.113.9", user_agent: "Firefox" };
      await store.db
        .insertInto("account_views")
        .values([
          { ...view, session_id: 7, started_at: 1_000, ended_at: 5_000 },
          { ...view, session_id: 8, started_at: 3_000, ended_at: null },
        ])
        .execute();

      await store.migrate();
      const log = await store.db.selectFrom("audit_log").selectAll().orderBy("seq").execute();
      expect(log.map((row) => [Number(row.seq), row.action, Number(row.at), row.after])).toEqual([
        [1, "account.view", 1_000, '{"session_id":7,"user_agent":"Firefox"}'],
        [2, "account.view", 3_000, '{"session_id":8,"user_agent":"Firefox"}'],
        [3, "account.view_end", 5_000, '{"session_id":7,"user_agent":"Firefox"}'],
      ]);
      expect(log[0]).toMatchObject({
        actor: "ops",
        channel: "console",
        address: "203.0.113.9",
        target: "account shop",
      });
      expect(Number(log[0]!.account_id)).toBe(shop);

      const clock = new ManualClock(new Date("2026-11-29T10:00:00Z"));
      await store.transaction((trx) =>
        recordChange(
          trx,
          { clock, actor: cliActor() },
          { action: "key.create", target: "key 1", accountId: shop, after: {} },
        ),
      );
      const report = await verifyAuditChain(store.db);
      expect(report.broken).toBeUndefined();
      expect(report.entries).toBe(4);
    } finally {
      await store.close();
      await empty.drop();
    }
  });
});
