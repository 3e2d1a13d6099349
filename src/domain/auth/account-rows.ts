// The account's row as auth reads it with a credential. accounts/ owns the table and sits above
// auth/, so app/ hands its select of these columns in (accounts/ accountCredentials); auth joins
// it to the credential's own row (an API key, a console session) or filters it by username, and
// the database runs it as one statement, as if auth named the table.
import type { SelectQueryBuilder } from "kysely";
import type { AccountRole, AccountStatus, Database, Db } from "../../base/store/schema.js";

export interface AccountCredentials {
  account_id: number;
  username: string;
  role: AccountRole;
  status: AccountStatus;
  time_zone: string;
  password_hash: string;
  /** The login state auth's lock policy keeps on the account's row (login-locks.ts). */
  failed_logins: number;
  locked_until: number | null;
  address_locks_until: number | null;
  /** Where password logins of the legacy, XML and email families may come from (comma-separated); null: anywhere. */
  password_allowed_ips: string | null;
  /** The account's parent (a reseller), whose users' keys for it act with their role (decision 0143). */
  parent_id: number | null;
  /**
   * The first status other than active up the account's parents, or null (decision 0148): a blocked
   * or inactive reseller stops its sub-accounts and theirs as its own status stops it.
   */
  parent_status: AccountStatus | null;
}

/** Every account as a select of `AccountCredentials`, without filter or order: a part of auth's statements. */
export type AccountCredentialRows = (db: Db) => SelectQueryBuilder<Database, keyof Database, AccountCredentials>;
