// What an approval was before a decision changes it (the audit log's `before`): the owner and
// status of a sender ID, template, DLT entity or header by its id, read in the deciding transaction.
import type { Db } from "../../base/store/store.js";

export type ApprovalTable = "sender_ids" | "templates" | "dlt_entities" | "dlt_headers" | "dlt_links";

export async function approvalBefore(
  db: Db,
  table: ApprovalTable,
  id: number,
): Promise<{ account_id: number; status: string } | undefined> {
  switch (table) {
    case "sender_ids":
      return db.selectFrom("sender_ids").select(["account_id", "status"]).where("id", "=", id).executeTakeFirst();
    case "templates":
      return db.selectFrom("templates").select(["account_id", "status"]).where("id", "=", id).executeTakeFirst();
    case "dlt_entities":
      return db.selectFrom("dlt_entities").select(["account_id", "status"]).where("id", "=", id).executeTakeFirst();
    case "dlt_headers":
      return db.selectFrom("dlt_headers").select(["account_id", "status"]).where("id", "=", id).executeTakeFirst();
    case "dlt_links":
      return db.selectFrom("dlt_links").select(["account_id", "status"]).where("id", "=", id).executeTakeFirst();
  }
}
