// Accounts: who may send, with what limits. Creation funds the wallets through the ledger.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { isWallet, toMilli, WALLETS, type Wallet } from "../../base/core/credits.js";
import { type DailyWindow, promoHoursSetting } from "../../base/core/daily-window.js";
import { GatewayError } from "../../base/core/errors.js";
import { isTimeZone } from "../../base/core/time-zone-names.js";
import { USERNAME_MAX_LENGTH, usernameIs } from "../../base/core/usernames.js";
import { pagedRows } from "../../base/store/paging.js";
import type { Account, AccountRole, AccountStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { isUniqueViolation } from "../../base/store/unavailable.js";
import { accountCredentialsChanged, allowedIpsToStore, hashPassword, refusePasswordControls } from "../auth/index.js";
import { ACCOUNT_ROUTES, ACCOUNT_STATUSES, type AccountRoute } from "./account-fields.js";
import { subAccountsCredentialsChanged } from "./credentials.js";
import { DLT_CHANGED, dltMatchingMode, requireWhitelistedEntity } from "./dlt.js";
import { dltChanged } from "./dlt-version.js";
import { creditWallet } from "./ledger.js";

const USERNAME = new RegExp(`^[A-Za-z0-9][A-Za-z0-9_.@-]{2,${USERNAME_MAX_LENGTH - 1}}$`);

export { ACCOUNT_ROUTES, ACCOUNT_STATUSES, type AccountRoute };

export interface NewAccountInput {
  username: string;
  password: string;
  role?: AccountRole;
  /** Opening balances in credits, per wallet. */
  credits?: Partial<Record<Wallet, number>>;
  timeZone?: string;
  floodLimit?: number;
  /** SMS route codes (T, P, PS, I); T and P when left out. */
  routes?: readonly string[];
  /** Resellers (resellers.ts): the parent account, the sub-account's own card, its markup in hundredths of a per cent. */
  parentId?: number;
  priceCard?: string;
  markupBp?: number;
}

export function assertValidUsername(username: string): void {
  if (!USERNAME.test(username)) {
    throw new GatewayError(
      "invalid_request",
      "Username must be 3 to 64 characters: letters, digits, and _ . @ - (starting with a letter or digit).",
    );
  }
}

/** A refused value of an account's, naming its field as the API writes it. */
const refused = (message: string, field: string) => new GatewayError("invalid_request", message, { field });

export function assertValidPassword(password: string): void {
  if (password.length < 8 || password.length > 256)
    throw refused("Password must be 8 to 256 characters long.", "password");
  refusePasswordControls(password);
}

export function assertValidTimeZone(timeZone: string): void {
  if (!isTimeZone(timeZone)) {
    throw refused(`Unknown time zone "${timeZone}"; use an IANA name such as Asia/Kolkata.`, "time_zone");
  }
}

/** The largest daily flood limit: the column (and the day's counter) is a bigint read as a JavaScript number. */
export const MAX_FLOOD_LIMIT = Number.MAX_SAFE_INTEGER;

export function assertValidFloodLimit(floodLimit: number): void {
  if (!Number.isSafeInteger(floodLimit) || floodLimit < 0 || floodLimit > MAX_FLOOD_LIMIT) {
    throw refused("Flood limit must be a whole number, 0 for no limit.", "flood_limit");
  }
}

/** Opening balances in milli-credits, checked before anything is written. */
function openingBalances(credits: NewAccountInput["credits"] = {}): [Wallet, number][] {
  const opening: [Wallet, number][] = [];
  for (const [wallet, amount] of Object.entries(credits)) {
    if (!isWallet(wallet)) {
      throw refused(`Unknown wallet "${wallet}"; use ${WALLETS.join(", ")}.`, `credits.${wallet}`);
    }
    if (amount === undefined || amount === 0) continue;
    if (!(amount > 0)) throw refused(`Opening ${wallet} credits must be positive.`, `credits.${wallet}`);
    opening.push([wallet, toMilli(amount, `credits.${wallet}`)]);
  }
  return opening;
}

/**
 * Creates the account with its wallets and opening balances, then runs `andThen` (the rest of
 * an onboarding) in the same transaction: anything refused there leaves no account behind.
 */
export async function createAccount(
  store: Store,
  clock: Clock,
  input: NewAccountInput,
  andThen?: (trx: Db, account: Account) => Promise<void>,
): Promise<Account> {
  assertValidUsername(input.username);
  assertValidPassword(input.password);
  if (input.timeZone) assertValidTimeZone(input.timeZone);
  if (input.floodLimit !== undefined) assertValidFloodLimit(input.floodLimit);
  const routes = input.routes === undefined ? undefined : normalizeRoutes(input.routes).join(",");
  const opening = openingBalances(input.credits);
  const passwordHash = await hashPassword(input.password);
  const now = clock.now().getTime();
  // Names are unique case aside: `DEMO` beside `demo` would make every look-up ambiguous.
  const taken = () =>
    new GatewayError("conflict", `An account named "${input.username}" already exists (usernames ignore case).`);
  return store
    .transaction(async (trx) => {
      const existing = await trx
        .selectFrom("accounts")
        .select("id")
        .where(usernameIs(input.username))
        .executeTakeFirst();
      if (existing) throw taken();
      const account = await trx
        .insertInto("accounts")
        .values({
          username: input.username,
          password_hash: passwordHash,
          role: input.role ?? "customer",
          status: "active",
          time_zone: input.timeZone ?? "Asia/Kolkata",
          flood_limit: input.floodLimit ?? 0,
          get_api_enabled: 0,
          international_enabled: 0,
          failed_logins: 0,
          locked_until: null,
          ...(routes !== undefined ? { routes } : {}),
          parent_id: input.parentId ?? null,
          price_card: input.priceCard ?? null,
          markup_bp: input.markupBp ?? null,
          created_at: now,
          updated_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("wallets")
        .values(WALLETS.map((wallet) => ({ account_id: account.id, wallet, balance: 0 })))
        .execute();
      for (const [wallet, amount] of opening) {
        await creditWallet(trx, clock, {
          accountId: account.id,
          wallet,
          amount,
          kind: "topup",
          note: "opening balance",
        });
      }
      await andThen?.(trx, account);
      return account;
    })
    .catch((error: unknown) => {
      // Two creations of one name at once: the loser's check above saw nothing, the index did.
      throw isUniqueViolation(error) ? taken() : error;
    });
}

/** The account of that name, case aside (`DEMO` finds `demo`). */
export async function findAccountByUsername(db: Db, username: string): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where(usernameIs(username)).executeTakeFirst();
}

export async function requireAccount(db: Db, username: string): Promise<Account> {
  const account = await findAccountByUsername(db, username);
  if (!account) throw new GatewayError("not_found", `No account named "${username}".`);
  return account;
}

/** The usernames of these accounts, by id (the operator's lists name each row's account). */
export async function usernamesOf(db: Db, ids: readonly number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("accounts")
    .select(["id", "username"])
    .where("id", "in", [...new Set(ids)])
    .execute();
  return new Map(rows.map((row) => [row.id, row.username]));
}

export async function getAccount(db: Db, id: number): Promise<Account | undefined> {
  return db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
}

/** The account's switches that the SMS rules read on the send path; throws when there is no such account. */
export async function accountSendSwitches(db: Db, accountId: number) {
  return db
    .selectFrom("accounts")
    .select([
      "routes",
      "dlt_scrubbing",
      "dlt_matching",
      "promo_sender_enabled",
      "international_enabled",
      "flood_limit",
      "default_dlt_entity_id",
      "promo_hours",
      "shorten_urls",
    ])
    .where("id", "=", accountId)
    .executeTakeFirstOrThrow();
}

/** Whether the account may send to numbers outside India (off unless the operator turned it on). */
export async function internationalEnabled(db: Db, accountId: number): Promise<boolean> {
  const row = await db
    .selectFrom("accounts")
    .select("international_enabled")
    .where("id", "=", accountId)
    .executeTakeFirst();
  return Number(row?.international_enabled ?? 0) === 1;
}

/** The account's route codes as stored (comma-separated), or undefined when there is no such account. */
export async function storedAccountRoutes(db: Db, accountId: number): Promise<string | undefined> {
  const row = await db.selectFrom("accounts").select("routes").where("id", "=", accountId).executeTakeFirst();
  return row?.routes;
}

/** Whether any account exists (a fresh database has none). */
export async function hasAnyAccount(db: Db): Promise<boolean> {
  return (await db.selectFrom("accounts").select("id").limit(1).executeTakeFirst()) !== undefined;
}

/** Whether the account may send with GET /api/v2/sms/send (off unless the operator turned it on). */
export async function getApiEnabled(db: Db, accountId: number): Promise<boolean> {
  const account = await db
    .selectFrom("accounts")
    .select("get_api_enabled")
    .where("id", "=", accountId)
    .executeTakeFirst();
  return account?.get_api_enabled === 1;
}

export async function listAccounts(db: Db): Promise<Account[]> {
  return db.selectFrom("accounts").selectAll().orderBy("id").execute();
}

/** One page of the accounts, oldest first: those whose username contains `search` (any case), of one status. */
export async function searchAccounts(
  db: Db,
  options: { search?: string | undefined; status?: AccountStatus | undefined; page: number; perPage: number },
): Promise<{ rows: Account[]; total: number }> {
  let query = db.selectFrom("accounts");
  const search = options.search?.trim().toLowerCase();
  if (search) {
    const pattern = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where(sql<boolean>`lower(username) like ${pattern} escape '\\'`);
  }
  if (options.status) query = query.where("status", "=", options.status);
  return pagedRows(query, (q) => q.selectAll().orderBy("id"), options);
}

export interface AccountChanges {
  status?: AccountStatus;
  password?: string;
  timeZone?: string;
  floodLimit?: number;
  getApiEnabled?: boolean;
  internationalEnabled?: boolean;
  /** Transactional content must match an approved template. */
  dltScrubbing?: boolean;
  dltMatching?: string;
  /** May send promotional SMS with its own sender ID (route PS). */
  promoSenderEnabled?: boolean;
  /** SMS routes the account may use: a subset of T, P, PS, I. */
  routes?: string[];
  /** The DLT entity of sends that name none, among several white-listed; null clears it. */
  defaultDltEntityId?: string | null;
  /** The account's promotional hours, `HH:MM-HH:MM`; null: the operator's PROMO_HOURS. */
  promoHours?: string | null;
  /** The operator's PROMO_HOURS, which a changed promoHours must lie inside (one stored wider before it was checked may be sent back unchanged: the console's form sends every field). */
  promoHoursLimit?: DailyWindow;
  /** Sends shorten their links unless they say otherwise (`shorten_urls`). */
  shortenUrls?: boolean;
  /** Where password logins (legacy, XML, email) may come from: addresses, CIDR ranges; null: anywhere. */
  passwordAllowedIps?: string[] | null;
}

/** Route codes, checked, without repeats, in canonical order (T, P, PS, I). */
export function normalizeRoutes(routes: readonly string[]): AccountRoute[] {
  const wanted = new Set<string>();
  for (const route of routes) {
    const code = String(route).trim().toUpperCase();
    if (!(ACCOUNT_ROUTES as readonly string[]).includes(code)) {
      throw refused(`Unknown route "${route}"; routes are ${ACCOUNT_ROUTES.join(", ")}.`, "routes");
    }
    wanted.add(code);
  }
  if (wanted.size === 0) {
    throw refused("Give at least one route (T, P, PS, I); block the account to stop it sending.", "routes");
  }
  return ACCOUNT_ROUTES.filter((code) => wanted.has(code));
}

/** Parses `T,P,PS` as given on the command line. */
export function parseRouteList(text: string): AccountRoute[] {
  return normalizeRoutes(text.split(",").filter((part) => part.trim() !== ""));
}

/** The account's routes as stored (comma-separated). */
export function accountRoutes(account: Pick<Account, "routes">): AccountRoute[] {
  return ACCOUNT_ROUTES.filter((code) => account.routes.split(",").includes(code));
}

/** The changes of what accountSendSwitches reads (the send path's cached account rules). */
const SEND_SWITCHES: ReadonlyArray<keyof AccountChanges> = [
  ...(["routes", "floodLimit", "internationalEnabled", "dltScrubbing", "promoSenderEnabled"] as const),
  ...(["defaultDltEntityId", "dltMatching", "shortenUrls", "promoHours"] as const),
];

export async function updateAccount(
  store: Store,
  clock: Clock,
  username: string,
  changes: AccountChanges,
  /** What the caller writes in the same transaction (the audit entry), given the account before and after. */
  also?: (trx: Db, before: Account, after: Account) => Promise<void>,
): Promise<Account> {
  const account = await requireAccount(store.db, username);
  const set: Partial<Account> = { updated_at: clock.now().getTime() };
  if (changes.status !== undefined) {
    if (!ACCOUNT_STATUSES.includes(changes.status)) {
      throw refused("Status must be active, inactive or blocked.", "status");
    }
    set.status = changes.status;
  }
  if (changes.password !== undefined) {
    assertValidPassword(changes.password);
    set.password_hash = await hashPassword(changes.password);
  }
  if (changes.timeZone !== undefined) {
    assertValidTimeZone(changes.timeZone);
    set.time_zone = changes.timeZone;
  }
  if (changes.floodLimit !== undefined) {
    assertValidFloodLimit(changes.floodLimit);
    set.flood_limit = changes.floodLimit;
  }
  if (changes.getApiEnabled !== undefined) set.get_api_enabled = changes.getApiEnabled ? 1 : 0;
  if (changes.internationalEnabled !== undefined) set.international_enabled = changes.internationalEnabled ? 1 : 0;
  if (changes.dltScrubbing !== undefined) set.dlt_scrubbing = changes.dltScrubbing ? 1 : 0;
  if (changes.dltMatching !== undefined) set.dlt_matching = dltMatchingMode(changes.dltMatching);
  if (changes.promoSenderEnabled !== undefined) set.promo_sender_enabled = changes.promoSenderEnabled ? 1 : 0;
  if (changes.routes !== undefined) set.routes = normalizeRoutes(changes.routes).join(",");
  const promoLimit = changes.promoHours === account.promo_hours ? undefined : changes.promoHoursLimit;
  if (changes.promoHours !== undefined) set.promo_hours = promoHoursSetting(changes.promoHours, promoLimit);
  if (changes.shortenUrls !== undefined) set.shorten_urls = changes.shortenUrls ? 1 : 0;
  const allowedIps = changes.passwordAllowedIps;
  if (allowedIps !== undefined) set.password_allowed_ips = allowedIpsToStore(allowedIps, "password_allowed_ips");
  if (changes.defaultDltEntityId !== undefined) {
    set.default_dlt_entity_id =
      changes.defaultDltEntityId === null
        ? null
        : await requireWhitelistedEntity(store.db, account, changes.defaultDltEntityId);
  }
  const updated = await store.transaction(async (trx) => {
    const updated = await trx
      .updateTable("accounts")
      .set(set)
      .where("id", "=", account.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    await also?.(trx, account, updated);
    return updated;
  });
  await accountCredentialsChanged(store, account.id);
  // Its sub-accounts, at any depth, act with its status (decision 0148): their cached credentials drop too.
  if (updated.status !== account.status) await subAccountsCredentialsChanged(store, account.id);
  // Read on the send path through a cache (sms/account-rules.ts) that this drops in every process.
  const rulesChanged = SEND_SWITCHES.some((key) => changes[key] !== undefined);
  if (rulesChanged) await dltChanged(store, DLT_CHANGED, account.id);
  return updated;
}

/** The public view of an account (never the password hash). */
export function describeAccount(account: Account, balances?: Record<string, number>) {
  return {
    id: account.id,
    username: account.username,
    role: account.role,
    status: account.status,
    time_zone: account.time_zone,
    flood_limit: account.flood_limit,
    get_api_enabled: account.get_api_enabled === 1,
    international_enabled: account.international_enabled === 1,
    dlt_scrubbing: account.dlt_scrubbing === 1,
    dlt_matching: account.dlt_matching,
    promo_sender_enabled: account.promo_sender_enabled === 1,
    routes: accountRoutes(account),
    default_dlt_entity_id: account.default_dlt_entity_id,
    promo_hours: account.promo_hours,
    shorten_urls: account.shorten_urls === 1,
    password_allowed_ips: account.password_allowed_ips?.split(",") ?? null,
    locked_until: account.locked_until === null ? null : new Date(account.locked_until).toISOString(),
    created_at: new Date(account.created_at).toISOString(),
    ...(balances ? { balances } : {}),
  };
}
