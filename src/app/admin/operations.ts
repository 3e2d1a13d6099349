// Operator actions, shared by the operator API and the CLI so both behave the same.

import type { FastifyRequest } from "fastify";
import type { Clock } from "../../base/core/clock.js";
import { isWallet, WALLETS, type Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  addDltEntity,
  addDltHeader,
  addDnd,
  approvalBefore,
  createTemplate,
  DLT_CHANGED,
  type DndImportResult,
  describeAccount,
  describeDltEntity,
  describeDltHeader,
  describeTemplate,
  dltChanged,
  dndCount,
  getAccount,
  getTemplate,
  importDnd,
  isDnd,
  listDltEntities,
  listDltHeaders,
  listTemplates,
  markupPercent,
  type NewTemplateInput,
  parseDndNumber,
  pricedBy,
  rejectionReason,
  removeDltEntity,
  removeDltHeader,
  removeDnd,
  requireAccount,
  setDltStatus,
  setTemplateStatus,
  subAccountsBelowParent,
  TEMPLATES_CHANGED,
  usernamesOf,
  walletCredits,
} from "../../domain/accounts/index.js";
import { type Actor, recordChange } from "../../domain/audit/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { readinessOf } from "./readiness.js";

export interface OperatorDeps {
  store: Store;
  clock: Clock;
  /** The operator's DLT_CHAIN_REQUIRED, for the account view's readiness (off when absent). */
  dltChainRequired?: boolean;
  /** The operator's DLT_TEMPLATES_ALL_ROUTES, for the account view's readiness (off when absent). */
  dltTemplatesAllRoutes?: boolean;
  /** The operator's own TM ID (DLT_TM_ID), shown last of every entity's chain (carriedTmChain). */
  dltTmId?: string | undefined;
}

/** What an action that changes something takes besides: who is acting, for the audit log. */
export type ChangeDeps = OperatorDeps & { actor: Actor };

/** The deps of a change made through `request`: its caller is who acts. */
export function changeDeps(deps: OperatorDeps, request: FastifyRequest): ChangeDeps {
  return { store: deps.store, clock: deps.clock, dltTmId: deps.dltTmId, actor: actorOf(request) };
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
    throw new GatewayError("invalid_request", `Unknown wallet "${value}"; use ${WALLETS.join(", ")}.`, {
      field: "wallet",
    });
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
  const now = deps.clock.now().getTime();
  const [balances, readiness, parent, own, below] = await Promise.all([
    walletCredits(deps.store.db, account.id),
    readinessOf(deps.store.db, account, {
      dltChainRequired: deps.dltChainRequired === true,
      dltTemplatesAllRoutes: deps.dltTemplatesAllRoutes === true,
    }),
    account.parent_id === null ? undefined : getAccount(deps.store.db, account.parent_id),
    subAccountsBelowParent(deps.store.db, now, { ids: [account.id] }),
    subAccountsBelowParent(deps.store.db, now, { under: account.id }),
  ]);
  return {
    ...describeAccount(account, balances),
    price_card: pricedBy(account),
    parent: parent?.username ?? null,
    markup_percent: markupPercent(account.markup_bp),
    // Decision 0168: its own card below its parent's price, and the sub-accounts below it whose is.
    below_parent: own[0] ?? null,
    subaccounts_below_parent: below,
    ...readiness,
  };
}

// The SMS rule set: templates, DLT registrations, the DND registry. Each change of templates or
// DLT registrations is announced so that caches of them (content scrubbing) drop the account.

export async function addTemplateFor(deps: ChangeDeps, input: { username: string } & NewTemplateInput) {
  const { username, ...template } = input;
  const account = await requireAccount(deps.store.db, username);
  const row = await deps.store.transaction(async (trx) => {
    const row = await createTemplate(trx, deps.clock, account.id, template);
    const after = describeTemplate(row);
    await recordChange(trx, deps, {
      action: "template.add",
      target: `template ${row.id}`,
      accountId: account.id,
      after,
    });
    return row;
  });
  await dltChanged(deps.store, TEMPLATES_CHANGED, account.id);
  return { ...describeTemplate(row), account: account.username };
}

