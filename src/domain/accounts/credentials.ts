// What auth/ reads of an account with a credential (auth/account-rows.ts): a select of every
// account's principal columns, password hash and login state, which app/ hands to auth/.
import type { AccountCredentialRows } from "../auth/index.js";

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
    ]);
