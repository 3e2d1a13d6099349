// A login's second factor for the console (issue 42, item 2): a TOTP secret (totp.ts) set up in
// two steps (started, then confirmed by a first code), ten single-use recovery codes, and the
// check of a code at sign-in, whose time step is kept so that a code is never accepted twice.
// A login is (account, login): the account's username for its owner, a user's login otherwise
// (users are issue 42, item 1), compared as usernames are (lower case). Enrolment, turning the
// factor off, an owner's or operator's reset and each recovery code used are in the audit log.
import { type ExpressionBuilder, sql } from "kysely";
import { GatewayError } from "../../base/core/errors.js";
import { usernameKey } from "../../base/core/usernames.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { endLoginSessions } from "./session-lists.js";
import { isRecoveryCode, newRecoveryCodes, newTotpSecret, recoveryCodeHash, totpStepOf, totpUri } from "./totp.js";
import { mayStopRequiringTwoFactor, type UserRole } from "./user-roles.js";
import { sessionUserOf } from "./users.js";

/** What a sign-in whose password passed does next: give a code, or set up a factor first. */
export type SecondStep = "totp" | "enrol";

/** Who signs in: the account, and its login (the owner's is the account's username). */
export interface LoginIdentity {
  accountId: number;
  login: string;
}

/** The owner's login of an account: its username. */
export function ownerLogin(accountId: number, username: string): LoginIdentity {
  return { accountId, login: usernameKey(username) };
}

/** The login a principal signed in as: one of the account's users (decision 0126), else the owner's. */
export function loginIdentityOf(principal: { accountId: number; username: string; login?: string }): LoginIdentity {
  return { accountId: principal.accountId, login: usernameKey(principal.login ?? principal.username) };
}

export interface TwoFactorState {
  /** A factor is set up and asked at sign-in. */
  enabled: boolean;
  /** When its enrolment was confirmed (ISO); null when none. */
  enabled_at: string | null;
  /** Recovery codes not used yet. */
  recovery_codes_left: number;
}

/**
 * The login's console sessions, for a change of its factor that ends them: whose they are (null
 * for the account's own login, else the user's id) and the one the change came with, which stays.
 */
export interface LoginSessions {
  userId: number | null;
  keep?: number | undefined;
}

const forLogin = (identity: LoginIdentity) => ({ account_id: identity.accountId, login: usernameKey(identity.login) });

/** WHERE the row is the login's (every table of this file has account_id and login). */
function isLogin(identity: LoginIdentity) {
  const key = forLogin(identity);
  // biome-ignore lint/suspicious/noExplicitAny: any of this file's tables; the caller's builder is typed
  return (eb: ExpressionBuilder<any, any>) =>
    eb.and([eb("account_id", "=", key.account_id), eb("login", "=", key.login)]);
}

export async function twoFactorState(db: Db, identity: LoginIdentity): Promise<TwoFactorState> {
  const row = await db.selectFrom("two_factors").select("confirmed_at").where(isLogin(identity)).executeTakeFirst();
  const enabledAt = row?.confirmed_at ?? null;
  let left = 0;
  if (enabledAt !== null) {
    const counted = await db
      .selectFrom("two_factor_recovery_codes")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where(isLogin(identity))
      .where("used_at", "is", null)
      .executeTakeFirstOrThrow();
    left = Number(counted.n);
  }
  return {
    enabled: enabledAt !== null,
    enabled_at: enabledAt === null ? null : new Date(Number(enabledAt)).toISOString(),
    recovery_codes_left: left,
  };
}

/** Whether the login has a confirmed factor (asked at sign-in). */
export async function hasTwoFactor(db: Db, identity: LoginIdentity): Promise<boolean> {
  return (await twoFactorState(db, identity)).enabled;
}

/**
 * Starts an enrolment: a new secret, not asked at sign-in until a code confirms it. A login whose
 * factor is on must turn it off first (`conflict`); an enrolment not confirmed is replaced.
 * Answers the secret and the `otpauth://` URL for `label` (e.g. `acme` or `acme:alice`).
 */
export async function startEnrolment(store: Store, now: number, identity: LoginIdentity, label: string) {
  const secret = newTotpSecret();
  return store.transaction(async (trx) => {
    const existing = await trx
      .selectFrom("two_factors")
      .select("confirmed_at")
      .where(isLogin(identity))
      .executeTakeFirst();
    if (existing?.confirmed_at != null)
      throw new GatewayError("conflict", "Two-factor sign-in is already on for this login: turn it off first.");
    await trx
      .insertInto("two_factors")
      .values({ ...forLogin(identity), secret, confirmed_at: null, last_step: null, created_at: now })
      .onConflict((oc) =>
        oc
          .columns(["account_id", "login"])
          .doUpdateSet({ secret, confirmed_at: null, last_step: null, created_at: now }),
      )
      .execute();
    return { secret, otpauth_url: totpUri(secret, label) };
  });
}

