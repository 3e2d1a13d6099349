// The table shapes, as Kysely sees them. Times are epoch milliseconds (UTC); credits are
// integer milli-credits (see core/credits.ts); booleans are 0/1 on both engines.
import type { Generated, Insertable, Selectable } from "kysely";

export type AccountRole = "customer" | "operator";
export type AccountStatus = "active" | "inactive" | "blocked";

export interface AccountsTable {
  id: Generated<number>;
  username: string;
  password_hash: string;
  role: AccountRole;
  status: AccountStatus;
  time_zone: string;
  flood_limit: number;
  get_api_enabled: number;
  international_enabled: number;
  failed_logins: number;
  locked_until: number | null;
  created_at: number;
  updated_at: number;
}

export interface WalletsTable {
  account_id: number;
  wallet: string;
  balance: number;
}

export type LedgerKind = "topup" | "debit" | "refund" | "transfer_in" | "transfer_out" | "adjustment";

export interface LedgerEntriesTable {
  id: Generated<number>;
  account_id: number;
  wallet: string;
  /** Signed milli-credits: debits are negative. */
  amount: number;
  balance_after: number;
  kind: LedgerKind;
  /** What the entry is for (a message id, a transfer id); unique per account+kind so nothing is charged twice. */
  ref: string | null;
  note: string | null;
  created_at: number;
}

export interface ApiKeysTable {
  id: Generated<number>;
  account_id: number;
  /** First characters of the key, shown in listings so a person can tell keys apart. */
  prefix: string;
  key_hash: string;
  name: string | null;
  /** Requests per minute; 0 means unlimited. */
  rate_limit: number;
  created_at: number;
  revoked_at: number | null;
}

export type ApprovalStatus = "pending" | "approved" | "rejected";

export interface SenderIdsTable {
  id: Generated<number>;
  account_id: number;
  sender: string;
  status: ApprovalStatus;
  note: string | null;
  created_at: number;
  updated_at: number;
}

export interface SettingsTable {
  key: string;
  value: string;
}

export interface Database {
  accounts: AccountsTable;
  wallets: WalletsTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  sender_ids: SenderIdsTable;
  settings: SettingsTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LedgerEntry = Selectable<LedgerEntriesTable>;
export type SenderIdRow = Selectable<SenderIdsTable>;
