// What an account reads of its reseller tree: its own messages and refusals, and those of every
// account below it (its sub-accounts and theirs, at any depth). The account a list names with
// `?subaccount=`, and one message of the tree by its queue id. An account outside the tree (a
// parent, a sibling, another reseller's customer) is answered exactly as an unknown one, 404, so a
// name or id of another tree tells nothing.
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { levelsBelow, usernamesOf } from "../accounts/index.js";

// The account `?subaccount=` names is the accounts' rule (accounts/resellers.ts), which the
// sub-accounts list reads too; the message and refusal reads take it from here.
export { readableAccount, type TreeAccount } from "../accounts/index.js";

/**
 * A message of the reader's tree by its queue id (as stored), with the sub-account's username when
 * it is not the reader's own; undefined for an unknown id or another tree's message.
 */
export async function treeMessage(
  db: Db,
  readerId: number,
  queueId: string,
): Promise<{ row: MessageRow; subaccount?: string } | undefined> {
  const row = await db.selectFrom("messages").selectAll().where("id", "=", queueId).executeTakeFirst();
  if (!row) return undefined;
  const levels = await levelsBelow(db, readerId, row.account_id);
  if (levels === undefined) return undefined;
  if (levels === 0) return { row };
  return { row, subaccount: (await usernamesOf(db, [row.account_id])).get(row.account_id) ?? "" };
}
