// Idempotency-Key support for sends: a retried request with the same key and body gets the
// first answer again, with no second message or charge; the same key with another body is a 409.
import { createHash } from "node:crypto";
import { GatewayError } from "../../base/core/errors.js";
import type { Db } from "../../base/store/store.js";
import type { AcceptedSend } from "./send-order.js";

/**
 * What an accepted send stores under its key: the send and its family's context, from which the
 * family makes its answer again for a retry (the answer itself would need the family's code in
 * the transaction, which may run in another thread).
 */
export interface StoredSend {
  send: AcceptedSend;
  context: unknown;
}

export function storedSendResponse(send: AcceptedSend, context: unknown): string {
  return JSON.stringify({ send, context: context ?? null } satisfies StoredSend);
}

/** Whether a stored answer is a StoredSend (rows stored before it held the formatted answer). */
export function isStoredSend(stored: unknown): stored is StoredSend {
  return (
    typeof stored === "object" &&
    stored !== null &&
    "send" in stored &&
    "context" in stored &&
    Object.keys(stored).length === 2
  );
}

const KEY = /^[\x21-\x7e]{1,255}$/;

export function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return undefined;
  if (!KEY.test(value)) {
    throw new GatewayError("invalid_request", "Idempotency-Key must be 1 to 255 visible ASCII characters.");
  }
  return value;
}

/** The request's identity: its route and its body with object members sorted (JSON gives them no order). */
export function requestHash(route: string, body: unknown): string {
  const canonical = JSON.stringify(body ?? null, (_name, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
  return createHash("sha256").update(route).update("\0").update(canonical).digest("hex");
}

/**
 * The answer stored while a send whose answer is not known yet (a synchronous upstream call)
 * holds its key; a retry meanwhile is told to wait.
 */
export const PENDING_ANSWER = "";

/**
 * The stored answer for a key, or undefined; throws when the key was used for another request,
 * or (409 `conflict`) while the first request is still in progress.
 */
export async function storedAnswer(db: Db, accountId: number, key: string, hash: string): Promise<unknown | undefined> {
  const row = await db
    .selectFrom("idempotency_keys")
    .select(["request_hash", "response"])
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .executeTakeFirst();
  if (!row) return undefined;
  if (row.request_hash !== hash) throw new GatewayError("idempotency_conflict");
  if (row.response === PENDING_ANSWER) {
    throw new GatewayError("conflict", "A request with this Idempotency-Key is in progress; retry it shortly.");
  }
  return JSON.parse(row.response);
}

/**
 * Claims `key` for a send inside its transaction, storing `response` as the answer (PENDING_ANSWER
 * while it is not known yet); false when the key is already held, by this request or another.
 * Every family claims its keys here.
 */
export async function claimIdempotencyKey(
  trx: Db,
  claim: { accountId: number; key: string; requestHash: string; response: string; now: number },
): Promise<boolean> {
  const claimed = await trx
    .insertInto("idempotency_keys")
    .values({
      account_id: claim.accountId,
      key: claim.key,
      request_hash: claim.requestHash,
      response: claim.response,
      created_at: claim.now,
    })
    .onConflict((oc) => oc.columns(["account_id", "key"]).doNothing())
    .returning("key")
    .executeTakeFirst();
  return claimed !== undefined;
}

/** Stores the answer of a send that claimed `key` with PENDING_ANSWER, once it is known. */
export async function storeIdempotentAnswer(trx: Db, accountId: number, key: string, answer: string): Promise<void> {
  await trx
    .updateTable("idempotency_keys")
    .set({ response: answer })
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .execute();
}

/** Frees a key held by a send that ended without an answer (refused upstream, or its process died). */
export async function forgetPendingKey(trx: Db, accountId: number, key: string): Promise<void> {
  await trx
    .deleteFrom("idempotency_keys")
    .where("account_id", "=", accountId)
    .where("key", "=", key)
    .where("response", "=", PENDING_ANSWER)
    .execute();
}

/** Forgets the keys claimed before `createdBefore` (housekeeping keeps them a day). */
export async function pruneIdempotencyKeys(db: Db, createdBefore: number): Promise<void> {
  await db.deleteFrom("idempotency_keys").where("created_at", "<", createdBefore).execute();
}
