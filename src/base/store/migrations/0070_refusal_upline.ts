// A refusal an account above the refused one was short for (decision 0158): the words that name
// the short account and its wallet (`upline_reason`) and how far above it is (`upline_level`,
// 1: the parent), read only by the operator and by the short account's line; null otherwise.
import type { Kysely } from "kysely";

export function refusalUpline() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("refusals").addColumn("upline_reason", "text").execute();
      await db.schema.alterTable("refusals").addColumn("upline_level", "integer").execute();
    },
  };
}
