// Who is calling, once their credentials are checked: the account, and the user signed in.
import { GatewayError } from "../../base/core/errors.js";
import type { AccountRole, AccountStatus } from "../../base/store/schema.js";
import type { AccountCredentials } from "./account-rows.js";
import type { CredentialLimits } from "./key-scopes.js";
import type { UserRole } from "./user-roles.js";

/**
 * Who made an API key: a login, and its account_users id (null for the owner login, the account's
 * own). `ofParent`: a user of the account's parent, who made it a key for its sub-account (decision
 * 0143); `login` is then `<parent>/<login>`, which has no password in this account.
 */
export interface KeyMaker {
  login: string;
  userId: number | null;
  ofParent?: boolean;
}

/** The calling account, what its credential may do (key-scopes.ts), and the user signed in. */
export interface Principal extends CredentialLimits {
  accountId: number;
  username: string;
  role: AccountRole;
  /**
   * The account's status as it acts (decision 0148): its own, or, its own being active, the first
   * status other than active up its parents; `statusOfParent` tells which.
   */
  status: AccountStatus;
  /** Set when `status` is a parent's (a reseller's, or one above it), not the account's own. */
  statusOfParent?: true;
  timeZone: string;
  /** Set when the caller used an API key. */
  keyId?: number;
  /** Requests per minute allowed for that key; 0 = unlimited. */
  rateLimit?: number;
  /**
   * The user who made that key (decision 0140), whose role is `userRole`; unset for a key of the
   * owner login, the operator or the CLI, which acts as the owner.
   */
  keyMaker?: KeyMaker;
  /**
   * The login the key records as its maker (`api_keys.created_by`, as its listings show it), the
   * audit log's `actor_user` for what the key does (decision 0174); unset for a key that records
   * none (made before migration 0056, or by the operator or the CLI).
   */
  keyMadeBy?: string;
  /** Set when the caller used a console session (auth/sessions.ts). */
  sessionId?: number;
  /**
   * The user signed in (a console session): their login (the username for the owner login)
   * and role. Unset for an API key and a password login, which act as the owner login, but for
   * the role of a key a user made (`keyMaker`).
   */
  login?: string;
  userRole?: UserRole;
  /** account_users' id; unset for the owner login. */
  userId?: number;
}

/**
 * The login a principal stands for, whose password and console sessions are its own: the user
 * signed in, the user who made its key (decision 0140), else the owner login (`userId` null).
 * Undefined for a key a parent's user made for a sub-account (decision 0143): no login here.
 */
export function loginOf(p: Principal): { login: string; userId: number | null } | undefined {
  if (p.keyMaker?.ofParent) return undefined;
  if (p.userId !== undefined) return { login: p.login ?? p.username, userId: p.userId };
  if (p.keyMaker?.userId != null) return { login: p.keyMaker.login, userId: p.keyMaker.userId };
  return { login: p.login ?? p.username, userId: null };
}

/** Who a console sign-in's password was checked for: the account, and which of its users. */
export interface SignInIdentity {
  principal: Principal;
  accountId: number;
  login: string;
  userRole: UserRole;
}

/** The account of a credential row as a principal (no key, no user: the owner login). */
export function principalOfAccount(
  account: Pick<AccountCredentials, "account_id" | "username" | "role" | "status" | "parent_status" | "time_zone">,
): Principal {
  return {
    accountId: account.account_id,
    username: account.username,
    role: account.role,
    ...statusOf(account),
    timeZone: account.time_zone,
  };
}

/** The status an account acts with (decision 0148): its own unless that is active and a parent's is not. */
export function statusOf(account: {
  status: AccountStatus;
  parent_status: AccountStatus | null;
}): Pick<Principal, "status" | "statusOfParent"> {
  if (account.status !== "active" || account.parent_status === null || account.parent_status === "active") {
    return { status: account.status };
  }
  return { status: account.parent_status, statusOfParent: true };
}

/**
 * The refusal of a caller whose account is not active, `doing` what it cannot (`send`, `place
 * calls`…): its own status, or that its parent account is (which one is not said: a reseller's
 * customer may not know its name).
 */
export function inactiveAccount(principal: Pick<Principal, "status" | "statusOfParent">, doing?: string): GatewayError {
  const { status } = principal;
  const message = principal.statusOfParent
    ? `A parent account of this account is ${status}${doing ? `; this account cannot ${doing}` : ", which stops this account too"}.`
    : `The account is ${status}${doing ? `; it cannot ${doing}` : ""}.`;
  return new GatewayError("account_inactive", message);
}
