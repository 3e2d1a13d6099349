// The sessions a user can see and end (issue 42, item 5; decision 0127): their own signed-in
// sessions (device, address, last use), one of them or every other ended; an owner or operator
// admin ends all of a user's. Every ending is in the audit log.
import { createHash } from "node:crypto";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../audit/index.js";

/** Whose sessions: an account's owner login (userId null) or one of its users. */
export interface SessionOwner {
  accountId: number;
  userId: number | null;
  /** For the audit entry's target: the user's login (the username for the owner). */
  login: string;
}

/** A session as its user sees it; `current` is the one the request came with. */
export async function listSessions(store: Store, owner: SessionOwner, currentId: number | undefined) {
  let query = store.db
    .selectFrom("console_sessions")
    .select(["id", "address", "user_agent", "created_at", "last_seen_at", "expires_at"])
    .where("account_id", "=", owner.accountId)
    // An operator's read-only views of the account are the operator's, not the account's.
    .where("viewer_account_id", "is", null);
  query = owner.userId === null ? query.where("user_id", "is", null) : query.where("user_id", "=", owner.userId);
  const rows = await query.orderBy("last_seen_at", "desc").orderBy("id", "desc").execute();
  return rows.map((row) => ({
    id: row.id,
    device: row.user_agent,
    address: row.address,
    signed_in_at: isoUtc(new Date(row.created_at)),
    last_used_at: isoUtc(new Date(row.last_seen_at)),
    expires_at: isoUtc(new Date(row.expires_at)),
    current: row.id === currentId,
  }));
}

/**
 * Ends sessions of `owner`: the one `only` names (404 when it is not theirs), or all of them but
 * `except` (the caller's own). Returns how many ended.
 */
export async function endSessions(
  store: Store,
  who: Audited,
  owner: SessionOwner,
  which: { only: number } | { except?: number | undefined },
): Promise<number> {
  return store.transaction(async (trx) => {
    let query = trx
      .deleteFrom("console_sessions")
      .where("account_id", "=", owner.accountId)
      .where("viewer_account_id", "is", null);
    query = owner.userId === null ? query.where("user_id", "is", null) : query.where("user_id", "=", owner.userId);
    if ("only" in which) query = query.where("id", "=", which.only);
    else if (which.except !== undefined) query = query.where("id", "!=", which.except);
    const ids = (await query.returning("id").execute()).map((row) => Number(row.id)).sort((a, b) => a - b);
    const ended = ids.length;
    if ("only" in which && ended === 0) throw new GatewayError("not_found", `No session ${which.only} of yours.`);
    if (ended > 0) {
      await recordChange(trx, who, {
        action: "session.end",
        target: `sessions of ${owner.login}`,
        accountId: owner.accountId,
        // The sessions there were (their ids, as GET /api/v2/sessions lists them).
        before: { sessions: ids },
        after: "only" in which ? { session_id: which.only } : { ended, kept: which.except ?? null },
      });
    }
    return ended;
  });
}

/**
 * After `owner` changed their own password (`passwordHash`, as stored): every other session of
 * theirs is ended, and `keep` (the session the change came with) is stamped with the new
 * credential, so it stays signed in while the stamp ends any session missed here. Run in the
 * change's transaction; answers how many ended.
 */
export async function keepOnlySession(
  trx: Db,
  owner: Omit<SessionOwner, "login">,
  keep: number | undefined,
  passwordHash: string,
): Promise<number> {
  const ended = await endLoginSessions(trx, owner, keep);
  if (keep !== undefined) {
    const stamp = createHash("sha256").update(passwordHash).digest("hex");
    await trx.updateTable("console_sessions").set({ credential_stamp: stamp }).where("id", "=", keep).execute();
  }
  return ended;
}

/**
 * Ends every console session of `owner` but `keep` (the one the change came with, if any), in the
 * caller's transaction, unrecorded (the change's own audit entry counts them): a change of the
 * login's credentials (its password, its second factor turned on or reset). An operator's views
 * of the account are the operator's and stay. Answers how many ended.
 */
export async function endLoginSessions(
  trx: Db,
  owner: Omit<SessionOwner, "login">,
  keep: number | undefined,
): Promise<number> {
  let query = trx
    .deleteFrom("console_sessions")
    .where("account_id", "=", owner.accountId)
    .where("viewer_account_id", "is", null);
  query = owner.userId === null ? query.where("user_id", "is", null) : query.where("user_id", "=", owner.userId);
  if (keep !== undefined) query = query.where("id", "!=", keep);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}
