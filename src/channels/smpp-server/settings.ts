// An account's SMPP server access, set by the operator: the SMPP password (SMPP 3.4 carries at
// most 8 characters; stored as an argon2 hash like every password) and the limits of its
// binds. No row, no binds.
import { addressInRanges, normalizeAddressRanges } from "../../base/core/address-ranges.js";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { SmppAccountsTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { accountCredentialsChanged, hashPassword } from "../../domain/auth/index.js";

export const DEFAULT_MAX_BINDS = 4;
/** Signal sent after an account gained or lost SMPP access (smpp_accounts row added or removed). */
export const SMPP_ACCOUNTS_CHANGED = "smpp_accounts_changed";
export const DEFAULT_SUBMITS_PER_SECOND = 100;

export interface SmppSettingsChanges {
  /** A new SMPP password (1 to 8 printable ASCII characters); null removes SMPP access. */
  password?: string | null;
  /** Binds open at once; 0 = no limit. */
  maxBinds?: number;
  /** Submits per second over all binds; 0 = no limit. */
  submitsPerSecond?: number;
  /** Addresses or CIDR ranges binds may come from; null or empty = anywhere. */
  allowedIps?: string[] | null;
}

export interface SmppSettingsView {
  enabled: boolean;
  max_binds: number | null;
  submits_per_second: number | null;
  allowed_ips: string[] | null;
}

export function hasSmppChanges(changes: SmppSettingsChanges): boolean {
  return Object.values(changes).some((value) => value !== undefined);
}

function assertSmppPassword(password: string): void {
  if (!/^[\x21-\x7e]{1,8}$/.test(password)) {
    throw new GatewayError(
      "invalid_request",
      "The SMPP password must be 1 to 8 printable ASCII characters without spaces (SMPP 3.4 carries at most 8).",
    );
  }
}

function assertLimit(value: number, name: string, max: number): void {
  if (!Number.isInteger(value) || value < 0 || value > max) {
    throw new GatewayError("invalid_request", `${name} must be a whole number from 0 (no limit) to ${max}.`);
  }
}

/** Addresses and ranges as given (`203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`), checked (base/core/address-ranges.ts). */
export function normalizeAllowedIps(list: readonly string[]): string[] {
  const checked = normalizeAddressRanges(list);
  if (checked.invalid !== undefined) throw new GatewayError("invalid_request", checked.invalid);
  return checked.ranges;
}

/** Whether `address` (as the socket reports it, IPv4-mapped or not) is among `allowed`. */
export function addressAllowed(allowed: string | null, address: string): boolean {
  if (allowed === null || allowed === "") return true;
  return addressInRanges(allowed.split(","), address);
}

export async function smppSettingsOf(db: Db, accountId: number): Promise<SmppAccountsTable | undefined> {
  return db.selectFrom("smpp_accounts").selectAll().where("account_id", "=", accountId).executeTakeFirst();
}

export function describeSmppSettings(row: SmppAccountsTable | undefined): SmppSettingsView {
  if (!row) return { enabled: false, max_binds: null, submits_per_second: null, allowed_ips: null };
  return {
    enabled: true,
    max_binds: row.max_binds,
    submits_per_second: row.submits_per_second,
    allowed_ips: row.allowed_ips ? row.allowed_ips.split(",") : null,
  };
}

/** Applies the operator's changes; the first SMPP password gives the account SMPP access. */
export async function setSmppSettings(
  store: Store,
  clock: Clock,
  username: string,
  changes: SmppSettingsChanges,
  /** What the caller writes in the same transaction (the audit entry), given the settings before and after. */
  also?: (trx: Db, accountId: number, before: SmppSettingsView, after: SmppSettingsView) => Promise<void>,
): Promise<SmppSettingsView> {
  const account = await requireAccount(store.db, username);
  if (typeof changes.password === "string") assertSmppPassword(changes.password);
  if (changes.maxBinds !== undefined) assertLimit(changes.maxBinds, "max binds", 1000);
  if (changes.submitsPerSecond !== undefined) assertLimit(changes.submitsPerSecond, "submits per second", 100_000);
  const passwordHash = typeof changes.password === "string" ? await hashPassword(changes.password) : undefined;
  // Each write below runs in a transaction with `also`, given what it changed.
  const write = (fn: (trx: Db) => Promise<unknown>) =>
    store.transaction(async (trx) => {
      const before = describeSmppSettings(await smppSettingsOf(trx, account.id));
      await fn(trx);
      const after = describeSmppSettings(await smppSettingsOf(trx, account.id));
      await also?.(trx, account.id, before, {
        ...after,
        ...(passwordHash !== undefined ? { password_changed: true } : {}),
      });
    });
  const allowed =
    changes.allowedIps === undefined
      ? undefined
      : changes.allowedIps === null
        ? null
        : normalizeAllowedIps(changes.allowedIps).join(",") || null;
  const now = clock.now().getTime();
  if (changes.password === null) {
    await write((trx) => trx.deleteFrom("smpp_accounts").where("account_id", "=", account.id).execute());
    await accountCredentialsChanged(store, account.id);
    await store.signals.notify(SMPP_ACCOUNTS_CHANGED, String(account.id));
    return describeSmppSettings(undefined);
  }
  const existing = await smppSettingsOf(store.db, account.id);
  if (!existing) {
    if (passwordHash === undefined) {
      throw new GatewayError(
        "invalid_request",
        `The account ${account.username} has no SMPP password yet: set one (--smpp-password, smpp_password) with the limits.`,
      );
    }
    await write((trx) =>
      trx
        .insertInto("smpp_accounts")
        .values({
          account_id: account.id,
          password_hash: passwordHash,
          max_binds: changes.maxBinds ?? DEFAULT_MAX_BINDS,
          submits_per_second: changes.submitsPerSecond ?? DEFAULT_SUBMITS_PER_SECOND,
          allowed_ips: allowed ?? null,
          created_at: now,
          updated_at: now,
        })
        // Another call gave the account its first password since the read above (two saves at
        // once): this one's changes are applied over it, as when the row had been there.
        .onConflict((oc) =>
          oc.column("account_id").doUpdateSet({
            updated_at: now,
            password_hash: passwordHash,
            ...limitChanges(changes, allowed),
          }),
        )
        .execute(),
    );
    await store.signals.notify(SMPP_ACCOUNTS_CHANGED, String(account.id));
  } else {
    await write((trx) =>
      trx
        .updateTable("smpp_accounts")
        .set({
          updated_at: now,
          ...(passwordHash !== undefined ? { password_hash: passwordHash } : {}),
          ...limitChanges(changes, allowed),
        })
        .where("account_id", "=", account.id)
        .execute(),
    );
  }
  if (passwordHash !== undefined) await accountCredentialsChanged(store, account.id);
  return describeSmppSettings(await smppSettingsOf(store.db, account.id));
}

/** The limits and addresses a change sets, as columns (those it leaves out are kept). */
function limitChanges(changes: SmppSettingsChanges, allowed: string | null | undefined) {
  return {
    ...(changes.maxBinds !== undefined ? { max_binds: changes.maxBinds } : {}),
    ...(changes.submitsPerSecond !== undefined ? { submits_per_second: changes.submitsPerSecond } : {}),
    ...(allowed !== undefined ? { allowed_ips: allowed } : {}),
  };
}
