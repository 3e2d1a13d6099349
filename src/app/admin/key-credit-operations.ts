// Operator actions on an account's API keys and money, shared by the operator API and the CLI;
// each change is written with its audit entry in one transaction.
import { fromMilli, toMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import {
  adjustWallet,
  creditWallet,
  getAccount,
  keyLimits,
  requireAccount,
  revokeKeyRecorded,
  walletCredits,
} from "../../domain/accounts/index.js";
import { recordChange } from "../../domain/audit/index.js";
import {
  allowedIpsToStore,
  apiKeyRevoked,
  createApiKey,
  findLiveApiKey,
  keyScopesToStore,
  listApiKeys,
  makerRoleOf,
} from "../../domain/auth/index.js";
import { type ChangeDeps, type OperatorDeps, parseRateLimit, parseWallet } from "./operations.js";

/**
 * A new key of the account, shown once; `scopes` and `allowedIps` as key-scopes.ts checks them
 * (every scope, anywhere, when left out). `creatorScopes`: the acting operator key's scope bits,
 * when it has a list: a key gives at most its own scopes.
 */
export async function createKeyFor(
  deps: ChangeDeps,
  username: string,
  options: { name?: string; rateLimit?: number; scopes?: string[]; allowedIps?: string[] | null },
  creatorScopes?: number,
) {
  const account = await requireAccount(deps.store.db, username);
  const rateLimit = options.rateLimit !== undefined ? parseRateLimit(options.rateLimit) : undefined;
  const scopes = keyScopesToStore(options.scopes, account.role, creatorScopes);
  const allowedIps = allowedIpsToStore(options.allowedIps, "allowed_ips");
  const limits = keyLimits({ scopes, allowed_ips: allowedIps }, account.role);
  const key = await deps.store.transaction(async (trx) => {
    const key = await createApiKey(trx, deps.clock, account.id, {
      ...(options.name !== undefined ? { name: options.name } : {}),
      ...(rateLimit !== undefined ? { rateLimit } : {}),
      scopes,
      allowedIps,
    });
    const after = { prefix: key.prefix, name: options.name ?? null, rate_limit: key.rateLimit, ...limits };
    await recordChange(trx, deps, { action: "key.create", target: `key ${key.id}`, accountId: account.id, after });
    return key;
  });
  return {
    id: key.id,
    account: account.username,
    api_key: key.key,
    prefix: key.prefix,
    rate_limit: key.rateLimit,
    ...limits,
  };
}

/** An account's API keys as listings show them: never the key, its prefix to tell them apart. */
export async function keysOf(deps: OperatorDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  const keys = await listApiKeys(deps.store.db, account.id);
  return keys.map((k) => ({
    id: k.id,
    prefix: k.prefix,
    name: k.name,
    rate_limit: k.rate_limit,
    ...keyLimits(k, account.role),
    created_by: k.created_by,
    maker_role: makerRoleOf(k, account.role),
    created_at: new Date(k.created_at).toISOString(),
    revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
  }));
}

export async function revokeKey(deps: ChangeDeps, keyId: number) {
  const notFound = () => new GatewayError("not_found", `No active API key with id ${keyId}.`);
  const keyHash = await deps.store.transaction(async (trx) => {
    const key = await findLiveApiKey(trx, keyId);
    if (!key) throw notFound();
    const role = (await getAccount(trx, key.account_id))?.role ?? "customer";
    const keyHash = await revokeKeyRecorded(trx, deps, key, role);
    if (!keyHash) throw notFound();
    return keyHash;
  });
  await apiKeyRevoked(deps.store, keyHash);
  return { id: keyId, revoked: true };
}

export async function addCredits(
  deps: ChangeDeps,
  input: { username: string; wallet: string; amount: number; note?: string },
) {
  const wallet = parseWallet(input.wallet);
  if (!(Number.isFinite(input.amount) && input.amount > 0)) {
    throw new GatewayError("invalid_request", "Amount must be a positive number of credits.");
  }
  const amount = toMilli(input.amount, "amount");
  const account = await requireAccount(deps.store.db, input.username);
  const note = input.note ?? "operator top-up";
  const balance = await deps.store.transaction(async (trx) => {
    const balance = await creditWallet(trx, deps.clock, { accountId: account.id, wallet, amount, kind: "topup", note });
    await recordChange(trx, deps, {
      action: "credits.topup",
      target: `${wallet} wallet of ${account.username}`,
      accountId: account.id,
      before: { balance: fromMilli(balance - amount) },
      after: { balance: fromMilli(balance), amount: input.amount, note },
    });
    return balance;
  });
  return { account: account.username, wallet, balance: fromMilli(balance) };
}

/**
 * Corrects a wallet by a signed amount of credits with a reason (the `adjustment` ledger entry):
 * a top-up cannot be undone by a negative top-up. Never takes more than the spendable balance.
 */
export async function adjustCredits(
  deps: ChangeDeps,
  input: { username: string; wallet: string; amount: number; reason: string },
) {
  const wallet = parseWallet(input.wallet);
  if (!Number.isFinite(input.amount) || input.amount === 0) {
    throw new GatewayError(
      "invalid_request",
      "Amount must be a number of credits other than 0, positive or negative.",
      {
        field: "amount",
      },
    );
  }
  const reason = input.reason.trim();
  if (reason === "") throw new GatewayError("invalid_request", "Say why: a reason is required.", { field: "reason" });
  const amount = Math.sign(input.amount) * toMilli(Math.abs(input.amount), "amount");
  const account = await requireAccount(deps.store.db, input.username);
  const balance = await deps.store.transaction(async (trx) => {
    const balance = await adjustWallet(trx, deps.clock, { accountId: account.id, wallet, amount, note: reason });
    if (balance === undefined) return undefined;
    await recordChange(trx, deps, {
      action: "credits.adjust",
      target: `${wallet} wallet of ${account.username}`,
      accountId: account.id,
      before: { balance: fromMilli(balance - amount) },
      after: { balance: fromMilli(balance), amount: input.amount, reason },
    });
    return balance;
  });
  if (balance === undefined) {
    const holds = (await walletCredits(deps.store.db, account.id))[wallet];
    throw new GatewayError(
      wallet === "international" ? "insufficient_international_credits" : "insufficient_credits",
      `The ${wallet} wallet of ${account.username} holds ${holds} credits: it cannot lose ${Math.abs(input.amount)}.`,
    );
  }
  return { account: account.username, wallet, adjusted: input.amount, reason, balance: fromMilli(balance) };
}
