// An API key as the principal it stands for: its row read with its account's and its maker's in
// one statement, its scopes and address allow-list (key-scopes.ts) set on it. A key made by one of
// the account's users acts with that user's role as it is now (decision 0140): its scopes narrowed
// to the role's, and the role checked by each route as a session's is. So does a key made by a
// user of the account's parent for its sub-account (decision 0143). The Authenticator caches
// the answer; a change of the user's role or their removal drops it (users.ts).
import type { Db } from "../../base/store/store.js";
import type { AccountCredentialRows } from "./account-rows.js";
import { allowListMatcher, roleScopeBits, scopeBits } from "./key-scopes.js";
import { type Principal, statusOf } from "./principal.js";
import type { UserRole } from "./user-roles.js";

/** The principal of the key whose hash is `keyHash`; undefined when no such key is in force. */
export async function keyPrincipal(
  db: Db,
  accounts: AccountCredentialRows,
  keyHash: string,
): Promise<Principal | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .innerJoin(accounts(db).as("a"), "a.account_id", "api_keys.account_id")
    .leftJoin("account_users as u", (join) =>
      join
        .onRef("u.id", "=", "api_keys.created_by_user")
        // A user of the key's account, or of its parent (a key it made for its sub-account).
        .on((eb) =>
          eb.or([
            eb("u.account_id", "=", eb.ref("api_keys.account_id")),
            eb("u.account_id", "=", eb.ref("a.parent_id")),
          ]),
        ),
    )
    .select([
      "api_keys.id as key_id",
      "api_keys.rate_limit",
      "api_keys.revoked_at",
      "api_keys.scopes",
      "api_keys.allowed_ips",
      "api_keys.created_by",
      "api_keys.created_by_user",
      "u.login as maker_login",
      "u.account_id as maker_account",
      "u.user_role as maker_role",
      "a.account_id",
      "a.username",
      "a.role",
      "a.status",
      "a.parent_status",
      "a.time_zone",
    ])
    .where("api_keys.key_hash", "=", keyHash)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;
  // Its maker is gone: the removal revoked it; this is the guard.
  if (row.created_by_user !== null && (row.maker_role === null || row.maker_login === null)) return undefined;

  const principal: Principal = {
    accountId: row.account_id,
    username: row.username,
    role: row.role,
    ...statusOf(row),
    timeZone: row.time_zone,
    keyId: row.key_id,
    rateLimit: row.rate_limit,
  };
  if (row.created_by !== null) principal.keyMadeBy = row.created_by;
  let scopes = scopeBits(row.scopes);
  if (row.created_by_user !== null && row.maker_role !== null && row.maker_login !== null) {
    const role = row.maker_role as UserRole;
    principal.userRole = role;
    if (row.maker_account === row.account_id) {
      principal.keyMaker = { login: row.maker_login, userId: row.created_by_user };
    } else {
      // The parent's user: named as its key was made, `<parent>/<login>`.
      const login = row.created_by ?? row.maker_login;
      principal.keyMaker = { login, userId: row.created_by_user, ofParent: true };
    }
    scopes = roleScopeBits(role, scopes);
  }
  if (scopes !== undefined) principal.scopes = scopes;
  const allowedFrom = allowListMatcher(row.allowed_ips);
  if (allowedFrom) {
    principal.allowedFrom = allowedFrom;
    principal.allowedBy = "key";
  }
  return principal;
}
