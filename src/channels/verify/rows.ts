// The `verifications` table: each change of state is one conditional statement on the row, so
// that two checks (or a check and a resend) racing on one verification never both win.
import { type Insertable, type Selectable, sql } from "kysely";
import type { VerificationStatus, VerificationsTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";

export type VerificationRow = Selectable<VerificationsTable>;

export async function insertVerification(db: Db, row: Insertable<VerificationsTable>): Promise<void> {
  await db.insertInto("verifications").values(row).execute();
}

/** A start its channel refused: the row goes, as if never started (nothing was charged). */
export async function deleteVerification(db: Db, id: string): Promise<void> {
  await db.deleteFrom("verifications").where("id", "=", id).execute();
}

export async function findVerification(db: Db, accountId: number, id: string): Promise<VerificationRow | undefined> {
  return db
    .selectFrom("verifications")
    .selectAll()
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .executeTakeFirst();
}

/** A send of the code (start or resend) was accepted: the message that carries it. */
export async function recordSend(
  db: Db,
  id: string,
  send: { messageId: string; channel: string; channels: string; at: number },
): Promise<void> {
  await db
    .updateTable("verifications")
    .set({ message_id: send.messageId, channel: send.channel, channels: send.channels, last_sent_at: send.at })
    .where("id", "=", id)
    .execute();
}

/** Swaps a pending verification's code `from` → `to`; false when it is no longer pending with `from`. */
export async function replaceCode(
  db: Db,
  id: string,
  from: { hash: string; sealed: string },
  to: { hash: string; sealed: string },
): Promise<boolean> {
  const result = await db
    .updateTable("verifications")
    .set({ code_hash: to.hash, code_sealed: to.sealed })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("code_hash", "=", from.hash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Moves a pending, unexpired verification whose code is still `codeHash` to approved; false when another did first. */
export async function approve(
  db: Db,
  id: string,
  codeHash: string,
  now: number,
  maxAttempts: number,
): Promise<boolean> {
  const result = await db
    .updateTable("verifications")
    .set({ status: "approved", done_at: now, code_sealed: null })
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("code_hash", "=", codeHash)
    .where("expires_at", ">", now)
    .where("attempts", "<", maxAttempts)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Counts one wrong code; the last allowed one denies it. Undefined when it was no longer pending. */
export async function countWrongCode(
  db: Db,
  id: string,
  now: number,
  maxAttempts: number,
): Promise<{ attempts: number; status: VerificationStatus } | undefined> {
  const denied = maxAttempts - 1;
  return db
    .updateTable("verifications")
    .set((eb) => ({
      attempts: eb("attempts", "+", 1),
      status: sql<VerificationStatus>`case when attempts >= ${denied} then 'denied' else 'pending' end`,
      done_at: sql<number | null>`case when attempts >= ${denied} then cast(${now} as bigint) else null end`,
      code_sealed: sql<string | null>`case when attempts >= ${denied} then null else code_sealed end`,
    }))
    .where("id", "=", id)
    .where("status", "=", "pending")
    .where("expires_at", ">", now)
    .where("attempts", "<", maxAttempts)
    .returning(["attempts", "status"])
    .executeTakeFirst();
}

/** Ends pending verifications past their expiry (every account's, one account's, or one); returns those it ended. */
export async function expireDue(
  db: Db,
  now: number,
  only?: { accountId: number; id?: string },
): Promise<VerificationRow[]> {
  let query = db
    .updateTable("verifications")
    .set({ status: "expired", done_at: now, code_sealed: null })
    .where("status", "=", "pending")
    .where("expires_at", "<=", now);
  if (only) query = query.where("account_id", "=", only.accountId);
  if (only?.id) query = query.where("id", "=", only.id);
  return query.returningAll().execute();
}

export async function cancelPending(db: Db, accountId: number, id: string, now: number): Promise<boolean> {
  const result = await db
    .updateTable("verifications")
    .set({ status: "cancelled", done_at: now, code_sealed: null })
    .where("id", "=", id)
    .where("account_id", "=", accountId)
    .where("status", "=", "pending")
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Starts since `since` whose `column` is `value` (a recipient, a client address), and the oldest of them (for Retry-After). */
export async function startsSince(
  db: Db,
  accountId: number,
  column: "recipient" | "client_ip",
  value: string,
  since: number,
): Promise<{ count: number; oldest: number | null }> {
  const row = await db
    .selectFrom("verifications")
    .select((eb) => [eb.fn.countAll<number>().as("count"), eb.fn.min("created_at").as("oldest")])
    .where("account_id", "=", accountId)
    .where(column, "=", value)
    .where("created_at", ">", since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

/** The verifications named, each with its sealed code (null once final) and status; a missing id is absent. */
export async function sealedCodes(
  db: Db,
  ids: readonly string[],
): Promise<Map<string, { sealed: string | null; status: VerificationStatus }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom("verifications")
    .select(["id", "code_sealed", "status"])
    .where("id", "in", [...ids])
    .execute();
  return new Map(rows.map((row) => [row.id, { sealed: row.code_sealed, status: row.status }]));
}

export interface VerificationFilter {
  accountId: number;
  status?: VerificationStatus;
  recipient?: string;
  from?: number;
  to?: number;
}

/** Newest first, `limit` rows before the id `before`; `next` is the last id when more follow. */
export async function listVerifications(
  db: Db,
  filter: VerificationFilter,
  limit: number,
  before?: string,
): Promise<{ rows: VerificationRow[]; next?: string }> {
  let query = db.selectFrom("verifications").selectAll().where("account_id", "=", filter.accountId);
  if (filter.status) query = query.where("status", "=", filter.status);
  if (filter.recipient) query = query.where("recipient", "=", filter.recipient);
  if (filter.from !== undefined) query = query.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) query = query.where("created_at", "<", filter.to);
  if (before) query = query.where("id", "<", before);
  const rows = await query
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  if (rows.length <= limit) return { rows };
  const page = rows.slice(0, limit);
  return { rows: page, next: page[page.length - 1]!.id };
}
