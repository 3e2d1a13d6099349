// Operator actions, shared by the operator API and the CLI so both behave the same.

import type { Clock } from "../../base/core/clock.js";
import { fromMilli, isWallet, toMilli, WALLETS, type Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Store } from "../../base/store/store.js";
import {
  addDltEntity,
  addDltHeader,
  addDnd,
  addSenderId,
  adjustWallet,
  createTemplate,
  creditWallet,
  DEFAULT_CARD,
  DLT_CHANGED,
  type DndImportResult,
  describeAccount,
  describeDltEntity,
  describeDltHeader,
  describeSenderId,
  describeTemplate,
  dndCount,
  getAccount,
  getSenderId,
  getTemplate,
  importDnd,
  isDnd,
  listDltEntities,
  listDltHeaders,
  listSenderIds,
  listTemplates,
  type NewTemplateInput,
  parseDndNumber,
  removeDltEntity,
  removeDltHeader,
  removeDnd,
  requireAccount,
  setDltStatus,
  setSenderIdStatus,
  setTemplateStatus,
  TEMPLATES_CHANGED,
  usernamesOf,
  walletCredits,
} from "../../domain/accounts/index.js";
import { apiKeyRevoked, createApiKey, listApiKeys, revokeApiKey } from "../../domain/auth/index.js";
import { readinessOf } from "./readiness.js";

export interface OperatorDeps {
  store: Store;
  clock: Clock;
}

/** Parses `sms=1000,whatsapp=50` into opening balances. */
export function parseCreditList(text: string): Partial<Record<Wallet, number>> {
  const credits: Partial<Record<Wallet, number>> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [wallet, amount] = part.split("=").map((s) => s.trim());
    if (!wallet || !isWallet(wallet)) {
      throw new GatewayError("invalid_request", `Unknown wallet "${wallet ?? ""}"; use ${WALLETS.join(", ")}.`);
    }
    const value = Number(amount);
    if (amount === undefined || amount === "" || !Number.isFinite(value) || value < 0) {
      throw new GatewayError(
        "invalid_request",
        `Credits for ${wallet} must be a number of 0 or more (got "${amount ?? ""}").`,
      );
    }
    credits[wallet] = value;
  }
  return credits;
}

export function parseWallet(value: string): Wallet {
  if (!isWallet(value))
    throw new GatewayError("invalid_request", `Unknown wallet "${value}"; use ${WALLETS.join(", ")}.`);
  return value;
}

/** Requests per minute a key may be given; the column is a 32-bit integer on PostgreSQL. */
export const MAX_RATE_LIMIT = 1_000_000;

export function parseRateLimit(value: unknown): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 0 || n > MAX_RATE_LIMIT) {
    throw new GatewayError(
      "invalid_request",
      `Rate limit must be a whole number of requests per minute from 0 (unlimited) to ${MAX_RATE_LIMIT}.`,
    );
  }
  return n;
}

export async function accountSummary(deps: OperatorDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  return describeAccount(account, await walletCredits(deps.store.db, account.id));
}

/** One account as `accounts show` and the operator API show it: its registrations, and what it lacks to send. */
export async function accountDetail(deps: OperatorDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  const [balances, readiness, parent] = await Promise.all([
    walletCredits(deps.store.db, account.id),
    readinessOf(deps.store.db, account),
    account.parent_id === null ? undefined : getAccount(deps.store.db, account.parent_id),
  ]);
  return {
    ...describeAccount(account, balances),
    price_card: account.price_card ?? DEFAULT_CARD,
    parent: parent?.username ?? null,
    markup_percent: account.markup_bp === null ? null : account.markup_bp / 100,
    ...readiness,
  };
}

export async function createKeyFor(
  deps: OperatorDeps,
  username: string,
  options: { name?: string; rateLimit?: number },
) {
  const account = await requireAccount(deps.store.db, username);
  const key = await createApiKey(deps.store.db, deps.clock, account.id, {
    ...(options.name !== undefined ? { name: options.name } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: parseRateLimit(options.rateLimit) } : {}),
  });
  return { id: key.id, account: account.username, api_key: key.key, prefix: key.prefix, rate_limit: key.rateLimit };
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
    created_at: new Date(k.created_at).toISOString(),
    revoked_at: k.revoked_at === null ? null : new Date(k.revoked_at).toISOString(),
  }));
}

