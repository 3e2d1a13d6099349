// What a credential may do and where from: an API key's scopes and address allow-list, an
// account's allow-list for password logins. Which scope each route needs is app/'s table
// (app/route-scopes.ts), which sets it on the route; the check here is a bit test and, with an
// allow-list, the parse of one address, so the send path pays next to nothing for it.
import { addressMatcher, normalizeAddressRanges } from "../../base/core/address-ranges.js";
import { BoundedMap } from "../../base/core/bounded-map.js";
import { GatewayError } from "../../base/core/errors.js";
import type { AccountRole } from "../../base/store/schema.js";
import { KEY_SCOPES, type KeyScope, keyCapabilitiesBeyond, scopesOfUserRole, type UserRole } from "./user-roles.js";

/** What a route needs: one scope, or `all` (a route the table has no row for: only a key with every scope opens it). */
export type RouteScope = KeyScope | "all";

const BIT: Record<KeyScope, number> = { send: 1, read: 2, manage: 4, billing: 8 };
const ALL_BITS = 15;

/** The scopes an account of `role` can give its keys: every scope, for customers and operators alike (issue 42). */
export function scopesOfRole(_role: AccountRole): readonly KeyScope[] {
  return KEY_SCOPES;
}

/** A stored scope list as the bits the request path tests; undefined (every scope) for null. */
export function scopeBits(stored: string | null): number | undefined {
  if (stored === null) return undefined;
  let bits = 0;
  for (const name of stored.split(",")) bits |= BIT[name as KeyScope] ?? 0;
  return bits;
}

/** The scopes a key has, by name in KEY_SCOPES order: all of its role's when it was made without a list. */
export function scopeNames(stored: string | null, role: AccountRole): KeyScope[] {
  if (stored === null) return [...scopesOfRole(role)];
  const given = new Set(stored.split(","));
  return KEY_SCOPES.filter((scope) => given.has(scope));
}

/**
 * A new key's scopes as asked (`["send", "read"]`), checked against what its account can have and
 * stored in one order; null (every scope of the role) when none are asked. A key that makes a key
 * (`creatorBits`, a scoped key's) gives at most its own scopes, and by default exactly those.
 */
export function keyScopesToStore(
  asked: readonly string[] | undefined,
  role: AccountRole,
  creatorBits?: number,
): string | null {
  const ofRole = scopesOfRole(role);
  const unknown = asked?.find((scope) => !ofRole.includes(scope as KeyScope));
  if (unknown !== undefined) {
    throw new GatewayError(
      "invalid_request",
      `"${unknown.slice(0, 40)}" is not a scope this account's keys can have; use ${ofRole.join(", ")}.`,
      { field: "scopes" },
    );
  }
  if (asked?.length === 0) {
    throw new GatewayError("invalid_request", `A key needs at least one scope (${ofRole.join(", ")}).`, {
      field: "scopes",
    });
  }
  if (creatorBits === undefined) return asked ? ofRole.filter((scope) => asked.includes(scope)).join(",") : null;
  const mine = ofRole.filter((scope) => creatorBits & BIT[scope]);
  const beyond = asked?.find((scope) => !mine.includes(scope as KeyScope));
  if (beyond !== undefined) {
    throw new GatewayError(
      "insufficient_scope",
      `This API key cannot make a key with "${beyond}": a key gives at most its own scopes (${mine.join(", ")}).`,
      { field: "scopes" },
    );
  }
  return (asked ? mine.filter((scope) => asked.includes(scope)) : mine).join(",");
}

/**
 * The scope bits a caller may give a key it makes or edits: its key's own (a scoped key), within
 * its user's role; undefined when nothing limits it (an owner's session, a key with every scope).
 * Asking for a scope beyond the role is refused here (403 insufficient_role, field `scopes`).
 */
export function creatorScopeBits(
  caller: { scopes?: number | undefined; userRole?: UserRole | undefined },
  asked: readonly string[] | undefined,
): number | undefined {
  if (caller.userRole === undefined) return caller.scopes;
  const ofRole = scopesOfUserRole(caller.userRole);
  const beyond = asked?.find((scope) => KEY_SCOPES.includes(scope as KeyScope) && !ofRole.includes(scope as KeyScope));
  if (beyond !== undefined) {
    throw new GatewayError(
      "insufficient_role",
      `The role ${caller.userRole} cannot give a key "${beyond}": its keys have at most ${ofRole.join(", ") || "no scope"}.`,
      { field: "scopes", user_role: caller.userRole },
    );
  }
  return roleScopeBits(caller.userRole, caller.scopes);
}

/**
 * Scope bits (undefined: every scope) narrowed to those of a user's role: what a key made by a
 * user of `role` can do (decision 0140), or what such a user may give a key.
 */
export function roleScopeBits(role: UserRole, bits: number | undefined): number | undefined {
  let roleBits = 0;
  for (const scope of scopesOfUserRole(role)) roleBits |= BIT[scope];
  if (roleBits === ALL_BITS) return bits;
  return (bits ?? ALL_BITS) & roleBits;
}

/** Scope bits by name (undefined: every scope). */
function scopesOfBits(bits: number | undefined): KeyScope[] | undefined {
  return bits === undefined ? undefined : KEY_SCOPES.filter((scope) => bits & BIT[scope]);
}

/**
 * Refuses a caller changing or revoking a key that can do something the caller cannot (decision
 * 0140): the key acts with its maker's role (`makerRole`, the owner's for a key of the owner
 * login), within its scopes, and a caller whose own role and credential lack one of those
 * capabilities (a developer and the owner's key) leaves the key alone. A key that can do no more
 * than the caller (a developer's key, the owner's send-only key) is the caller's to change or revoke.
 */
