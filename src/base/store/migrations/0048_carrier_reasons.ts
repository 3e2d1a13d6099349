// Operators' error codes (issue 40, item 5): the stable reason a carrier's failure code maps to
// (delivery/carriers/error-codes.ts) and that code, on a message failed by its carrier; both null
// when the code maps to no reason (docs/decisions/0123-operators-error-codes.md).
import type { Kysely } from "kysely";

export function carrierReasons() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("messages").addColumn("error_reason", "text").execute();
      await db.schema.alterTable("messages").addColumn("carrier_code", "text").execute();
      // When a carrier failure was refunded by REFUND_CARRIER_REASONS (margin counts it refunded).
      await db.schema.alterTable("messages").addColumn("carrier_refunded_at", "bigint").execute();
    },
  };
}
