// Issue 41's follow-ups: the pumping guard's alert has a state, so it is cleared once when its
// prefix's block ends or the operator allows the prefix (`verify_prefixes.alert_raised_at`,
// docs/decisions/0130); the guard's count of a prefix's last hour reads one index only (status
// added to the prefix index: bench/verify.mjs measured the row look-ups as most of its cost); and
// fallback chains are pruned after MESSAGE_RETENTION_DAYS as their messages are, the oldest
// completed first (`send_chains_by_completion`).
import type { Kysely } from "kysely";

export function prefixAlertsChainPruning() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("verify_prefixes").addColumn("alert_raised_at", "bigint").execute();
      await db.schema
        .createIndex("verifications_by_prefix_status")
        .on("verifications")
        .columns(["account_id", "prefix", "created_at", "status"])
        .execute();
      await db.schema.dropIndex("verifications_by_prefix").execute();
      await db.schema
        .createIndex("send_chains_by_completion")
        .on("send_chains")
        .columns(["status", "created_at"])
        .execute();
    },
  };
}
