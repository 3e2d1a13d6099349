// Contact groups: named lists of an account's mobile numbers, which a bulk send can target.
// Another account's group reads as unknown everywhere, exactly like an id that does not exist.
// A group made or deleted is in the audit log (contact_group.create, .delete), in its transaction.

import type { SelectQueryBuilder } from "kysely";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { refuseNul } from "../../base/core/text-checks.js";
import { pathId } from "../../base/http/query-params.js";
import { pagedRows } from "../../base/store/paging.js";
import type { ContactGroupRow, Database } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";

export const MAX_GROUP_NAME = 100;
export const MAX_GROUP_DESCRIPTION = 500;
/** PostgreSQL text cannot hold U+0000. */

export type GroupWithCount = ContactGroupRow & { contacts: number };

function isId(value: number): boolean {
  return Number.isSafeInteger(value) && value > 0;
}

export function groupNotFound(id: string | number): GatewayError {
  return new GatewayError("not_found", `No contact group with id "${id}" in this account.`);
}

/** A group id from a path; one that cannot be an id is unknown (404), like an absent one. */
export function parseGroupId(raw: string): number {
  const id = pathId(raw);
  if (id === undefined) throw groupNotFound(raw);
  return id;
}

/** True when the group exists and belongs to the account (what a send to `group_id` checks first). */
export async function groupExists(db: Db, accountId: number, groupId: number): Promise<boolean> {
  if (!isId(groupId)) return false;
  const row = await db
    .selectFrom("contact_groups")
    .select("id")
    .where("id", "=", groupId)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The groups of `groups` (contact_groups, filtered) with the number of contacts in each. */
function withContactCount<O>(groups: SelectQueryBuilder<Database, "contact_groups", O>) {
  return groups.selectAll("contact_groups").select((eb) =>
    eb
      .selectFrom("contacts")
      .select((inner) => inner.fn.countAll<number>().as("n"))
      .whereRef("contacts.group_id", "=", "contact_groups.id")
      .as("contacts"),
  );
}

function counted(row: ContactGroupRow & { contacts: number | string | null }): GroupWithCount {
  return { ...row, contacts: Number(row.contacts ?? 0) };
}

/** The account's groups, oldest first, with the number of contacts in each. */
export async function listGroups(
  db: Db,
  accountId: number,
  options: { page: number; perPage: number },
): Promise<{ rows: GroupWithCount[]; total: number }> {
  const query = db.selectFrom("contact_groups").where("contact_groups.account_id", "=", accountId);
  const { rows, total } = await pagedRows(query, (q) => withContactCount(q).orderBy("contact_groups.id"), options);
  return { rows: rows.map(counted), total };
}

/** The audit log's name for a group: its id (a name can be used again once the group is gone). */
export const groupTarget = (id: number) => `contact group ${id}`;

/** Creates a group with its audit entry; a name the account already uses is a conflict (409), whatever its contacts. */
export async function createGroup(
  store: Store,
  who: Audited,
  accountId: number,
  input: { name: string; description?: string | null | undefined },
): Promise<GroupWithCount> {
  const name = input.name.trim();
  refuseNul(name, "A group name", "name");
  if (name.length < 1 || name.length > MAX_GROUP_NAME) {
    throw new GatewayError("invalid_request", `A group name is 1 to ${MAX_GROUP_NAME} characters, not blank.`, {
      field: "name",
    });
  }
  const description = input.description?.trim() || null;
  refuseNul(description, "A group description", "description");
  if (description !== null && description.length > MAX_GROUP_DESCRIPTION) {
    throw new GatewayError("invalid_request", `A group description is at most ${MAX_GROUP_DESCRIPTION} characters.`, {
      field: "description",
    });
  }
  const now = who.clock.now().getTime();
  const row = await store.transaction(async (trx) => {
    // ON CONFLICT instead of a look-up first: two requests racing for one name get one group and one 409.
    const row = await trx
      .insertInto("contact_groups")
      .values({ account_id: accountId, name, description, created_at: now, updated_at: now })
      .onConflict((oc) => oc.columns(["account_id", "name"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!row) {
      throw new GatewayError("conflict", `The account already has a group named "${name}".`, { field: "name" });
    }
    await recordChange(trx, who, {
      action: "contact_group.create",
      target: groupTarget(row.id),
      accountId,
      after: { name, description },
    });
    return row;
  });
  return { ...row, contacts: 0 };
}

/**
 * Deletes a group and its contacts in one transaction with its audit entry; answers the group and
 * how many contacts went with it, or undefined when the account has no such group.
 */
export async function deleteGroup(
  store: Store,
  who: Audited,
  accountId: number,
  groupId: number,
): Promise<{ group: ContactGroupRow; contacts: number } | undefined> {
  if (!isId(groupId)) return undefined;
  return store.transaction(async (trx) => {
    // Locks the row (PostgreSQL), so an upload to this group waits and then finds it gone.
    const group = await trx
      .updateTable("contact_groups")
      .set({ updated_at: who.clock.now().getTime() })
      .where("id", "=", groupId)
      .where("account_id", "=", accountId)
      .returningAll()
      .executeTakeFirst();
    if (!group) return undefined;
    // The foreign key cascades too; deleting them first gives the exact count.
    const contacts = await trx.deleteFrom("contacts").where("group_id", "=", groupId).executeTakeFirst();
    await trx.deleteFrom("contact_groups").where("id", "=", groupId).execute();
    const deleted = Number(contacts.numDeletedRows);
    await recordChange(trx, who, {
      action: "contact_group.delete",
      target: groupTarget(groupId),
      accountId,
      before: { name: group.name, description: group.description, contacts: deleted },
    });
    return { group, contacts: deleted };
  });
}

export function describeGroup(row: GroupWithCount) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    contacts: row.contacts,
    created_at: isoUtc(new Date(row.created_at)),
    updated_at: isoUtc(new Date(row.updated_at)),
  };
}
