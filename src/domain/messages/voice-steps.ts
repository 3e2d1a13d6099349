// The voice channel's own steps on its messages: a call's status kept in the message's meta, written
// by compare-and-set so that two callbacks for one call cannot undo each other. The calls a
// simulator lost are report-transitions.ts' awaitingReport.
import type { Db } from "../../base/store/store.js";

/** The messages of a connector's call, by the call's id upstream, with their meta. */
export async function callMessages(db: Db, connector: string, callSid: string) {
  return db
    .selectFrom("messages")
    .select(["id", "meta", "status"])
    .where("upstream_id", "=", callSid)
    .where("connector", "=", connector)
    .execute();
}

/** Replaces a message's meta if it is still `previous`; false when another writer changed it first. */
export async function replaceMessageMeta(db: Db, id: string, previous: string | null, next: string): Promise<boolean> {
  const query = db.updateTable("messages").set({ meta: next }).where("id", "=", id);
  const result = await (previous === null
    ? query.where("meta", "is", null)
    : query.where("meta", "=", previous)
  ).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