export async function revokeKey(deps: OperatorDeps, keyId: number) {
  const revoked = await revokeApiKey(deps.store.db, deps.clock, keyId);
  if (!revoked) throw new GatewayError("not_found", `No active API key with id ${keyId}.`);
  await apiKeyRevoked(deps.store, revoked.keyHash);
  return { id: keyId, revoked: true };
}

export async function addCredits(
  deps: OperatorDeps,
  input: { username: string; wallet: string; amount: number; note?: string },
) {
  const wallet = parseWallet(input.wallet);
  if (!(Number.isFinite(input.amount) && input.amount > 0)) {
    throw new GatewayError("invalid_request", "Amount must be a positive number of credits.");
  }
  const amount = toMilli(input.amount, "amount");
  const account = await requireAccount(deps.store.db, input.username);
  const balance = await deps.store.transaction((trx) =>
    creditWallet(trx, deps.clock, {
      accountId: account.id,
      wallet,
      amount,
      kind: "topup",
      note: input.note ?? "operator top-up",
    }),
  );
  return { account: account.username, wallet, balance: fromMilli(balance) };
}

/**
 * Corrects a wallet by a signed amount of credits with a reason (the `adjustment` ledger entry):
 * a top-up cannot be undone by a negative top-up. Never takes more than the spendable balance.
 */
export async function adjustCredits(
  deps: OperatorDeps,
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
  const balance = await deps.store.transaction((trx) =>
    adjustWallet(trx, deps.clock, { accountId: account.id, wallet, amount, note: reason }),
  );
  if (balance === undefined) {
    const holds = (await walletCredits(deps.store.db, account.id))[wallet];
    throw new GatewayError(
      wallet === "international" ? "insufficient_international_credits" : "insufficient_credits",
      `The ${wallet} wallet of ${account.username} holds ${holds} credits: it cannot lose ${Math.abs(input.amount)}.`,
    );
  }
  return { account: account.username, wallet, adjusted: input.amount, reason, balance: fromMilli(balance) };
}

export async function addSenderIdFor(
  deps: OperatorDeps,
  input: { username: string; sender: string; approve?: boolean },
) {
  const account = await requireAccount(deps.store.db, input.username);
  const row = await addSenderId(deps.store.db, deps.clock, account.id, input.sender, {
    approve: input.approve ?? false,
  });
  return { id: row.id, account: account.username, sender_id: row.sender, status: row.status };
}

export async function senderIdsOf(deps: OperatorDeps, username: string, status?: ApprovalStatus) {
  const account = await requireAccount(deps.store.db, username);
  return (await listSenderIds(deps.store.db, account.id, status)).map(describeSenderId);
}

/**
 * Sets a sender ID's status by its id. An id alone picks whichever account owns it: given
 * `username`, one of another account is refused as unknown. The answer names the account.
 */
export async function setSenderIdStatusFor(deps: OperatorDeps, id: number, status: ApprovalStatus, username?: string) {
  const db = deps.store.db;
  if (username !== undefined) {
    const account = await requireAccount(db, username);
    if (!(await getSenderId(db, account.id, id))) {
      throw new GatewayError("not_found", `No sender ID with id ${id} in account ${account.username}.`);
    }
  }
  const row = await setSenderIdStatus(db, deps.clock, id, status);
  if (!row) throw new GatewayError("not_found", `No sender ID with id ${id}.`);
  return { ...describeSenderId(row), account: (await usernamesOf(db, [row.account_id])).get(row.account_id) };
}

// The SMS rule set: templates, DLT registrations, the DND registry. Each change of templates or
// DLT registrations is announced so that caches of them (content scrubbing) drop the account.

export async function addTemplateFor(deps: OperatorDeps, input: { username: string } & NewTemplateInput) {
  const { username, ...template } = input;
  const account = await requireAccount(deps.store.db, username);
  const row = await createTemplate(deps.store.db, deps.clock, account.id, template);
  await deps.store.signals.notify(TEMPLATES_CHANGED, String(account.id));
  return { ...describeTemplate(row), account: account.username };
}

