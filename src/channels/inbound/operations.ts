// Operator actions on inbound SMS, shared by the operator API and the CLI: virtual numbers,
// keyword approval, and the suppression lists. Accounts are named by username.

import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { pageMeta } from "../../base/http/query-params.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Store } from "../../base/store/store.js";
import { rejectionReason, requireAccount, usernamesOf } from "../../domain/accounts/index.js";
import { type Actor, recordChange } from "../../domain/audit/index.js";
import { describeKeyword, getKeyword, listKeywords, setKeywordStatus } from "./keywords.js";
import { assignInboundNumber, listInboundNumbers, normalizePhoneNumber, removeInboundNumber } from "./numbers.js";
import { listSuppressions, parseSuppressedNumber, suppress, suppressionsChanged, unsuppress } from "./suppression.js";

export interface InboundOperatorDeps {
  store: Store;
  clock: Clock;
  /** Who acts: each change is recorded in the audit log, in its own transaction. */
  actor: Actor;
}

/** What the lists take: no actor, they change nothing. */
export type InboundReadDeps = Omit<InboundOperatorDeps, "actor">;

const iso = (ms: number) => new Date(ms).toISOString();

export async function assignNumberFor(deps: InboundOperatorDeps, username: string, number: string) {
  const account = await requireAccount(deps.store.db, username);
  const { view, created } = await deps.store.transaction(async (trx) => {
    const assigned = await assignInboundNumber(trx, deps.clock, account.id, number);
    if (assigned.created) {
      await recordChange(trx, deps, {
        action: "inbound_number.assign",
        target: `inbound number ${assigned.view.number}`,
        accountId: account.id,
        after: assigned.view,
      });
    }
    return assigned;
  });
  return { created, number: { ...view, account: account.username } };
}

export async function numbersOf(deps: InboundReadDeps, username: string) {
  const account = await requireAccount(deps.store.db, username);
  return (await listInboundNumbers(deps.store.db, account.id)).map((view) => ({ ...view, account: account.username }));
}

export async function removeNumberFor(deps: InboundOperatorDeps, username: string, number: string) {
  const account = await requireAccount(deps.store.db, username);
  const normalized = normalizePhoneNumber(number);
  await deps.store.transaction(async (trx) => {
    if (!(await removeInboundNumber(trx, account.id, number))) {
      throw new GatewayError("not_found", `The account ${account.username} has no inbound number ${number}.`);
    }
    await recordChange(trx, deps, {
      action: "inbound_number.remove",
      target: `inbound number ${normalized}`,
      accountId: account.id,
      before: { number: normalized },
    });
  });
  return { account: account.username, number: normalized, removed: true };
}

export async function keywordsOf(
  deps: InboundReadDeps,
  username: string,
  options: { status?: ApprovalStatus | undefined; page?: number | undefined; perPage?: number | undefined } = {},
) {
  const account = await requireAccount(deps.store.db, username);
  const page = options.page ?? 1;
  const perPage = options.perPage ?? 100;
  const { rows, total } = await listKeywords(deps.store.db, account.id, { status: options.status, page, perPage });
  return {
    keywords: rows.map((row) => ({ ...describeKeyword(row, iso), account: account.username })),
    meta: pageMeta({ page, perPage }, total),
  };
}

/** Sets a keyword's status by its id; given `username`, one of another account is refused as unknown. */
export async function setKeywordStatusFor(
  deps: InboundOperatorDeps,
  id: number,
  status: ApprovalStatus,
  username?: string,
  /** A rejection's reason, shown to the account (rejectionReason). */
  reason: string | null = null,
) {
  const db = deps.store.db;
  const kept = rejectionReason(reason);
  if (username !== undefined) {
    const account = await requireAccount(db, username);
    if (!(await getKeyword(db, account.id, id))) {
      throw new GatewayError("not_found", `No keyword with id ${id} in account ${account.username}.`);
    }
  }
  const row = await deps.store.transaction(async (trx) => {
    const before = await trx
      .selectFrom("keywords")
      .select(["account_id", "status"])
      .where("id", "=", id)
      .executeTakeFirst();
    const after = await setKeywordStatus(trx, deps.clock, id, status, kept);
    if (!before || !after) throw new GatewayError("not_found", `No keyword with id ${id}.`);
    const verb = status === "approved" ? "approve" : status === "rejected" ? "reject" : "set_status";
    await recordChange(trx, deps, {
      action: `keyword.${verb}`,
      target: `keyword ${id}`,
      accountId: before.account_id,
      before: { status: before.status },
      after: { status: after.status, keyword: after.key, rejection_reason: after.rejection_reason },
    });
    return after;
  });
  return { ...describeKeyword(row, iso), account: (await usernamesOf(db, [row.account_id])).get(row.account_id) };
}

export async function suppressionsOf(deps: InboundReadDeps, username: string, page: number, perPage: number) {
  const account = await requireAccount(deps.store.db, username);
  const { rows, total } = await listSuppressions(deps.store.db, account.id, { page, perPage });
  return { suppressions: rows, meta: pageMeta({ page, perPage }, total) };
}

/** Refuses the whole list when a number is not a phone number, like the DND calls. */
function parseNumbers(raw: readonly string[]): string[] {
  const numbers: string[] = [];
  const invalid: string[] = [];
  for (const value of raw) {
    try {
      numbers.push(parseSuppressedNumber(value));
    } catch {
      invalid.push(String(value).slice(0, 40));
    }
  }
  if (invalid.length > 0) {
    throw new GatewayError("invalid_request", `Not a phone number: ${invalid.slice(0, 5).join(", ")}.`, { invalid });
  }
  return [...new Set(numbers)];
}

export async function addSuppressionsFor(
  deps: InboundOperatorDeps,
  username: string,
  raw: readonly string[],
  reason = "operator",
) {
  const account = await requireAccount(deps.store.db, username);
  const numbers = parseNumbers(raw);
  const added = await deps.store.transaction(async (trx) => {
    const added = await suppress(trx, deps.clock, account.id, numbers, reason);
    if (added > 0) {
      await recordChange(trx, deps, {
        action: "suppressions.add",
        target: `suppression list of ${account.username}`,
        accountId: account.id,
        after: { added, reason, numbers: numbers.length <= 20 ? numbers : numbers.slice(0, 20) },
      });
    }
    return added;
  });
  if (added > 0) await suppressionsChanged(deps.store, account.id);
  return { account: account.username, added, duplicates: raw.length - added };
}

export async function removeSuppressionsFor(deps: InboundOperatorDeps, username: string, raw: readonly string[]) {
  const account = await requireAccount(deps.store.db, username);
  const numbers = parseNumbers(raw);
  const removed = await deps.store.transaction(async (trx) => {
    const removed = await unsuppress(trx, account.id, numbers);
    if (removed > 0) {
      await recordChange(trx, deps, {
        action: "suppressions.remove",
        target: `suppression list of ${account.username}`,
        accountId: account.id,
        before: { removed, numbers: numbers.length <= 20 ? numbers : numbers.slice(0, 20) },
      });
    }
    return removed;
  });
  if (removed > 0) await suppressionsChanged(deps.store, account.id);
  return { account: account.username, removed };
}
