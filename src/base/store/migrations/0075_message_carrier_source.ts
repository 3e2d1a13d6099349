// messages.carrier_source: the source address a carrier got for a message when it is not the
// message's sender: the generic PROMOTIONAL sent as the operator's PROMOTIONAL_HEADER of the
// moment (carriers/promotional-header.ts), so the operator's view says afterwards what went out,
// not what today's setting would send (docs/decisions/0187-the-header-a-carrier-got-is-kept.md).
// Written by the update that records the submit (or the carrier's refusal of it): no write more.
// Nullable, no default and no index: adding it rewrites no table on either engine. Rows sent
// before this migration have null (not recorded).
import type { Kysely } from "kysely";

export function messageCarrierSource() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("messages").addColumn("carrier_source", "text").execute();
    },
  };
}
