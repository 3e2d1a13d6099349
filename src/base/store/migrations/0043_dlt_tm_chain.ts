// The telemarketer chain of a DLT entity (issue 40, item 2): `tm_chain` holds the declared
// telemarketer IDs in order, comma-separated, the operator's own TM ID last; null when none is
// declared (docs/decisions/0119-dlt-telemarketer-chain.md).
import type { Kysely } from "kysely";

export function dltTmChain() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable("dlt_entities").addColumn("tm_chain", "text").execute();
    },
  };
}
