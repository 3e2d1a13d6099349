// What a key is asked to be: a new key's body, its limits as answers show them, and a key changed
// after it is made (issue 42; decision 0132): its name, scopes and allowed_ips (and, by the
// operator, its rate). Scopes are checked as a new key's are (never beyond the editor's key or
// role), the allow-list parsed and normalised, the change audited before → after in its
// transaction, and every process's key cache told to forget the key once it is committed.
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { AccountRole } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";
import {
  allowedIpsOf,
  allowedIpsToStore,
  apiKeyRevoked,
  assertKeyWithinCaller,
  assertKeyWithinEditor,
  creatorScopeBits,
  findLiveApiKey,
  KEY_SCOPES,
  keyMakerRole,
  keyScopesToStore,
  ownerRoleOf,
  type Principal,
  revokeApiKey,
  scopeNames,
  type UserRole,
  updateApiKey,
} from "../auth/index.js";
import { getAccount } from "./accounts.js";

/** The body of POST /api/v2/keys (and of a parent's key for its sub-account). */
export const KeyRequest = Type.Object(
  {
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    scopes: Type.Optional(
      Type.Array(Type.Union(KEY_SCOPES.map((scope) => Type.Literal(scope))), {
        maxItems: KEY_SCOPES.length,
        description: "What the key may do (docs/api.md, Key scopes); every scope of the account when left out.",
      }),
    ),
    allowed_ips: Type.Optional(
      Type.Union([Type.Array(Type.String({ maxLength: 64 }), { maxItems: 100 }), Type.Null()], {
        description: "Addresses and CIDR ranges (IPv4, IPv6) the key may be used from; anywhere when left out.",
      }),
    ),
  },
  { additionalProperties: false, title: "ApiKeyRequest" },
);

/**
 * Refuses a caller of the account (v2) a key that can do something it cannot (decision 0140): a
 * scope it could not give, or a capability of the key's maker's role it lacks.
 */
export async function guardKeyOfCaller(
  db: Db,
  key: { id: number; account_id: number; scopes: string | null; created_by_user: number | null },
  caller: Pick<Principal, "role" | "userRole" | "scopes">,
  action: "change" | "revoke",
): Promise<void> {
  assertKeyWithinEditor(
    key.scopes,
    { bits: creatorScopeBits(caller, undefined), userRole: caller.userRole },
    key.id,
    action,
  );
  const makerRole = await keyMakerRole(db, key, caller.role);
  // A key whose maker is gone acts no more: any caller may revoke it.
  if (makerRole === null) return;
  const role = caller.userRole ?? ownerRoleOf(caller.role);
  assertKeyWithinCaller({ id: key.id, scopes: key.scopes, makerRole }, { role, scopes: caller.scopes }, action);
}

/** The scopes and allow-list of a key row as listings answer them. */
export function keyLimits(key: { scopes: string | null; allowed_ips: string | null }, role: AccountRole) {
  return { scopes: scopeNames(key.scopes, role), allowed_ips: allowedIpsOf(key.allowed_ips) };
}

/** The body of PATCH /api/v2/keys/{id}: any of these; left out, a field is kept. */
export const KeyChange = Type.Object(
  {
    name: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Null()])),
    scopes: KeyRequest.properties.scopes,
    allowed_ips: KeyRequest.properties.allowed_ips,
  },
  { additionalProperties: false, minProperties: 1, title: "ApiKeyChange" },
);

export interface KeyChanges {
  name?: string | null | undefined;
  scopes?: string[] | undefined;
  allowed_ips?: string[] | null | undefined;
  rate_limit?: number | undefined;
}

/** A key row's fields as the log and the answers show them. */
function shown(
  row: { name: string | null; rate_limit: number; scopes: string | null; allowed_ips: string | null },
  role: AccountRole,
) {
  return { name: row.name, rate_limit: row.rate_limit, ...keyLimits(row, role) };
}