/** Sets a template's status by its id, as setSenderIdStatusFor does (the account checked when named). */
export async function setTemplateStatusFor(deps: OperatorDeps, id: number, status: ApprovalStatus, username?: string) {
  const db = deps.store.db;
  if (username !== undefined) {
    const account = await requireAccount(db, username);
    if (!(await getTemplate(db, account.id, id))) {
      throw new GatewayError("not_found", `No template with id ${id} in account ${account.username}.`);
    }
  }
  const row = await setTemplateStatus(db, deps.clock, id, status);
  if (!row) throw new GatewayError("not_found", `No template with id ${id}.`);
  await deps.store.signals.notify(TEMPLATES_CHANGED, String(row.account_id));
  return { ...describeTemplate(row), account: (await usernamesOf(db, [row.account_id])).get(row.account_id) };
}

export async function listTemplatesFor(
  deps: OperatorDeps,
  username: string,
  options: { status?: ApprovalStatus | undefined; page?: number | undefined; perPage?: number | undefined } = {},
) {
  const account = await requireAccount(deps.store.db, username);
  const page = options.page ?? 1;
  const perPage = options.perPage ?? 100;
  const { rows, total } = await listTemplates(deps.store.db, account.id, { status: options.status, page, perPage });
  return {
    templates: rows.map(describeTemplate),
    meta: { page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  };
}

export type DltKind = "entity" | "header";

export async function addDltFor(deps: OperatorDeps, username: string, kind: DltKind, value: string) {
  const account = await requireAccount(deps.store.db, username);
  const described =
    kind === "entity"
      ? describeDltEntity(await addDltEntity(deps.store.db, deps.clock, account.id, value))
      : describeDltHeader(await addDltHeader(deps.store.db, deps.clock, account.id, value));
  await deps.store.signals.notify(DLT_CHANGED, String(account.id));
  return { ...described, account: account.username };
}

export async function removeDltFor(deps: OperatorDeps, username: string, kind: DltKind, value: string) {
  const account = await requireAccount(deps.store.db, username);
  const removed =
    kind === "entity"
      ? await deps.store.transaction((trx) => removeDltEntity(trx, account.id, value))
      : await removeDltHeader(deps.store.db, account.id, value);
  const what = kind === "entity" ? "DLT entity ID" : "DLT header";
  if (!removed) throw new GatewayError("not_found", `${what} "${value}" is not registered for ${account.username}.`);
  await deps.store.signals.notify(DLT_CHANGED, String(account.id));
  return {
    account: account.username,
    [kind === "entity" ? "entity_id" : "header"]: value.trim().toUpperCase(),
    removed,
  };
}

export async function setDltStatusFor(deps: OperatorDeps, kind: DltKind, id: number, status: ApprovalStatus) {
  const row = await setDltStatus(deps.store.db, kind, id, status);
  const what = kind === "entity" ? "DLT entity ID" : "DLT header";
  if (!row) throw new GatewayError("not_found", `No ${what} with id ${id}.`);
  await deps.store.signals.notify(DLT_CHANGED, String(row.account_id));
  return "entity_id" in row ? describeDltEntity(row) : describeDltHeader(row);
}

export async function dltRegistrationsOf(deps: OperatorDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  const [entities, headers] = await Promise.all([
    listDltEntities(deps.store.db, account.id),
    listDltHeaders(deps.store.db, account.id),
  ]);
  return {
    account: account.username,
    entities: entities.map(describeDltEntity),
    headers: headers.map(describeDltHeader),
  };
}

export function describeDndImport(result: DndImportResult) {
  return {
    added: result.added,
    duplicates: result.duplicates,
    invalid_count: result.invalidCount,
    invalid: result.invalid,
  };
}

export async function importDndFor(
  deps: OperatorDeps,
  input: NodeJS.ReadableStream | string,
  options: { replace?: boolean } = {},
) {
  return describeDndImport(await importDnd(deps.store, input, options));
}

export async function addDndNumbers(deps: OperatorDeps, numbers: string[]) {
  return addDnd(deps.store, numbers);
}

export async function removeDndNumbers(deps: OperatorDeps, numbers: string[]) {
  return { removed: await removeDnd(deps.store.db, numbers) };
}

export async function dndStatusOf(deps: OperatorDeps, number: string) {
  const mobile = parseDndNumber(number);
  return { number: mobile, dnd: await isDnd(deps.store.db, mobile) };
}

export async function dndSummary(deps: OperatorDeps) {
  return { count: await dndCount(deps.store.db) };
}
