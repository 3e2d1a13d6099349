// An API key as the principal it stands for: its row read with its account's in one statement,
// its scopes and address allow-list (key-scopes.ts) set on it. The Authenticator caches the answer.
import type { Db } from "../../base/store/store.js";
import type { AccountCredentialRows } from "./account-rows.js";
import { allowListMatcher, scopeBits } from "./key-scopes.js";
import type { Principal } from "./principal.js";

/** The principal of the key whose hash is `keyHash`; undefined when no such key is in force. */
export async function keyPrincipal(
  db: Db,
  accounts: AccountCredentialRows,
  keyHash: string,
): Promise<Principal | undefined> {
  const row = await db
    .selectFrom("api_keys")
    .innerJoin(accounts(db).as("a"), "a.account_id", "api_keys.account_id")
    .select([
      "api_keys.id as key_id",
      "api_keys.rate_limit",
      "api_keys.revoked_at",
      "api_keys.scopes",
      "api_keys.allowed_ips",
      "a.account_id",
      "a.username",
      "a.role",
      "a.status",
      "a.time_zone",
    ])
    .where("api_keys.key_hash", "=", keyHash)
    .executeTakeFirst();
  if (!row || row.revoked_at !== null) return undefined;

  const principal: Principal = {
    accountId: row.account_id,
    username: row.username,
    role: row.role,
    status: row.status,
    timeZone: row.time_zone,
    keyId: row.key_id,
    rateLimit: row.rate_limit,
  };
  const scopes = scopeBits(row.scopes);
  if (scopes !== undefined) principal.scopes = scopes;
  const allowedFrom = allowListMatcher(row.allowed_ips);
  if (allowedFrom) {
    principal.allowedFrom = allowedFrom;
    principal.allowedBy = "key";
  }
  return principal;
}