/**
 * Revokes a live key (its row as findLiveApiKey reads it) with its `key.revoke` entry, in `trx`:
 * before and after describe the key as `key.create` does (never its hash), so an auditor can tell
 * which key stopped. Answers its hash for the caches, or undefined when it was revoked meanwhile.
 */
export async function revokeKeyRecorded(
  trx: Db,
  who: Audited,
  key: {
    id: number;
    account_id: number;
    key_hash: string;
    prefix: string;
    created_by: string | null;
  } & Parameters<typeof shown>[0],
  role: AccountRole,
): Promise<string | undefined> {
  const revoked = await revokeApiKey(trx, who.clock, key.id, key.account_id);
  if (!revoked) return undefined;
  const described = { prefix: key.prefix, ...shown(key, role), created_by: key.created_by };
  await recordChange(trx, who, {
    action: "key.revoke",
    target: `key ${key.id}`,
    accountId: key.account_id,
    before: { ...described, revoked: false },
    after: { ...described, revoked: true },
  });
  return revoked.keyHash;
}

/**
 * Changes a live key: of `accountId`'s keys when given (v2: another account's key is answered as
 * an unknown one), any key for the operator. `creatorBits`: what the editor may give
 * (creatorScopeBits). Answers the key after the change.
 */
export async function changeKey(
  ctx: Pick<Runtime, "store"> & Audited,
  keyId: number | undefined,
  accountId: number | undefined,
  changes: KeyChanges,
  editor: {
    bits: number | undefined;
    userRole?: UserRole | undefined;
    /** A caller of the account (v2), held to guardKeyOfCaller; the operator and the CLI are not. */
    caller?: Pick<Principal, "role" | "userRole" | "scopes">;
  },
) {
  const name = changes.name === undefined ? undefined : changes.name === null ? null : changes.name.trim() || null;
  if (name?.includes("\u0000")) {
    throw new GatewayError("invalid_request", "The name holds a NUL character.", { field: "name" });
  }
  const allowedIps =
    changes.allowed_ips === undefined ? undefined : allowedIpsToStore(changes.allowed_ips, "allowed_ips");
  const { after, role, makerRole, keyHash } = await ctx.store.transaction(async (trx) => {
    const before = keyId === undefined ? undefined : await findLiveApiKey(trx, keyId, accountId);
    if (!before)
      throw new GatewayError(
        "not_found",
        `No live API key with id "${keyId ?? ""}"${accountId === undefined ? "" : " in this account"}.`,
      );
    assertKeyWithinEditor(before.scopes, editor, before.id);
    if (editor.caller) await guardKeyOfCaller(trx, before, editor.caller, "change");
    const role = (await getAccount(trx, before.account_id))?.role ?? "customer";
    // Scopes as a new key's: within the account's, and the editor's key or role.
    const scopes = changes.scopes === undefined ? undefined : keyScopesToStore(changes.scopes, role, editor.bits);
    const after = await updateApiKey(trx, before.id, {
      ...(name !== undefined ? { name } : {}),
      ...(scopes !== undefined ? { scopes } : {}),
      ...(allowedIps !== undefined ? { allowed_ips: allowedIps } : {}),
      ...(changes.rate_limit !== undefined ? { rate_limit: changes.rate_limit } : {}),
    });
    await recordChange(trx, ctx, {
      action:
        changes.scopes !== undefined || allowedIps !== undefined
          ? "key.limits"
          : name === undefined
            ? "key.rate_limit"
            : "key.update",
      target: `key ${before.id}`,
      accountId: before.account_id,
      before: shown(before, role),
      after: shown(after, role),
    });
    return { after, role, makerRole: await keyMakerRole(trx, after, role), keyHash: before.key_hash };
  });
  // The key cache of every process drops the key: the next request reads its new limits.
  await apiKeyRevoked(ctx.store, keyHash);
  return {
    id: after.id,
    prefix: after.prefix,
    ...shown(after, role),
    created_by: after.created_by,
    maker_role: makerRole,
    created_at: isoUtc(new Date(after.created_at)),
    revoked_at: null,
  };
}
