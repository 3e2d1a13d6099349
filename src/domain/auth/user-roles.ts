// The roles of an account's users and of the operator's staff (issue 42, item 1; decision 0126),
// and the key scopes each role may give a key (decision 0132). No imports: the console reads
// these lists too.

/** A customer account's users: `owner` is the account's own username and password. */
export const ACCOUNT_USER_ROLES = ["owner", "admin", "developer", "support", "billing"] as const;
/** The users of an operator-role account. */
export const STAFF_ROLES = ["operator_admin", "operator_support", "operator_finance"] as const;

export type AccountUserRole = (typeof ACCOUNT_USER_ROLES)[number];
export type StaffRole = (typeof STAFF_ROLES)[number];
export type UserRole = AccountUserRole | StaffRole;

/**
 * What a route needs (app/access.ts gives every route one):
 *   basic    who am I, the balance, one's own sessions: every role
 *   read     messages, refusals, analytics, templates, sender IDs, the audit log
 *   send     sends, and what a send is made of (sender IDs, templates, contacts, DLT)
 *   develop  API keys and webhooks
 *   money    credits, ledger and their exports
 *   manage   the account itself: its users, settings and sub-accounts
 *   staff_read, staff_money, staff_admin   the operator API: read, money (credits, prices, cost cards), the rest
 */
export const CAPABILITIES = [
  "basic",
  "read",
  "send",
  "develop",
  "money",
  "manage",
  "staff_read",
  "staff_money",
  "staff_admin",
] as const;
export type Capability = (typeof CAPABILITIES)[number];

const ACCOUNT_ALL: readonly Capability[] = ["basic", "read", "send", "develop", "money", "manage"];

/** Each role's capabilities; an operator's staff act on v2 (their own account) as the account role beside them. */
export const ROLE_CAPABILITIES: Readonly<Record<UserRole, readonly Capability[]>> = {
  owner: ACCOUNT_ALL,
  admin: ACCOUNT_ALL,
  developer: ["basic", "read", "send", "develop"],
  support: ["basic", "read"],
  billing: ["basic", "money"],
  operator_admin: [...ACCOUNT_ALL, "staff_read", "staff_money", "staff_admin"],
  operator_support: ["basic", "read", "staff_read"],
  operator_finance: ["basic", "money", "staff_read", "staff_money"],
};

export function roleAllows(role: UserRole, capability: Capability): boolean {
  return ROLE_CAPABILITIES[role].includes(capability);
}

/**
 * Who may stop requiring a second factor of every login of the account (decision 0182): its owners
 * (an operator account's `operator_admin`). An admin may require it, not stop requiring it.
 */
export function mayStopRequiringTwoFactor(role: UserRole): boolean {
  return role === "owner" || role === "operator_admin";
}

/** The role of an account's own login (its username and password, and its API keys). */
export function ownerRoleOf(accountRole: "customer" | "operator"): UserRole {
  return accountRole === "operator" ? "operator_admin" : "owner";
}

/**
 * `send`: sends of every channel; `read`: messages, reports, lists, settings as they are;
 * `manage`: changing settings, templates, sender IDs, webhooks, keys, sub-accounts;
 * `billing`: balances, the ledger, price cards, credits moved.
 */
export const KEY_SCOPES = ["send", "read", "manage", "billing"] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The scope each capability of a role stands for: what a key made or edited by that role may have. */
const SCOPE_OF_CAPABILITY: Partial<Record<Capability, KeyScope>> = {
  read: "read",
  staff_read: "read",
  send: "send",
  develop: "manage",
  manage: "manage",
  staff_admin: "manage",
  money: "billing",
  staff_money: "billing",
};

/** The key scope a capability stands for; undefined for `basic` (every credential has it). */
export function scopeOfCapability(capability: Capability): KeyScope | undefined {
  return SCOPE_OF_CAPABILITY[capability];
}

/** The scopes a user of `role` may give a key (decision 0132): a developer's keys cannot move money. */
export function scopesOfUserRole(role: UserRole): KeyScope[] {
  const capabilities = ROLE_CAPABILITIES[role];
  return KEY_SCOPES.filter((scope) => capabilities.some((c) => SCOPE_OF_CAPABILITY[c] === scope));
}

/** What a role can do through a credential limited to `scopes` (undefined: every scope). */
export function capabilitiesWithin(role: UserRole, scopes: readonly string[] | undefined): Capability[] {
  return ROLE_CAPABILITIES[role].filter((capability) => {
    const scope = scopeOfCapability(capability);
    return scope === undefined || scopes === undefined || scopes.includes(scope);
  });
}

/**
 * What a key can do that a caller cannot (decision 0140): the key acts with its maker's role within
 * its scopes, the caller with its role through its own credential's scopes (undefined: every scope,
 * a console session). A key that can do more is not the caller's to change or revoke: the API refuses
 * it (key-scopes.ts), the console offers neither.
 */
export function keyCapabilitiesBeyond(
  key: { makerRole: UserRole; scopes: readonly string[] | undefined },
  caller: { role: UserRole; scopes?: readonly string[] | undefined },
): Capability[] {
  const callerCan = capabilitiesWithin(caller.role, caller.scopes);
  return capabilitiesWithin(key.makerRole, key.scopes).filter((capability) => !callerCan.includes(capability));
}