export function assertKeyWithinCaller(
  key: { id: number; scopes: string | null; makerRole: UserRole },
  caller: { role: UserRole; scopes?: number | undefined },
  action: "change" | "revoke",
): void {
  const beyond = keyCapabilitiesBeyond(
    { makerRole: key.makerRole, scopes: scopesOfBits(scopeBits(key.scopes)) },
    { role: caller.role, scopes: scopesOfBits(caller.scopes) },
  );
  if (beyond.length === 0) return;
  throw new GatewayError(
    "insufficient_role",
    `Key ${key.id} acts as ${key.makerRole} and can ${beyond.join(", ")}, which this ${caller.scopes === undefined ? "login" : "API key"} (${caller.role}) cannot: only a login that can do everything the key can may ${action} it.`,
    { user_role: caller.role },
  );
}

/**
 * Refuses to change or revoke a key holding a scope its caller could not give (a developer and an
 * owner's billing key, a read-and-manage key and a sending one): an edit must not move powers the
 * caller lacks, and a revocation must not cut off what the caller could not have made.
 */
export function assertKeyWithinEditor(
  stored: string | null,
  editor: { bits: number | undefined; userRole?: UserRole | undefined },
  keyId: number,
  action: "change" | "revoke" = "change",
): void {
  if (editor.bits === undefined) return;
  const held = scopeBits(stored) ?? ALL_BITS;
  const beyond = KEY_SCOPES.filter((scope) => held & BIT[scope] && !(editor.bits! & BIT[scope]));
  if (beyond.length === 0) return;
  const who = editor.userRole === undefined ? "this API key" : `the role ${editor.userRole}`;
  throw new GatewayError(
    editor.userRole === undefined ? "insufficient_scope" : "insufficient_role",
    `Key ${keyId} has "${beyond.join('", "')}", which ${who} cannot give, so it cannot ${action} the key.`,
    editor.userRole === undefined ? {} : { user_role: editor.userRole },
  );
}

/** An allow-list as asked, checked and stored comma-separated; null (anywhere) for none or an empty list. */
export function allowedIpsToStore(asked: readonly string[] | null | undefined, field: string): string | null {
  if (!asked) return null;
  const normalized = normalizeAddressRanges(asked);
  if (normalized.invalid !== undefined) throw new GatewayError("invalid_request", normalized.invalid, { field });
  return normalized.ranges.length === 0 ? null : normalized.ranges.join(",");
}

/** A stored allow-list, split; null for anywhere. */
export function allowedIpsOf(stored: string | null): string[] | null {
  return stored ? stored.split(",") : null;
}

/** What a principal's credential may do, as Principal carries it (authenticator.ts). */
export interface CredentialLimits {
  /** The key's scope bits; undefined: every scope (a key without a list, a password, a console session). */
  scopes?: number;
  /** The credential's allow-list; undefined: anywhere. */
  allowedFrom?: (address: string) => boolean;
  /** What that allow-list belongs to, for the refusal's reason. */
  allowedBy?: "key" | "password";
}

const MATCHERS_MAX = 10_000;
const matchers = new BoundedMap<string, (address: string) => boolean>(MATCHERS_MAX);
/** Client addresses answered per allow-list: a key is used from a few, and parsing one costs microseconds. */
const ADDRESSES_MAX = 256;

/**
 * The allow-list's matcher, parsed once per distinct list (keys and login rows are re-read often),
 * remembering its answer for the addresses it was asked about.
 */
export function allowListMatcher(stored: string | null): ((address: string) => boolean) | undefined {
  if (!stored) return undefined;
  let matcher = matchers.get(stored);
  if (!matcher) {
    const inRanges = addressMatcher(stored.split(","));
    const answers = new BoundedMap<string, boolean>(ADDRESSES_MAX);
    matcher = (address) => {
      let allowed = answers.get(address);
      if (allowed === undefined) {
        allowed = inRanges(address);
        answers.set(address, allowed);
      }
      return allowed;
    };
    matchers.set(stored, matcher);
  }
  return matcher;
}

/**
 * Refuses a caller whose credential does not open `needed` from `address`: `address_not_allowed`
 * first (the key is in the wrong hands, or the right ones in the wrong place), then
 * `insufficient_scope`. `http` overrides the status (WhatsApp's 401).
 */
export function admitCredential(
  limits: CredentialLimits,
  needed: RouteScope | undefined,
  address: string,
  operation: string,
  http?: number,
): void {
  const details = http === undefined ? undefined : { http };
  if (limits.allowedFrom && !limits.allowedFrom(address)) {
    const whose = limits.allowedBy === "password" ? "Password logins of this account" : "This API key";
    const list = limits.allowedBy === "password" ? "password_allowed_ips" : "allowed_ips";
    throw new GatewayError(
      "address_not_allowed",
      `${whose} may not be used from ${address}: it is not in the ${list}.`,
      details,
    );
  }
  const bits = limits.scopes;
  if (bits === undefined) return;
  const wanted = needed === undefined || needed === "all" ? ALL_BITS : BIT[needed];
  if ((bits & wanted) === wanted) return;
  const has = KEY_SCOPES.filter((scope) => bits & BIT[scope]);
  throw new GatewayError(
    "insufficient_scope",
    `This API key's scopes (${has.join(", ") || "none"}) do not open ${operation}: it needs ${needed === undefined || needed === "all" ? "every scope" : `"${needed}"`}.`,
    { ...details, needed_scope: needed ?? "all" },
  );
}
