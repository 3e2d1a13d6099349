// API keys: high-entropy random strings, shown once, stored as SHA-256 (argon2 is for
// passwords; a 256-bit key needs no stretching), several per account, each with its own rate,
// scopes and address allow-list (key-scopes.ts).
import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { AccountRole } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { KeyMaker, Principal } from "./principal.js";
import { ownerRoleOf, type UserRole } from "./user-roles.js";

export type { KeyMaker };

const KEY_PREFIX = "sb_";

export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

export interface CreatedApiKey {
  id: number;
  /** The only time the plain key exists outside the client. */
  key: string;
  prefix: string;
  rateLimit: number;
  /** As stored: comma-separated, null for every scope of the account. */
  scopes: string | null;
  allowedIps: string | null;
}

export const DEFAULT_RATE_LIMIT = 60;

export async function createApiKey(
  db: Db,
  clock: Clock,
  accountId: number,
  options: {
    name?: string | null;
    rateLimit?: number;
    /** Checked and written by key-scopes.ts (keyScopesToStore, allowedIpsToStore); null: every scope, anywhere. */
    scopes?: string | null;
    allowedIps?: string | null;
    /** The user who makes it (decision 0140): the key acts with their role; left out, as the owner. */
    maker?: KeyMaker;
  } = {},
): Promise<CreatedApiKey> {
  const key = `${KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
  const prefix = key.slice(0, 10);
  const rateLimit = options.rateLimit ?? DEFAULT_RATE_LIMIT;
  const row = await db
    .insertInto("api_keys")
    .values({
      account_id: accountId,
      prefix,
      key_hash: hashApiKey(key),
      name: options.name ?? null,
      rate_limit: rateLimit,
      scopes: options.scopes ?? null,
      allowed_ips: options.allowedIps ?? null,
      created_by: options.maker?.login ?? null,
      created_by_user: options.maker?.userId ?? null,
      created_at: clock.now().getTime(),
      revoked_at: null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, key, prefix, rateLimit, scopes: options.scopes ?? null, allowedIps: options.allowedIps ?? null };
}

/** An account's keys, oldest first, each with the facts makerRoleOf reads its role from. */
export async function listApiKeys(db: Db, accountId: number) {
  return db
    .selectFrom("api_keys")
    .leftJoin("account_users", "account_users.id", "api_keys.created_by_user")
    .select([
      "api_keys.id",
      "api_keys.prefix",
      "api_keys.name",
      "api_keys.rate_limit",
      "api_keys.scopes",
      "api_keys.allowed_ips",
      "api_keys.created_by",
      "api_keys.created_by_user",
      "account_users.user_role as maker_user_role",
      "api_keys.created_at",
      "api_keys.revoked_at",
    ])
    .where("api_keys.account_id", "=", accountId)
    .orderBy("api_keys.id")
    .execute();
}

/** What a key's role is read from: the user who made it (null: the owner login) and their role now (null: gone). */
export interface KeyMakerFacts {
  created_by_user: number | null;
  maker_user_role: string | null;
}

/**
 * The role a key acts with (decision 0140): its maker's as it is now (a user of the account, or of
 * its parent for a key the parent made it: decision 0143), the owner's for a key of the owner
 * login; null when its maker is gone (the key is in force no more). The lists read the facts in
 * their join (listApiKeys), keyMakerRole for one key.
 */
export function makerRoleOf(key: KeyMakerFacts, accountRole: AccountRole): UserRole | null {
  if (key.created_by_user === null) return ownerRoleOf(accountRole);
  return (key.maker_user_role as UserRole | null) ?? null;
}

/**
 * Marks a key revoked; returns the owning account id, or undefined when no such live key exists
 * (of `ownerId`'s keys, when given: an account revokes only its own).
 */
export async function revokeApiKey(
  db: Db,
  clock: Clock,
  keyId: number,
  ownerId?: number,
): Promise<{ accountId: number; keyHash: string } | undefined> {
  let query = db
    .updateTable("api_keys")
    .set({ revoked_at: clock.now().getTime() })
    .where("id", "=", keyId)
    .where("revoked_at", "is", null);
  if (ownerId !== undefined) query = query.where("account_id", "=", ownerId);
  const row = await query.returning(["account_id", "key_hash"]).executeTakeFirst();
  return row ? { accountId: row.account_id, keyHash: row.key_hash } : undefined;
}

/**
 * Revokes the live keys `userId` made (decision 0140), in their account and in its sub-accounts
 * (decision 0143; a user's id is theirs alone): run in the transaction that removes the user.
 * Answers their ids and hashes, for the audit entry and the caches.
 */
export async function revokeKeysMadeBy(db: Db, clock: Clock, userId: number) {
  return db
    .updateTable("api_keys")
    .set({ revoked_at: clock.now().getTime() })
    .where("created_by_user", "=", userId)
    .where("revoked_at", "is", null)
    .returning(["id", "key_hash"])
    .execute();
}

/**
 * The hashes of the live keys `userId` made, their sub-accounts' too: what the caches drop when the
 * user's role changes.
 */
export async function keyHashesMadeBy(db: Db, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom("api_keys")
    .select("key_hash")
    .where("created_by_user", "=", userId)
    .where("revoked_at", "is", null)
    .execute();
  return rows.map((row) => row.key_hash);
}

/** A live key's row by id (of `ownerId`'s keys, when given), or undefined. */
export async function findLiveApiKey(db: Db, keyId: number, ownerId?: number) {
  let query = db.selectFrom("api_keys").selectAll().where("id", "=", keyId).where("revoked_at", "is", null);
  if (ownerId !== undefined) query = query.where("account_id", "=", ownerId);
  return query.executeTakeFirst();
}

/** Changes a key's name, scopes, allowed_ips or rate (as key-scopes.ts stores them); answers the row after. */
export async function updateApiKey(
  db: Db,
  keyId: number,
  set: { name?: string | null; scopes?: string | null; allowed_ips?: string | null; rate_limit?: number },
) {
  return db.updateTable("api_keys").set(set).where("id", "=", keyId).returningAll().executeTakeFirstOrThrow();
}

/**
 * Who makes the key a caller asks for (decision 0140): the maker of the calling key, the user
 * signed in, else the owner login (a key or password acting as the owner).
 */
export function keyMakerOf(principal: Principal): KeyMaker {
  if (principal.keyMaker) return principal.keyMaker;
  if (principal.userId !== undefined && principal.login !== undefined) {
    return { login: principal.login, userId: principal.userId };
  }
  return { login: principal.login ?? principal.username, userId: null };
}

/**
 * Who makes the key a parent asks for its sub-account (decision 0143): the parent's user, named
 * `<parent>/<login>`, whose role the key acts with in the sub-account; the parent's owner login
 * (the parent's username) makes a key that acts as the sub-account's owner. A key of the parent
 * made by its own parent's user makes none: that user is two levels up.
 */
export function parentKeyMakerOf(principal: Principal): KeyMaker {
  if (principal.keyMaker?.ofParent) {
    throw new GatewayError(
      "forbidden",
      `This API key was made by ${principal.keyMaker.login}, a user of the parent of ${principal.username}: it makes no keys for ${principal.username}'s sub-accounts.`,
    );
  }
  const maker = keyMakerOf(principal);
  if (maker.userId === null) return maker;
  return { login: `${principal.username}/${maker.login}`, userId: maker.userId, ofParent: true };
}

/** makerRoleOf for one key, its maker's role read as listApiKeys joins it. */
export async function keyMakerRole(
  db: Db,
  key: { created_by_user: number | null },
  accountRole: AccountRole,
): Promise<UserRole | null> {
  const maker =
    key.created_by_user === null
      ? undefined
      : await db
          .selectFrom("account_users")
          .select("user_role")
          .where("id", "=", key.created_by_user)
          .executeTakeFirst();
  return makerRoleOf({ created_by_user: key.created_by_user, maker_user_role: maker?.user_role ?? null }, accountRole);
}
