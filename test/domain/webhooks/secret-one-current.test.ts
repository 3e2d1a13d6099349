// Migration 0078 on a database where concurrent first sends made an account two current signing
// secrets: all but the newest become rotated-out ones that sign for a day more, and from then on
// the database holds one current secret an account, while rotation (which expires the old one
// before it makes the new) goes on as before.
import { expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { openStore } from "../../../src/base/store/store.js";
import { rotateWebhookSecret, SECRET_GRACE_MS } from "../../../src/domain/webhooks/settings.js";
import { createEmptyDatabase, earlyAccountRow, migrateTo } from "../../helpers/empty-database.js";
import { describeEachEngine } from "../../helpers/engines.js";

const BEFORE = "0077_whatsapp_early_statuses";

describeEachEngine("migration 0078: one current webhook secret an account", (engine) => {
  it("expires the older of two current secrets after a day, then refuses a second current one", async () => {
    const empty = await createEmptyDatabase(engine);
    const store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
    try {
      await migrateTo(store, engine, BEFORE);
      const account = async (username: string) =>
        Number(
          (
            await store.db
              .insertInto("accounts")
              .values(earlyAccountRow(username))
              .returning("id")
              .executeTakeFirstOrThrow()
          ).id,
        );
      const [twice, once] = [await account("twice"), await account("once")];
      const secret = (accountId: number, name: string, expiresAt: number | null) => ({
        account_id: accountId,
        secret: `whsec_${name}`,
        created_at: 1_000,
        expires_at: expiresAt,
      });
      await store.db
        .insertInto("webhook_secrets")
        .values([
          secret(twice, "rotated", 5_000),
          secret(twice, "first", null),
          secret(twice, "second", null),
          secret(once, "only", null),
        ])
        .execute();

      const before = Date.now();
      await store.migrate();
      const after = Date.now();
      const rows = await store.db
        .selectFrom("webhook_secrets")
        .select(["account_id", "secret", "expires_at"])
        .orderBy("id")
        .execute();
      const expiry = Object.fromEntries(
        rows.map((row) => [row.secret, row.expires_at === null ? null : Number(row.expires_at)]),
      );
      expect(expiry.whsec_rotated).toBe(5_000);
      expect(expiry.whsec_second).toBeNull();
      expect(expiry.whsec_only).toBeNull();
      expect(expiry.whsec_first).toBeGreaterThanOrEqual(before + SECRET_GRACE_MS);
      expect(expiry.whsec_first).toBeLessThanOrEqual(after + SECRET_GRACE_MS);

      await expect(
        store.db
          .insertInto("webhook_secrets")
          .values(secret(once, "another", null))
          .execute(),
      ).rejects.toThrow(/unique/i);
      // A rotation expires the current secret before it makes the next: one current still.
      const next = await rotateWebhookSecret(store, systemClock, once);
      const current = await store.db
        .selectFrom("webhook_secrets")
        .select("secret")
        .where("account_id", "=", once)
        .where("expires_at", "is", null)
        .execute();
      expect(current.map((row) => row.secret)).toEqual([next]);
    } finally {
      await store.close();
      await empty.drop();
    }
  });
});
