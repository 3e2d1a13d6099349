// Issue 41's follow-ups: the pumping guard's alert has a state, so it is cleared once when its
// prefix's block ends or the operator allows the prefix (`verify_prefixes.alert_raised_at`,
// docs/decisions/0130); and fallback chains are pruned after MESSAGE_RETENTION_DAYS as their
// messages are, the oldest completed first (`send_chains_by_completion`).
import type { Kysely } from "kysely";

export function prefixAlertsChainPruning() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("verify_prefixes").addColumn("alert_raised_at", "bigint").execute();
      await db.schema
        .createIndex("send_chains_by_completion")
        .on("send_chains")
        .columns(["status", "created_at"])
        .execute();
    },
  };
}
