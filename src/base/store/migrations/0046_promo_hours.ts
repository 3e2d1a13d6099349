// Promotional hours (issue 40, item 4): an account's own daily window for promotional SMS
// (`HH:MM-HH:MM`), null for the operator's PROMO_HOURS (docs/decisions/0117-promotional-hours.md).
import type { Kysely } from "kysely";

export function promoHours() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("accounts").addColumn("promo_hours", "text").execute();
    },
  };
}
