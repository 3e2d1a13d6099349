// The tables of auth/ (who is calling) and accounts/ (account holders, their money and approvals),
// as Kysely sees them; `Database` (schema.ts) extends this.
import type { Generated } from "kysely";

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
  /**
   * Password guesses checked against the account (failures, and checks running) within a lock
   * period of failed_logins_at; a check is reserved here before it runs (auth/login-locks.ts).
   */
  failed_logins: number;
  /** When the last guess counted in failed_logins was reserved; null: none yet. */
  failed_logins_at: Generated<number | null>;
  /** The whole account is locked (failures from many addresses); see auth/login-locks.ts. */
  locked_until: number | null;
  /** The latest lock of one of its source addresses (login_failures); null when none was ever set. */
  address_locks_until: Generated<number | null>;
  /** Transactional content must match an approved template (operator switch, on by default). */
  dlt_scrubbing: Generated<number>;
  /** How templates are matched: `strict` (whitespace as registered) or `lenient` (runs of it as one space); 0042. */
  dlt_matching: Generated<"strict" | "lenient">;
  promo_sender_enabled: Generated<number>;
  /** Route codes the account may use, comma-separated: T, P, PS, I. */
  routes: Generated<string>;
  /** The white-listed DLT entity a send naming none carries, when the account has several. */
  default_dlt_entity_id: Generated<string | null>;
  /** The account's price card; null: the built-in `default` (1 credit a unit). */
  price_card: Generated<string | null>;
  /** The reseller account above this one; null: an operator's direct customer (0036). */
  parent_id: Generated<number | null>;
  /** A sub-account without a card of its own pays its parent's price plus this, in hundredths of a per cent. */
  markup_bp: Generated<number | null>;
  /** The account's window for promotional SMS, `HH:MM-HH:MM`; null: the operator's PROMO_HOURS. */
  promo_hours: Generated<string | null>;
  /** Sends shorten their links unless they say otherwise (0047). */
  shorten_urls: Generated<number>;
  /** Addresses and CIDR ranges password logins (legacy, XML, email) may come from, comma-separated; null: anywhere (0049). */
  password_allowed_ips: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

/** Failed logins of one account from one source address, and that address's lock. */
export interface LoginFailuresTable {
  account_id: number;
  address: string;
  /** Failures in a row from this address since its last success or lock. */
  failures: number;
  locked_until: number | null;
  updated_at: number;
}

export interface WalletsTable {
  account_id: number;
  wallet: string;
  balance: number;
  /** Milli-credits held for sends waiting on a synchronous upstream (WhatsApp); spendable = balance - held. */
  held: Generated<number>;
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
  /** What the key may do, comma-separated (auth/key-scopes.ts); null: every scope of its account (0049). */
  scopes: Generated<string | null>;
  /** Addresses and CIDR ranges the key may be used from, comma-separated; null: anywhere (0049). */
  allowed_ips: Generated<string | null>;
  /** The login that made the key, for the listings; null: the operator, the CLI, or before 0056. */
  created_by: Generated<string | null>;
  /** The account_users id of its maker, whose role the key acts with; null: the owner login (0056). */
  created_by_user: Generated<number | null>;
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
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0057). */
  rejection_reason: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

export interface TemplatesTable {
  id: Generated<number>;
  account_id: number;
  name: string;
  content: string;
  dlt_template_id: string | null;
  entity_id: string | null;
  sender: string | null;
  status: ApprovalStatus;
  notes: string | null;
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0057). */
  rejection_reason: Generated<string | null>;
  created_at: number;
  updated_at: number;
}

export interface DltEntitiesTable {
  id: Generated<number>;
  account_id: number;
  entity_id: string;
  status: ApprovalStatus;
  /** The declared telemarketer IDs, comma-separated, the operator's own last; null: none (0043). */
  tm_chain: Generated<string | null>;
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
  created_at: number;
}

export interface DltHeadersTable {
  id: Generated<number>;
  account_id: number;
  header: string;
  status: ApprovalStatus;
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
  created_at: number;
}

