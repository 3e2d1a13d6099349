// Caller numbers: the `from` of a call must be one the operator approved for the account.
// Stored in E.164, so 080 4711 0000 and +91 80 4711 0000 are the same approval. Shared by the
// operator API, the CLI and the send path.
import { sql } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  accountUsername,
  NO_DETAIL,
  type PendingRequests,
  rejectionReason,
  requireAccount,
} from "../../domain/accounts/index.js";
import { type Actor, recordChange } from "../../domain/audit/index.js";
import { parseCallNumber } from "./numbers.js";

export interface CallerIdView {
  id: number;
  number: string;
  account: string;
  status: ApprovalStatus;
  /** The operator's reason for rejecting it; null unless rejected with one. */
  rejection_reason: string | null;
  created_at: string;
}

export interface CallerIdDeps {
  store: Store;
  clock: Clock;
}

/** A caller number an operator types: any valid number (see numbers.ts), answered in E.164. */
export function parseCallerNumber(raw: string): string {
  const parsed = parseCallNumber(String(raw));
  if (!parsed) {
    throw new GatewayError(
      "invalid_request",
      `"${String(raw).slice(0, 40)}" is not a valid phone number; write it with its country code, e.g. +918047110000.`,
      { field: "number" },
    );
  }
  return parsed.e164;
}

export async function isApprovedCaller(db: Db, accountId: number, e164: string): Promise<boolean> {
  const row = await db
    .selectFrom("voice_caller_ids")
    .select("id")
    .where("account_id", "=", accountId)
    .where("number", "=", e164)
    .where("status", "=", "approved")
    .executeTakeFirst();
  return row !== undefined;
}

/** Who changes caller numbers, for the audit log. */
export type CallerIdChangeDeps = CallerIdDeps & { actor: Actor };

type CallerIdRow = Awaited<ReturnType<typeof callerIdRow>>;

function callerIdRow(db: Db, accountId: number, number: string) {
  return db
    .selectFrom("voice_caller_ids")
    .selectAll()
    .where("account_id", "=", accountId)
    .where("number", "=", number)
    .executeTakeFirst();
}

/** A caller number as its audit entries hold it. */
const entryState = (row: CallerIdRow & object) => ({
  number: row.number,
  status: row.status,
  rejection_reason: row.rejection_reason,
});

/**
 * Adds a caller number to an account, with its audit entry in the same transaction: approved when
 * the operator adds it (`voice_caller_id.add`; one the account asked for, or one rejected, is
 * approved: `voice_caller_id.approve`; one approved already keeps its first approval and writes
 * nothing), `pending` when the account asks for it (`voice_caller_id.request`; asking again
 * answers it as it is and writes nothing). `created` says whether this call added it.
 */
async function addCallerId(
  deps: CallerIdChangeDeps,
  account: { id: number; username: string },
  number: string,
  status: ApprovalStatus,
) {
  return deps.store.transaction(async (trx) => {
    const before = await callerIdRow(trx, account.id, number);
    if (before && (status === "pending" || before.status === "approved")) return { created: false, row: before };
    const row = before
      ? await trx
          .updateTable("voice_caller_ids")
          .set({ status: "approved", rejection_reason: null })
          .where("id", "=", before.id)
          .returningAll()
          .executeTakeFirstOrThrow()
      : await trx
          .insertInto("voice_caller_ids")
          .values({ account_id: account.id, number, status, created_at: deps.clock.now().getTime() })
          .onConflict((oc) => oc.columns(["account_id", "number"]).doNothing())
          .returningAll()
          .executeTakeFirst();
    // Added by another request between the read and the insert (PostgreSQL): that one is recorded.
    if (!row) return { created: false, row: (await callerIdRow(trx, account.id, number))! };
    const action = before ? "approve" : status === "approved" ? "add" : "request";
    await recordChange(trx, deps, {
      action: `voice_caller_id.${action}`,
      target: `voice caller ID ${row.id}`,
      accountId: account.id,
      ...(before ? { before: { status: before.status } } : {}),
      after: entryState(row),
    });
    return { created: before === undefined, row };
  });
}

