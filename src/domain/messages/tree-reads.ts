// What an account reads of its reseller tree: its own messages, and those of every account below it
// (its sub-accounts and theirs, at any depth), one message by its queue id. A message of an account
// outside the tree (a parent, a sibling, another reseller's customer) is answered exactly as an
// unknown one, 404, so an id of another tree tells nothing. The account a list names with
// `?subaccount=` is accounts/' readableAccount, the same rule.
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { placeBelow, type TreePlace } from "../accounts/index.js";

/**
 * A message of the reader's tree by its queue id (as stored), with its account's place below the
 * reader and, when it is not the reader's own, the sub-account's username; undefined for an unknown
 * id or another tree's message.
 */
export async function treeMessage(
  db: Db,
  readerId: number,
  queueId: string,
): Promise<{ row: MessageRow; place: TreePlace; subaccount?: string } | undefined> {
  const row = await db.selectFrom("messages").selectAll().where("id", "=", queueId).executeTakeFirst();
  if (!row) return undefined;
  const place = await placeBelow(db, readerId, row.account_id);
  if (place === undefined) return undefined;
  if (place.levels === 0) return { row, place };
  return { row, place, subaccount: place.username ?? "" };
}