/** An approved (or requested) link or callback number of a DLT entity (migration 0038). */
export interface DltLinksTable {
  id: Generated<number>;
  account_id: number;
  entity_id: string;
  kind: DltLinkKind;
  value: string;
  status: ApprovalStatus;
  /** The operator's reason when rejecting it, shown to the account; null otherwise (0059). */
  rejection_reason: Generated<string | null>;
  created_at: number;
}

export type DltLinkKind = "url" | "callback";

export interface DndNumbersTable {
  /** The 10-digit Indian mobile number as an integer. */
  number: number;
}

/** A console sign-in (auth/sessions.ts). */
export interface ConsoleSessionsTable {
  id: Generated<number>;
  /** SHA-256 of the cookie's token. */
  token_hash: string;
  account_id: number;
  /** Sent back by the console in X-CSRF-Token on every state-changing request. */
  csrf_token: string;
  /** SHA-256 of the account's password hash at sign-in: a password change ends the session. */
  credential_stamp: string;
  address: string;
  user_agent: string | null;
  created_at: number;
  last_seen_at: number;
  /** The latest the session may last, whatever its use. */
  expires_at: number;
  /** Set on an operator's read-only view of the account: the operator's account. */
  viewer_account_id: Generated<number | null>;
  /** The user signed in (account_users); null: the account's owner login (0050). */
  user_id: Generated<number | null>;
}

/** A user of an account (0050): its login, role and password, or a pending invitation. */
export interface AccountUsersTable {
  id: Generated<number>;
  account_id: number;
  /** Lower-cased; unique in the account, and never the account's username (the owner login). */
  login: string;
  email: string | null;
  display_name: string | null;
  /** argon2; null while the invitation is pending. */
  password_hash: string | null;
  user_role: string;
  /** SHA-256 of the invitation's token; null once accepted (or never invited). */
  invite_hash: string | null;
  invite_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

/** An operator's read-only view of an account's console: who, which account, when, from where. */
export interface AccountViewsTable {
  id: Generated<number>;
  viewer_account_id: number;
  account_id: number;
  session_id: number;
  address: string;
  user_agent: string | null;
  started_at: number;
  ended_at: number | null;
  /** The staff login that opened the view (the operator's username for its own login); null before 0056. */
  viewer_login: Generated<string | null>;
  /** That staff user's account_users id; null for the operator's own login. */
  viewer_user_id: Generated<number | null>;
}

/** A price card: its rows are in price_card_rows. */
export interface PriceCardsTable {
  name: string;
  created_at: number;
  updated_at: number;
  /** The generation of rows the card answers with; null: no card yet (first upload) or any more (0061). */
  generation: number | null;
}

/** One price of a card: milli-credits per SMS segment or voice unit, from effective_from (null: always). */
export interface PriceCardRowsTable {
  id: Generated<number>;
  card: string;
  channel: string;
  /** T, P, PS, I, V or *. */
  route: string;
  /** Digits with the country code, or * for every number. */
  prefix: string;
  price: number;
  effective_from: number | null;
  /** The upload the row belongs to; only its card's current generation is read (0061). */
  generation: Generated<number>;
  /** The row's place in its generation, from 0, by channel, prefix, route, effective_from (0067). */
  position: Generated<number>;
}

export interface AccountsTables {
  accounts: AccountsTable;
  login_failures: LoginFailuresTable;
  wallets: WalletsTable;
  ledger_entries: LedgerEntriesTable;
  api_keys: ApiKeysTable;
  sender_ids: SenderIdsTable;
  templates: TemplatesTable;
  dlt_entities: DltEntitiesTable;
  dlt_headers: DltHeadersTable;
  dlt_links: DltLinksTable;
  dnd_numbers: DndNumbersTable;
  console_sessions: ConsoleSessionsTable;
  account_users: AccountUsersTable;
  account_views: AccountViewsTable;
  price_cards: PriceCardsTable;
  price_card_rows: PriceCardRowsTable;
}
