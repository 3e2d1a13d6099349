// What auth/ reads of an account with a credential (auth/account-rows.ts): a select of every
// account's principal columns, password hash and login state, which app/ hands to auth/. With
// them `parent_status`: the first status other than active up the account's parents (decision
// 0148), which stops a blocked reseller's whole tree wherever its own status would stop it.
import { sql } from "kysely";
import type { AccountStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type AccountCredentialRows, accountsCredentialsChanged } from "../auth/index.js";

/** Deeper than any tree of resellers: a guard against a cycle of parent_id, which nothing writes. */
export const MAX_DEPTH = 64;

/**
 * The nearest parent's (or parent's parent's…) status that is not active, or null: one statement
 * with the account's row, correlated to it (SQLite and PostgreSQL both run a recursive WITH in a
 * scalar subquery), each step one primary-key read.
 */
export const parentStatus = sql<AccountStatus | null>`(
  with recursive up(id, parent_id, status, depth) as (
    select p.id, p.parent_id, p.status, 1 from accounts p where p.id = accounts.parent_id
    union all
    select p.id, p.parent_id, p.status, up.depth + 1 from accounts p join up on p.id = up.parent_id
    where up.depth < ${sql.lit(MAX_DEPTH)}
  )
  select status from up where status <> 'active' order by depth limit 1
)`;

export const accountCredentials: AccountCredentialRows = (db) =>
  db
    .selectFrom("accounts")
    .select([
      "id as account_id",
      "username",
      "role",
      "status",
      "time_zone",
      "password_hash",
      "failed_logins",
      "locked_until",
      "address_locks_until",
      "password_allowed_ips",
      "parent_id",
      parentStatus.as("parent_status"),
    ]);

/**
 * Tells every process's authenticators to forget the credentials of the account's sub-accounts
 * and theirs, which act with its status: called when it changes (accounts.ts updateAccount).
 */
export async function subAccountsCredentialsChanged(store: Store, accountId: number): Promise<void> {
  const below = await accountIdsBelow(store.db, accountId);
  if (below.length > 0) await accountsCredentialsChanged(store, below);
}

/** The ids of the account's sub-accounts and theirs, at any depth. */
export async function accountIdsBelow(db: Db, accountId: number): Promise<number[]> {
  const { rows } = await sql<{ id: number }>`
    with recursive down(id, depth) as (
      select id, 1 from accounts where parent_id = ${accountId}
      union all
      select a.id, down.depth + 1 from accounts a join down on a.parent_id = down.id
      where down.depth < ${sql.lit(MAX_DEPTH)}
    )
    select distinct id from down`.execute(db);
  return rows.map((row) => Number(row.id));
}
