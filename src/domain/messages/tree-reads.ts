// What an account reads of its reseller tree: its own messages and refusals, and those of every
// account below it (its sub-accounts and theirs, at any depth). The account a list names with
// `?subaccount=`, and one message of the tree by its queue id. An account outside the tree (a
// parent, a sibling, another reseller's customer) is answered exactly as an unknown one, 404, so a
// name or id of another tree tells nothing.
import { GatewayError } from "../../base/core/errors.js";
import type { MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { findAccountByUsername, levelsBelow, usernamesOf } from "../accounts/index.js";

/** An account of the reader's tree: its id and how many levels below the reader (0: the reader's own). */
export interface TreeAccount {
  id: number;
  levels: number;
}

/**
 * The account a list shows: the reader's own, or with `?subaccount=` an account below it at any
 * depth (any other name, the reader's own, its parent's or a sibling's included, is a 404).
 */
export async function readableAccount(db: Db, readerId: number, subaccount: string | undefined): Promise<TreeAccount> {
  const name = subaccount?.trim();
  if (!name) return { id: readerId, levels: 0 };
  if (name.includes("\u0000")) {
    throw new GatewayError("invalid_request", 'Query parameter "subaccount" holds a NUL character.', {
      field: "subaccount",
    });
  }
  const account = await findAccountByUsername(db, name);
  const levels = account ? await levelsBelow(db, readerId, account.id) : undefined;
  if (!account || !levels) throw new GatewayError("not_found", `No sub-account named "${name}" under this account.`);
  return { id: account.id, levels };
}

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
