// Sender IDs (SMS headers) an account may send from; the operator approves them.
import { sql } from "kysely";
import { type Clock, isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { ApprovalStatus, SenderIdRow } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Actor, recordChange } from "../audit/index.js";
import type { PendingRequests } from "./pending-requests.js";

/** Alphanumeric headers of 3 to 11 characters (India uses 6 letters), or a numeric sender of up to 15 digits. */
const SENDER_ID = /^(?:[A-Za-z0-9]{3,11}|\d{3,15})$/;

export function normalizeSenderId(sender: string): string {
  const trimmed = sender.trim();
  if (!SENDER_ID.test(trimmed)) {
    throw new GatewayError(
      "invalid_sender_id",
      "A sender ID is 3 to 11 letters or digits (6 letters in India), or a number of up to 15 digits.",
      { field: "sender_id" },
    );
  }
  return /^\d+$/.test(trimmed) ? trimmed : trimmed.toUpperCase();
}

export async function addSenderId(
  db: Db,
  clock: Clock,
  accountId: number,
  sender: string,
  options: { approve?: boolean; note?: string | null } = {},
): Promise<SenderIdRow> {
  const normalized = normalizeSenderId(sender);
  const now = clock.now().getTime();
  const status: ApprovalStatus = options.approve ? "approved" : "pending";
  return db
    .insertInto("sender_ids")
    .values({
      account_id: accountId,
      sender: normalized,
      status,
      note: options.note ?? null,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc
        .columns(["account_id", "sender"])
        .doUpdateSet(options.approve ? { status: "approved", updated_at: now } : { updated_at: now }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * A sender ID the account asks for (v2 POST /sender-id-requests), pending, written to the audit
 * log as `sender_id.request` with who asked, as a keyword request is. One asked for before is
 * answered as it stands (an approved or rejected one stays so), with no entry: nothing changed.
 */
export async function requestSenderId(
  store: Store,
  clock: Clock,
  accountId: number,
  sender: string,
  note: string | null,
  actor: Actor,
): Promise<{ row: SenderIdRow; created: boolean }> {
  const normalized = normalizeSenderId(sender);
  return store.transaction(async (trx) => {
    const existing = await trx
      .selectFrom("sender_ids")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("sender", "=", normalized)
      .executeTakeFirst();
    if (existing) return { row: existing, created: false };
    const row = await addSenderId(trx, clock, accountId, normalized, { note });
    const after = { sender_id: row.sender, status: row.status, note: row.note };
    await recordChange(
      trx,
      { clock, actor },
      { action: "sender_id.request", target: `sender ID ${row.id}`, accountId, after },
    );
    return { row, created: true };
  });
}

/** A sender ID's status set by the operator; `reason` (a rejection's, shown to the account) is kept only when rejected. */
export async function setSenderIdStatus(
  db: Db,
  clock: Clock,
  id: number,
  status: ApprovalStatus,
  reason: string | null = null,
): Promise<SenderIdRow | undefined> {
  return db
    .updateTable("sender_ids")
    .set({ status, rejection_reason: status === "rejected" ? reason : null, updated_at: clock.now().getTime() })
    .where("id", "=", id)
    .returningAll()
    .executeTakeFirst();
}

/** One sender ID of the account; another account's id reads as unknown. */
export async function getSenderId(db: Db, accountId: number, id: number): Promise<SenderIdRow | undefined> {
  return db
    .selectFrom("sender_ids")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

export async function listSenderIds(db: Db, accountId: number, status?: ApprovalStatus): Promise<SenderIdRow[]> {
  let query = db.selectFrom("sender_ids").selectAll().where("account_id", "=", accountId);
  if (status) query = query.where("status", "=", status);
  return query.orderBy("id").execute();
}

/** The approval state of an account's sender ID, given as stored (upper case); undefined when never asked for. */
export async function senderIdStatus(db: Db, accountId: number, sender: string): Promise<ApprovalStatus | undefined> {
  const row = await db
    .selectFrom("sender_ids")
    .select("status")
    .where("account_id", "=", accountId)
    .where("sender", "=", sender)
    .executeTakeFirst();
  return row?.status;
}

/** The sender IDs waiting for the operator, as part of the approval queue. */
export function pendingSenderIds(db: Db): PendingRequests {
  return db
    .selectFrom("sender_ids")
    .select([sql.lit("sender_id").as("kind"), "id", "account_id", "sender as value", "note as detail", "created_at"])
    .where("status", "=", "pending");
}

export function describeSenderId(row: SenderIdRow) {
  return {
    id: row.id,
    sender_id: row.sender,
    status: row.status,
    note: row.note,
    rejection_reason: row.rejection_reason,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** A sender ID as the v2 API answers it: its time to the second, as every v2 time (docs/api.md). */
export function v2SenderId(row: SenderIdRow) {
  return { ...describeSenderId(row), created_at: isoUtc(new Date(row.created_at)) };
}
