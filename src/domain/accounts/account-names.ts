// Accounts' usernames and statuses by id, for the lists and answers that show whose a row is.
import type { AccountStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { statusOf } from "../auth/index.js";
import { parentStatus } from "./credentials.js";

/** The username of the account with that id; throws (Kysely's NoResultError) when there is none. */
export async function accountUsername(db: Db, accountId: number): Promise<string> {
  const account = await db
    .selectFrom("accounts")
    .select("username")
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
  return account.username;
}

/** The usernames of the accounts with these ids that exist. */
export async function accountUsernames(db: Db, accountIds: readonly number[]): Promise<Map<number, string>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.selectFrom("accounts").select(["id", "username"]).where("id", "in", accountIds).execute();
  return new Map(rows.map((row) => [Number(row.id), row.username]));
}

/**
 * The statuses the accounts with these ids that exist act with (decision 0148): each one's own, or,
 * that being active, the first other status up its parents (a blocked reseller stops its tree).
 */
export async function accountStatuses(
  db: Db,
  accountIds: readonly number[],
): Promise<Array<{ id: number; status: AccountStatus }>> {
  const rows = await db
    .selectFrom("accounts")
    .select(["id", "status", parentStatus.as("parent_status")])
    .where("id", "in", accountIds)
    .execute();
  return rows.map((row) => ({ id: row.id, status: statusOf(row).status }));
}
