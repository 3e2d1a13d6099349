// Accounts' usernames and statuses by id, for the lists and answers that show whose a row is.
import type { Db } from "../../base/store/store.js";

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

/** The statuses of the accounts with these ids that exist. */
export async function accountStatuses(db: Db, accountIds: readonly number[]) {
  return db.selectFrom("accounts").select(["id", "status"]).where("id", "in", accountIds).execute();
}
