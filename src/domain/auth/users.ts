// An account's users (issue 42, item 1; decision 0126): each a login, an optional email and
// name, a role, and a password, or an invitation whose link sets it. The account's own username
// and password stay its owner login; a user's login is never that username. Every change is in
// the audit log, and a change of role or password, or a removal, ends the user's sessions. The
// keys a user made act with their role as it is now, and are revoked with them (decision 0140).
import { createHash, randomBytes } from "node:crypto";
import type { Selectable } from "kysely";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { usernameKey } from "../../base/core/usernames.js";
import type { AccountRole, AccountUsersTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import { keyHashesMadeBy, revokeKeysMadeBy } from "./api-keys.js";
import { apiKeyRevoked } from "./auth-changes.js";
import { hashPassword, refusePasswordControls } from "./passwords.js";
import type { Principal } from "./principal.js";
import { endSessions } from "./session-lists.js";
import { ACCOUNT_USER_ROLES, STAFF_ROLES, type UserRole } from "./user-roles.js";

const LOGIN = /^[a-z0-9][a-z0-9._@-]{0,63}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** How long an invitation link works. */
export const INVITATION_DAYS = 7;
export const PASSWORD_MIN_LENGTH = 8;

/** The account a user belongs to, as the user functions need it. */
export interface UsersAccount {
  id: number;
  username: string;
  role: AccountRole;
}

export interface UserInput {
  login: string;
  user_role: string;
  email?: string | undefined;
  password?: string | undefined;
  display_name?: string | undefined;
}

export type UserChanges = Partial<Omit<UserInput, "login">>;

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** The login as stored: lower-cased, checked. */
export function loginKey(login: string): string {
  const key = usernameKey(login.trim());
  if (!LOGIN.test(key)) {
    throw new GatewayError(
      "invalid_request",
      "login must be 1-64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit.",
      { field: "login" },
    );
  }
  return key;
}

function checkRole(account: UsersAccount, role: string): UserRole {
  const allowed: readonly string[] = account.role === "operator" ? STAFF_ROLES : ACCOUNT_USER_ROLES;
  if (!allowed.includes(role)) {
    throw new GatewayError("invalid_request", `user_role must be one of ${allowed.join(", ")}.`, {
      field: "user_role",
    });
  }
  return role as UserRole;
}

/** Refuses a user's password shorter than PASSWORD_MIN_LENGTH or holding a control character, naming `field`. */
export function checkPassword(password: string, field = "password"): void {
  refusePasswordControls(password, field);
  if (password.length < PASSWORD_MIN_LENGTH) {
    throw new GatewayError("invalid_request", `${field} must be at least ${PASSWORD_MIN_LENGTH} characters.`, {
      field,
    });
  }
}

function checkEmail(email: string | undefined): string | null {
  const value = email?.trim();
  if (!value) return null;
  if (!EMAIL.test(value) || value.length > 254) {
    throw new GatewayError("invalid_request", "email is not an email address.", { field: "email" });
  }
  return value;
}

/** A user as answers show it: never the password or the invitation's hash. */
export function describeUser(row: Selectable<AccountUsersTable>) {
  return {
    login: row.login,
    email: row.email,
    display_name: row.display_name,
    user_role: row.user_role,
    status: row.password_hash === null ? ("invited" as const) : ("active" as const),
    invitation_expires_at: row.invite_expires_at === null ? null : isoUtc(new Date(row.invite_expires_at)),
    created_at: isoUtc(new Date(row.created_at)),
  };
}

export async function listUsers(db: Db, accountId: number) {
  const rows = await db
    .selectFrom("account_users")
    .selectAll()
    .where("account_id", "=", accountId)
    .orderBy("login")
    .execute();
  return rows.map(describeUser);
}

/** The user of the account with this login, or undefined. */
export async function findUser(db: Db, accountId: number, login: string) {
  return db
    .selectFrom("account_users")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("login", "=", usernameKey(login.trim()))
    .executeTakeFirst();
}

/**
 * Whose console sessions a login's are: null for the account's own login (its username), the
 * user's id for one of its users, undefined for no such login.
 */
export async function sessionUserOf(
  db: Db,
  account: { accountId: number; username: string },
  login: string,
): Promise<number | null | undefined> {
  if (usernameKey(login.trim()) === usernameKey(account.username)) return null;
  return (await findUser(db, account.accountId, login))?.id;
}

async function requireUser(db: Db, accountId: number, login: string) {
  const row = await findUser(db, accountId, login);
  if (!row) throw new GatewayError("not_found", `No user "${login.slice(0, 64)}" in this account.`);
  return row;
}

/**
 * Refuses an `admin` (or any user but an owner) acting on an owner login's factor: the account's
 * own login (its username) or a user whose role is `owner`. An API key acts as the owner.
 */
export async function guardOwnerLogin(db: Db, principal: Principal, login: string): Promise<void> {
  const role = principal.userRole ?? "owner";
  if (role === "owner") return;
  const isOwner =
    usernameKey(login) === usernameKey(principal.username) ||
    (await findUser(db, principal.accountId, login))?.user_role === "owner";
  guardOwnership(role, isOwner ? "owner" : role);
}

/** Only an owner (or an operator admin) touches an owner: `admin` is all but ownership. */
export function guardOwnership(actorRole: UserRole, ...roles: string[]): void {
  if (actorRole !== "owner" && roles.includes("owner")) {
    throw new GatewayError("insufficient_role", "Only the account's owner makes, changes or removes an owner.");
  }
}

/**
 * Adds a user: with a password, ready to sign in; without one, an invitation whose token
 * (returned once, kept only as its SHA-256) sets the password within INVITATION_DAYS.
 */
export async function createUser(
  store: Store,
  who: Audited & { role: UserRole },
  account: UsersAccount,
  input: UserInput,
) {
  const login = loginKey(input.login);
  if (login === usernameKey(account.username)) {
    throw new GatewayError("conflict", `"${login}" is the account's own login (its owner).`, { field: "login" });
  }
  const role = checkRole(account, input.user_role);
  guardOwnership(who.role, role);
  const email = checkEmail(input.email);
  if (input.password !== undefined) checkPassword(input.password);
  const now = who.clock.now().getTime();
  const token = input.password === undefined ? randomBytes(32).toString("base64url") : undefined;
  const expiresAt = token ? now + INVITATION_DAYS * 86_400_000 : null;
  const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
  const row = await store.transaction(async (trx) => {
    if (await findUser(trx, account.id, login)) {
      throw new GatewayError("conflict", `The account already has a user "${login}".`, { field: "login" });
    }
    const created = await trx
      .insertInto("account_users")
      .values({
        account_id: account.id,
        login,
        email,
        display_name: input.display_name?.trim() || null,
        password_hash: passwordHash,
        user_role: role,
        invite_hash: token ? sha256(token) : null,
        invite_expires_at: expiresAt,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordChange(trx, who, {
      action: token ? "user.invite" : "user.create",
      target: `user ${login} of ${account.username}`,
      accountId: account.id,
      after: { login, user_role: role, email, display_name: created.display_name },
    });
    return created;
  });
  return { user: describeUser(row), ...(token && expiresAt ? { invitation: { token, expiresAt } } : {}) };
}

/** Changes a user's role, email, name or password; a new role or password ends their sessions. */
export async function updateUser(
  store: Store,
  who: Audited & { role: UserRole },
  account: UsersAccount,
  login: string,
  changes: UserChanges,
) {
  const role = changes.user_role === undefined ? undefined : checkRole(account, changes.user_role);
  const email = changes.email === undefined ? undefined : checkEmail(changes.email);
  if (changes.password !== undefined) checkPassword(changes.password);
  const passwordHash = changes.password === undefined ? undefined : await hashPassword(changes.password);
  const { user, keyHashes } = await store.transaction(async (trx) => {
    const before = await requireUser(trx, account.id, login);
    guardOwnership(who.role, before.user_role, role ?? before.user_role);
    const set = {
      ...(role !== undefined ? { user_role: role } : {}),
      ...(email !== undefined ? { email } : {}),
      ...(changes.display_name !== undefined ? { display_name: changes.display_name.trim() || null } : {}),
      ...(passwordHash !== undefined
        ? { password_hash: passwordHash, invite_hash: null, invite_expires_at: null }
        : {}),
      updated_at: who.clock.now().getTime(),
    };
    const after = await trx
      .updateTable("account_users")
      .set(set)
      .where("id", "=", before.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    const roleChanged = role !== undefined && role !== before.user_role;
    const ends = roleChanged || passwordHash !== undefined;
    const ended = ends ? await endAllSessions(trx, before.id) : 0;
    const shown = (row: typeof before) => ({
      user_role: row.user_role,
      email: row.email,
      display_name: row.display_name,
      ...(passwordHash !== undefined ? { password: row === before ? "old" : "changed" } : {}),
    });
    await recordChange(trx, who, {
      action: roleChanged ? "user.role_change" : "user.update",
      target: `user ${before.login} of ${account.username}`,
      accountId: account.id,
      before: shown(before),
      after: { ...shown(after), ...(ends ? { sessions_ended: ended } : {}) },
    });
    // Their keys act with the new role from their next request: every process drops them.
    const keyHashes = roleChanged ? await keyHashesMadeBy(trx, before.id) : [];
    return { user: describeUser(after), keyHashes };
  });
  for (const hash of keyHashes) await apiKeyRevoked(store, hash);
  return user;
}

/**
 * Ends every console session of one of the account's users: an owner's only by an owner, as
 * every other action aimed at an owner (an admin could otherwise keep the owners signed out).
 */
export async function endUserSessions(
  store: Store,
  who: Audited & { role: UserRole },
  account: UsersAccount,
  login: string,
): Promise<number> {
  const user = await findUser(store.db, account.id, login);
  if (!user) throw new GatewayError("not_found", `No user "${login.slice(0, 64)}" in this account.`);
  guardOwnership(who.role, user.user_role);
  return endSessions(store, who, { accountId: account.id, userId: user.id, login: user.login }, {});
}

/** Ends every console session of a user (a staff user's views of accounts too); answers how many. */
async function endAllSessions(trx: Db, userId: number): Promise<number> {
  const ended = await trx.deleteFrom("console_sessions").where("user_id", "=", userId).executeTakeFirst();
  return Number(ended.numDeletedRows);
}

/** Removes a user, ends their sessions and revokes the keys they made. */
export async function deleteUser(
  store: Store,
  who: Audited & { role: UserRole },
  account: UsersAccount,
  login: string,
): Promise<void> {
  const revoked = await store.transaction(async (trx) => {
    const before = await requireUser(trx, account.id, login);
    guardOwnership(who.role, before.user_role);
    const ended = await endAllSessions(trx, before.id);
    const revoked = await revokeKeysMadeBy(trx, who.clock, before.id);
    await trx.deleteFrom("account_users").where("id", "=", before.id).execute();
    await recordChange(trx, who, {
      action: "user.delete",
      target: `user ${before.login} of ${account.username}`,
      accountId: account.id,
      before: {
        login: before.login,
        user_role: before.user_role,
        email: before.email,
        display_name: before.display_name,
      },
      after: { keys_revoked: revoked.map((key) => key.id), sessions_ended: ended },
    });
    return revoked;
  });
  for (const key of revoked) await apiKeyRevoked(store, key.key_hash);
}

/** The user an invitation's token names while it is pending and unexpired, with the account id. */
export async function pendingInvitation(db: Db, token: string, now: number) {
  const row = await db
    .selectFrom("account_users")
    .selectAll()
    .where("invite_hash", "=", sha256(token))
    .executeTakeFirst();
  if (!row || row.invite_expires_at === null || row.invite_expires_at <= now) {
    throw new GatewayError("not_found", "This invitation link is unknown, used or expired: ask for a new one.");
  }
  return row;
}

/** Accepts an invitation: sets the user's password, and the link works no more. */
export async function acceptInvitation(
  store: Store,
  who: Omit<Audited, "actor"> & { actor: (row: Selectable<AccountUsersTable>) => Audited["actor"] },
  token: string,
  password: string,
) {
  checkPassword(password);
  const passwordHash = await hashPassword(password);
  const now = who.clock.now().getTime();
  return store.transaction(async (trx) => {
    const row = await pendingInvitation(trx, token, now);
    await trx
      .updateTable("account_users")
      .set({ password_hash: passwordHash, invite_hash: null, invite_expires_at: null, updated_at: now })
      .where("id", "=", row.id)
      .execute();
    // The actor is the user, signed in to the account: its username names the account.
    const actor = who.actor(row);
    const user = { login: row.login, user_role: row.user_role };
    await recordChange(
      trx,
      { clock: who.clock, actor },
      {
        action: "user.invite_accept",
        target: `user ${row.login} of ${actor.username}`,
        accountId: row.account_id,
        before: {
          ...user,
          status: "invited",
          invitation_expires_at: isoUtc(new Date(Number(row.invite_expires_at))),
        },
        after: { ...user, status: "active", password: "set" },
      },
    );
    return row;
  });
}

/**
 * The account's principal as `login` (one of its users, decision 0126; the owner login is the
 * account's own), or undefined when that user is gone: what a sign-in's second step opens.
 */
export async function asUserLogin(db: Db, principal: Principal, login: string): Promise<Principal | undefined> {
  if (usernameKey(login) === usernameKey(principal.username)) return principal;
  const user = await findUser(db, principal.accountId, login);
  if (!user) return undefined;
  return { ...principal, login: user.login, userRole: user.user_role as UserRole, userId: user.id };
}
