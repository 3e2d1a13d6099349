// When a queued message began waiting for a connector of its route to be up (`connectors_down`,
// dispatch/dispatcher.ts): its hold is bounded from then, not from its acceptance, which may be
// days before a scheduled message is due. Null for every other message; adding a nullable
// column without a default rewrites nothing on either engine.
import type { Kysely } from "kysely";
import type { Engine } from "../engine.js";

export function messagesHeldSince(_engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("messages").addColumn("held_since", "bigint").execute();
    },
  };
}