/**
 * Confirms an enrolment with a code of its secret (`wrong_code` otherwise): the factor is on from
 * now, and its ten recovery codes are answered, the only time they are shown. Every other console
 * session of the login ends (`sessions`; the one it came with stays): each was opened without the
 * factor, and one may be a stranger's the login is turning the factor on against.
 */
export async function confirmEnrolment(
  store: Store,
  who: Audited,
  identity: LoginIdentity,
  code: string,
  sessions: LoginSessions,
): Promise<{ recovery_codes: string[] }> {
  const now = who.clock.now().getTime();
  const codes = newRecoveryCodes();
  await store.transaction(async (trx) => {
    const row = await trx
      .selectFrom("two_factors")
      .select(["secret", "confirmed_at"])
      .where(isLogin(identity))
      .executeTakeFirst();
    if (!row) throw new GatewayError("not_found", "No enrolment started for this login: start one first.");
    if (row.confirmed_at !== null)
      throw new GatewayError("conflict", "Two-factor sign-in is already on for this login.");
    const step = totpStepOf(row.secret, code.trim(), now, null);
    if (step === undefined) throw new GatewayError("wrong_code");
    await trx.updateTable("two_factors").set({ confirmed_at: now, last_step: step }).where(isLogin(identity)).execute();
    await trx.deleteFrom("two_factor_recovery_codes").where(isLogin(identity)).execute();
    await trx
      .insertInto("two_factor_recovery_codes")
      .values(codes.map((c) => ({ ...forLogin(identity), code_hash: recoveryCodeHash(c), used_at: null })))
      .execute();
    const ended = await endLoginSessions(
      trx,
      { accountId: identity.accountId, userId: sessions.userId },
      sessions.keep,
    );
    await recordChange(trx, who, {
      action: "two_factor.enrol",
      target: `login ${forLogin(identity).login}`,
      accountId: identity.accountId,
      after: { login: forLogin(identity).login, recovery_codes: codes.length, sessions_ended: ended },
    });
  });
  return { recovery_codes: codes };
}

/**
 * Whether `code` is a good second factor for the login now, and spends it: a TOTP code of a time
 * step after the last one accepted (the step is kept, in one conditional write, so that two
 * processes never both take the same code), or a recovery code not used yet (marked used, and
 * recorded in the audit log). A login without a confirmed factor has no good code.
 */
export async function spendSecondFactor(store: Store, who: Audited, identity: LoginIdentity, code: string) {
  const now = who.clock.now().getTime();
  const given = code.trim();
  const row = await store.db
    .selectFrom("two_factors")
    .select(["secret", "confirmed_at", "last_step"])
    .where(isLogin(identity))
    .executeTakeFirst();
  if (!row || row.confirmed_at === null) return false;
  if (!isRecoveryCode(given)) {
    const step = totpStepOf(row.secret, given, now, row.last_step === null ? null : Number(row.last_step));
    if (step === undefined) return false;
    const taken = await store.db
      .updateTable("two_factors")
      .set({ last_step: step })
      .where(isLogin(identity))
      .where(sql<boolean>`(last_step is null or last_step < ${step})`)
      .executeTakeFirst();
    return Number(taken.numUpdatedRows) === 1;
  }
  return store.transaction(async (trx) => {
    const used = await trx
      .updateTable("two_factor_recovery_codes")
      .set({ used_at: now })
      .where(isLogin(identity))
      .where("code_hash", "=", recoveryCodeHash(given))
      .where("used_at", "is", null)
      .executeTakeFirst();
    if (Number(used.numUpdatedRows) !== 1) return false;
    const left = await trx
      .selectFrom("two_factor_recovery_codes")
      .select((eb) => eb.fn.countAll().as("n"))
      .where(isLogin(identity))
      .where("used_at", "is", null)
      .executeTakeFirstOrThrow();
    await recordChange(trx, who, {
      action: "two_factor.recovery_code_use",
      target: `login ${forLogin(identity).login}`,
      accountId: identity.accountId,
      // How many codes the login had and has (the codes themselves are never written).
      before: { recovery_codes_left: Number(left.n) + 1 },
      after: { recovery_codes_left: Number(left.n) },
    });
    return true;
  });
}

/**
 * Removes the login's factor and its recovery codes: `two_factor.disable` by the login itself
 * (with a code, checked by the caller), `two_factor.reset` by an owner or an operator. A reset
 * also ends the login's console sessions (`sessions`; the caller's own stays): it is asked for
 * a lost or stolen phone, which is often signed in to the console too. Answers whether there
 * was one (an enrolment not confirmed counts, unrecorded, and ends nothing).
 */