/** Sets a template's status by its id, as setSenderIdStatusFor does (the account checked when named). */
export async function setTemplateStatusFor(
  deps: ChangeDeps,
  id: number,
  status: ApprovalStatus,
  username?: string,
  /** A rejection's reason, shown to the account (rejectionReason). */
  reason: string | null = null,
) {
  const db = deps.store.db;
  if (username !== undefined) {
    const account = await requireAccount(db, username);
    if (!(await getTemplate(db, account.id, id))) {
      throw new GatewayError("not_found", `No template with id ${id} in account ${account.username}.`);
    }
  }
  const row = await deps.store.transaction(async (trx) => {
    const before = await approvalBefore(trx, "templates", id);
    const row = await setTemplateStatus(trx, deps.clock, id, status, rejectionReason(reason));
    if (!row || !before) throw new GatewayError("not_found", `No template with id ${id}.`);
    await recordDecision(trx, deps, "template", `template ${id}`, before, describeTemplate(row));
    return row;
  });
  await dltChanged(deps.store, TEMPLATES_CHANGED, row.account_id);
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

/** The audit entry of an approval's decision: `<thing>.approve` or `.reject`, its status before and the row after. */
export async function recordDecision(
  trx: Db,
  deps: ChangeDeps,
  thing: string,
  target: string,
  before: { account_id: number; status: string },
  after: { status: string },
) {
  const action = `${thing}.${after.status === "approved" ? "approve" : after.status === "rejected" ? "reject" : "set_status"}`;
  await recordChange(trx, deps, {
    action,
    target,
    accountId: before.account_id,
    before: { status: before.status },
    after,
  });
}

export async function addDltFor(deps: ChangeDeps, username: string, kind: DltKind, value: string) {
  const account = await requireAccount(deps.store.db, username);
  const described = await deps.store.transaction(async (trx) => {
    const described =
      kind === "entity"
        ? describeDltEntity(await addDltEntity(trx, deps.clock, account.id, value), deps.dltTmId)
        : describeDltHeader(await addDltHeader(trx, deps.clock, account.id, value));
    const target = `DLT ${kind} ${described.id}`;
    await recordChange(trx, deps, { action: `dlt_${kind}.add`, target, accountId: account.id, after: described });
    return described;
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return { ...described, account: account.username };
}

export async function removeDltFor(deps: ChangeDeps, username: string, kind: DltKind, value: string) {
  const account = await requireAccount(deps.store.db, username);
  const what = kind === "entity" ? "DLT entity ID" : "DLT header";
  const removed = await deps.store.transaction(async (trx) => {
    const removed =
      kind === "entity" ? await removeDltEntity(trx, account.id, value) : await removeDltHeader(trx, account.id, value);
    if (!removed) throw new GatewayError("not_found", `${what} "${value}" is not registered for ${account.username}.`);
    const target = `DLT ${kind} ${value.trim().toUpperCase()}`;
    await recordChange(trx, deps, { action: `dlt_${kind}.remove`, target, accountId: account.id, before: { value } });
    return removed;
  });
  await dltChanged(deps.store, DLT_CHANGED, account.id);
  return {
    account: account.username,
    [kind === "entity" ? "entity_id" : "header"]: value.trim().toUpperCase(),
    removed,
  };
}

export async function setDltStatusFor(
  deps: ChangeDeps,
  kind: DltKind,
  id: number,
  status: ApprovalStatus,
  /** A rejection's reason, shown to the account (rejectionReason). */
  reason: string | null = null,
) {
  const what = kind === "entity" ? "DLT entity ID" : "DLT header";
  const row = await deps.store.transaction(async (trx) => {
    const before = await approvalBefore(trx, kind === "entity" ? "dlt_entities" : "dlt_headers", id);
    const row = await setDltStatus(trx, kind, id, status, rejectionReason(reason));
    if (!row || !before) throw new GatewayError("not_found", `No ${what} with id ${id}.`);
    const after = "entity_id" in row ? describeDltEntity(row, deps.dltTmId) : describeDltHeader(row);
    await recordDecision(trx, deps, `dlt_${kind}`, `DLT ${kind} ${id}`, before, after);
    return row;
  });
  await dltChanged(deps.store, DLT_CHANGED, row.account_id);
  return "entity_id" in row ? describeDltEntity(row, deps.dltTmId) : describeDltHeader(row);
}

export async function dltRegistrationsOf(deps: OperatorDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  const [entities, headers] = await Promise.all([
    listDltEntities(deps.store.db, account.id),
    listDltHeaders(deps.store.db, account.id),
  ]);
  return {
    account: account.username,
    entities: entities.map((row) => describeDltEntity(row, deps.dltTmId)),
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
  deps: ChangeDeps,
  input: NodeJS.ReadableStream | string,
  options: { replace?: boolean; maxBytes?: number; tooLarge?: () => Error } = {},
) {
  return describeDndImport(await importDnd(deps.store, deps, input, options));
}

export async function addDndNumbers(deps: ChangeDeps, numbers: string[]) {
  return addDnd(deps.store, deps, numbers);
}

export async function removeDndNumbers(deps: ChangeDeps, numbers: string[]) {
  return { removed: await removeDnd(deps.store, deps, numbers) };
}

export async function dndStatusOf(deps: OperatorDeps, number: string) {
  const mobile = parseDndNumber(number);
  return { number: mobile, dnd: await isDnd(deps.store.db, mobile) };
}

export async function dndSummary(deps: OperatorDeps) {
  return { count: await dndCount(deps.store.db) };
}
