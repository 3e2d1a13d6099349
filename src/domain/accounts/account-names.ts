// Accounts' usernames and statuses by id, for the lists and answers that show whose a row is.
import { sql } from "kysely";
import type { AccountStatus } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { statusOf } from "../auth/index.js";
import { MAX_DEPTH, parentStatus } from "./credentials.js";

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

/**
 * The ids of every account that acts not active (decision 0148): those whose own status is not
 * active and every account below one, at any depth. Few rows: the dispatcher holds their messages
 * (decision 0155) and reads them again only when an account's status may have changed.
 */
export async function inactiveAccountIds(db: Db): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    with recursive down(id, depth) as (
      select id, 0 from accounts where status <> 'active'
      union all
      select a.id, down.depth + 1 from accounts a join down on a.parent_id = down.id
      where down.depth < ${sql.lit(MAX_DEPTH)}
    )
    select distinct id from down`.execute(db);
  return rows.map((row) => Number(row.id));
}

/** The operator accounts' ids (one, or a few). */
export async function operatorAccountIds(db: Db): Promise<number[]> {
  const rows = await db.selectFrom("accounts").select("id").where("role", "=", "operator").execute();
  return rows.map((row) => row.id);
}