export async function approveCallerIdFor(deps: CallerIdChangeDeps, username: string, raw: string) {
  const account = await requireAccount(deps.store.db, username);
  const { created, row } = await addCallerId(deps, account, parseCallerNumber(raw), "approved");
  return { created, callerId: view(row, account.username) };
}

/** The account's own request for a caller number: pending until the operator approves it. */
export async function requestCallerId(
  deps: CallerIdChangeDeps,
  account: { id: number; username: string },
  raw: string,
) {
  const { created, row } = await addCallerId(deps, account, parseCallerNumber(raw), "pending");
  return { created, callerId: view(row, account.username) };
}

/**
 * Approves or rejects a caller number by its id; 404 when there is none. `reason` (a rejection's,
 * shown to the account) is kept only when rejected. Audited as voice_caller_id.approve or .reject.
 */
export async function setCallerIdStatus(
  deps: CallerIdDeps,
  id: number,
  status: ApprovalStatus,
  actor: Actor,
  reason: string | null = null,
) {
  const kept = status === "rejected" ? rejectionReason(reason) : null;
  const row = await deps.store.transaction(async (trx) => {
    const before = await trx.selectFrom("voice_caller_ids").select("status").where("id", "=", id).executeTakeFirst();
    const row = await trx
      .updateTable("voice_caller_ids")
      .set({ status, rejection_reason: kept })
      .where("id", "=", id)
      .returningAll()
      .executeTakeFirst();
    if (!row || !before) throw new GatewayError("not_found", `No caller number with id ${id}.`);
    const verb = status === "approved" ? "approve" : status === "rejected" ? "reject" : "set_status";
    await recordChange(
      trx,
      { clock: deps.clock, actor },
      {
        action: `voice_caller_id.${verb}`,
        target: `voice caller ID ${id}`,
        accountId: row.account_id,
        before: { status: before.status },
        after: { number: row.number, status: row.status, rejection_reason: row.rejection_reason },
      },
    );
    return row;
  });
  return view(row, await accountUsername(deps.store.db, row.account_id));
}

/** The caller numbers waiting for the operator, as part of the approval queue (admin/approvals.ts). */
export function pendingCallerIds(db: Db): PendingRequests {
  return db
    .selectFrom("voice_caller_ids")
    .select([
      sql.lit("voice_caller_id").as("kind"),
      "id",
      "account_id",
      "number as value",
      NO_DETAIL.as("detail"),
      "created_at",
    ])
    .where("status", "=", "pending");
}

export async function callerIdsOf(deps: CallerIdDeps, username: string): Promise<CallerIdView[]> {
  return callerIdsOfAccount(deps, await requireAccount(deps.store.db, username));
}

export async function callerIdsOfAccount(
  deps: CallerIdDeps,
  account: { id: number; username: string },
): Promise<CallerIdView[]> {
  const rows = await deps.store.db
    .selectFrom("voice_caller_ids")
    .selectAll()
    .where("account_id", "=", account.id)
    .orderBy("id")
    .execute();
  return rows.map((row) => view(row, account.username));
}

/** Withdraws a caller number, audited as `voice_caller_id.remove` in the same transaction; 404 when there is none. */
export async function removeCallerIdFor(deps: CallerIdChangeDeps, username: string, raw: string) {
  const account = await requireAccount(deps.store.db, username);
  const number = parseCallerNumber(raw);
  await deps.store.transaction(async (trx) => {
    const removed = await trx
      .deleteFrom("voice_caller_ids")
      .where("account_id", "=", account.id)
      .where("number", "=", number)
      .returningAll()
      .executeTakeFirst();
    if (!removed)
      throw new GatewayError("not_found", `The account ${account.username} has no caller number ${number}.`);
    await recordChange(trx, deps, {
      action: "voice_caller_id.remove",
      target: `voice caller ID ${removed.id}`,
      accountId: account.id,
      before: entryState(removed),
    });
  });
  return { account: account.username, number, removed: true };
}

function view(
  row: { id: number; number: string; status: ApprovalStatus; rejection_reason: string | null; created_at: number },
  account: string,
): CallerIdView {
  return {
    id: Number(row.id),
    number: row.number,
    account,
    status: row.status,
    rejection_reason: row.rejection_reason,
    created_at: new Date(Number(row.created_at)).toISOString(),
  };
}