export async function removeTwoFactor(
  store: Store,
  who: Audited,
  identity: LoginIdentity,
  action: "two_factor.disable" | "two_factor.reset",
  sessions?: LoginSessions,
): Promise<boolean> {
  return store.transaction(async (trx) => {
    const removed = await trx
      .deleteFrom("two_factors")
      .where(isLogin(identity))
      .returning("confirmed_at")
      .executeTakeFirst();
    await trx.deleteFrom("two_factor_recovery_codes").where(isLogin(identity)).execute();
    if (removed?.confirmed_at == null) return removed !== undefined;
    const ended = sessions
      ? await endLoginSessions(trx, { accountId: identity.accountId, userId: sessions.userId }, sessions.keep)
      : undefined;
    await recordChange(trx, who, {
      action,
      target: `login ${forLogin(identity).login}`,
      accountId: identity.accountId,
      before: { login: forLogin(identity).login, enabled_at: new Date(Number(removed.confirmed_at)).toISOString() },
      ...(ended === undefined ? {} : { after: { sessions_ended: ended } }),
    });
    return true;
  });
}

/**
 * An owner's or the operator's reset of a login's factor (a lost phone): removed, audited as
 * `two_factor.reset`, and the login's console sessions ended but `keep` (the caller's own).
 * False when the login has no factor.
 */
export async function resetTwoFactor(
  store: Store,
  who: Audited,
  identity: LoginIdentity,
  account: { accountId: number; username: string },
  keep: number | undefined,
): Promise<boolean> {
  const userId = await sessionUserOf(store.db, account, identity.login);
  const sessions = userId === undefined ? undefined : { userId, keep };
  return removeTwoFactor(store, who, identity, "two_factor.reset", sessions);
}

/** Whether the account requires a factor of every login: its own setting, or (operators) the gateway's. */
export async function twoFactorRequired(
  db: Db,
  account: { accountId: number; role: string },
  operatorsRequired: boolean,
): Promise<{ required: boolean; by: "account" | "operator_policy" | null; account_setting: boolean }> {
  const row = await db
    .selectFrom("two_factor_policies")
    .select("required")
    .where("account_id", "=", account.accountId)
    .executeTakeFirst();
  const own = row?.required === 1;
  const byOperators = account.role === "operator" && operatorsRequired;
  return {
    required: own || byOperators,
    by: own ? "account" : byOperators ? "operator_policy" : null,
    account_setting: own,
  };
}

/**
 * What a login whose password passed must do before its session: `totp` (it has a factor),
 * `enrol` (none, but its account or the operator requires one), or nothing.
 */
export async function secondStepOf(
  db: Db,
  identity: LoginIdentity,
  role: string,
  operatorsRequired: boolean,
): Promise<SecondStep | undefined> {
  if (await hasTwoFactor(db, identity)) return "totp";
  const policy = await twoFactorRequired(db, { accountId: identity.accountId, role }, operatorsRequired);
  return policy.required ? "enrol" : undefined;
}

/**
 * Sets the account's "require two-factor for every login", recorded (`two_factor.policy`). Only
 * an owner (`mayStopRequiringTwoFactor`) turns it off: an admin's or any other role's `false`
 * while it is on is 403 `insufficient_role` and changes nothing (decision 0182); while it is off
 * it is no change. `who.role` is the caller's role (an API key's, its maker's; the owner's else).
 */
export async function setTwoFactorRequired(
  store: Store,
  who: Audited & { role: UserRole },
  accountId: number,
  required: boolean,
) {
  const now = who.clock.now().getTime();
  const weakens = !required && !mayStopRequiringTwoFactor(who.role);
  await store.transaction(async (trx) => {
    const before = await trx
      .selectFrom("two_factor_policies")
      .select("required")
      .where("account_id", "=", accountId)
      .executeTakeFirst();
    const wasOn = before?.required === 1;
    if (weakens) {
      // Nothing is written: a concurrent owner's "on" is never overwritten by an admin's "off".
      if (!wasOn) return;
      throw new GatewayError(
        "insufficient_role",
        `Only the account's owner stops requiring two-factor sign-in; the role ${who.role} may require it, not turn it off.`,
        { field: "required", user_role: who.role },
      );
    }
    const value = required ? 1 : 0;
    await trx
      .insertInto("two_factor_policies")
      .values({ account_id: accountId, required: value, updated_at: now })
      .onConflict((oc) => oc.column("account_id").doUpdateSet({ required: value, updated_at: now }))
      .execute();
    if ((before?.required ?? 0) === value) return;
    await recordChange(trx, who, {
      action: "two_factor.policy",
      target: "two-factor policy",
      accountId,
      before: { required: wasOn },
      after: { required },
    });
  });
}
