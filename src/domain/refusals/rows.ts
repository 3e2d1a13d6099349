// The refusals table: the batch insert the log's writer runs, the newest-first list both routes
// and the CLI read (a cursor of the row id), and the prune by age housekeeping runs.
import type { Selectable, SelectQueryBuilder } from "kysely";
import { usernameKey } from "../../base/core/usernames.js";
import type { Database, RefusalsTable } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { recipientForms } from "../messages/index.js";
import type { NewRefusal } from "./refusal-log.js";

/**
 * The key a recipient is stored under: the last of the message list's stored forms (an Indian
 * mobile with 91, another number with +, an address with its domain in lower case), which every
 * way of writing the same number has among its forms.
 */
export function recipientKey(raw: string): string {
  const forms = recipientForms(raw);
  return forms[forms.length - 1]!.slice(0, 320);
}

/** What a recipient filter looks for: the key of each form, and the text as asked (rows written before 0068). */
export function recipientKeys(raw: string): string[] {
  const text = raw.trim();
  const bare = text.replace(/^\+/, "");
  return [...new Set([...recipientForms(text), text, bare, /^\d+$/.test(bare) ? `+${bare}` : bare])];
}

export interface RefusalFilter {
  /** One account's; null: the unauthenticated ones; undefined: everyone's. */
  accountId?: number | null;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  code?: string;
  /** One recipient, written any way (recipientKeys). */
  recipient?: string;
  /** The username a password login named, any case (the operator's filter). */
  username?: string;
  /** The broadcast (or bulk job's batch) recipients were left out of. */
  broadcastId?: string;
  jobId?: number;
}

/**
 * Writes a batch of refusals in one transaction, in their order (ids follow time): the rows
 * naming at most one recipient, each keyed (recipient_key), in one insert; a row naming several
 * (a whole send refused, rare) alone, its recipients' keys into refusal_recipients.
 */
export async function insertRefusals(store: Pick<Store, "transaction" | "insertMany">, rows: NewRefusal[]) {
  if (rows.length === 0) return;
  await store.transaction(async (trx) => {
    let run: NewRefusal[] = [];
    for (const row of rows) {
      const keys = row.recipients ? [...new Set(row.recipients.split(",").map(recipientKey))] : [];
      if (keys.length <= 1) {
        run.push({ ...row, recipient_key: keys[0] ?? null });
        continue;
      }
      await store.insertMany(trx, "refusals", run);
      run = [];
      const several = { ...row, recipient_key: null };
      const { id } = await trx.insertInto("refusals").values(several).returning("id").executeTakeFirstOrThrow();
      await trx
        .insertInto("refusal_recipients")
        .values(keys.map((key) => ({ recipient_key: key, refusal_id: Number(id) })))
        .execute();
    }
    await store.insertMany(trx, "refusals", run);
  });
}

/** Rows a page reads at most before its filters (code, recipient, times) are applied. */
export const REFUSAL_SCAN = 10_000;

/**
 * Up to `limit` refusals the filter matches, newest first, before the row `before` (a cursor),
 * and the cursor of the next page. A page reads at most REFUSAL_SCAN of the account's (or
 * everyone's) rows through the (account, id) index and filters those, so a rare match answers a
 * short page with a cursor instead of scanning a long log in one request.
 */
export async function listRefusals(db: Db, filter: RefusalFilter, limit: number, before?: number) {
  if (filter.recipient !== undefined || filter.broadcastId !== undefined) {
    return listIndexed(db, filter, limit, before);
  }
  let window = db.selectFrom("refusals").select("id");
  if (filter.accountId === null) window = window.where("account_id", "is", null);
  else if (filter.accountId !== undefined) window = window.where("account_id", "=", filter.accountId);
  if (before !== undefined) window = window.where("id", "<", before);
  const filtered =
    filter.from !== undefined || filter.to !== undefined || filter.code !== undefined || filter.username !== undefined;
  const scanned = filtered
    ? (await window.orderBy("id", "desc").limit(REFUSAL_SCAN).execute()).map((row) => Number(row.id))
    : [];
  if (filtered && scanned.length === 0) return { rows: [], next: undefined };
  let query = db.selectFrom("refusals").selectAll();
  if (filtered) {
    query = query.where("id", "<=", scanned[0]!).where("id", ">=", scanned[scanned.length - 1]!);
    if (filter.accountId === null) query = query.where("account_id", "is", null);
    else if (filter.accountId !== undefined) query = query.where("account_id", "=", filter.accountId);
  } else {
    if (filter.accountId === null) query = query.where("account_id", "is", null);
    else if (filter.accountId !== undefined) query = query.where("account_id", "=", filter.accountId);
    if (before !== undefined) query = query.where("id", "<", before);
  }
  const rows = await narrowed(query, filter)
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  if (rows.length > limit) return { rows: rows.slice(0, limit), next: Number(rows[limit - 1]!.id) };
  // The window was full: older rows are left to read, from the window's oldest on.
  const next = filtered && scanned.length === REFUSAL_SCAN ? scanned[scanned.length - 1] : undefined;
  return { rows, next };
}

/**
 * A page of the refusals of one recipient or one broadcast, read through their index
 * (refusals_by_recipient, refusal_recipients, refusals_by_broadcast): a number's refusals are
 * few, a broadcast's left-out recipients as many as it left out, and neither scans the log.
 */
async function listIndexed(db: Db, filter: RefusalFilter, limit: number, before?: number) {
  const rows = await indexedRefusalsQuery(db, filter, limit + 1, before).execute();
  if (rows.length > limit) return { rows: rows.slice(0, limit), next: Number(rows[limit - 1]!.id) };
  return { rows, next: undefined };
}

/** The statement of listIndexed (its plans are checked on both engines). */
export function indexedRefusalsQuery(db: Db, filter: RefusalFilter, rows: number, before?: number) {
  let query = db.selectFrom("refusals").selectAll();
  if (filter.recipient !== undefined) {
    const keys = recipientKeys(filter.recipient);
    // The ids of both indexes, one list: an OR of the two would read the log by id on PostgreSQL.
    query = query.where("id", "in", (eb) =>
      eb
        .selectFrom("refusals as keyed")
        .select("keyed.id")
        .where("keyed.recipient_key", "in", keys)
        .unionAll(eb.selectFrom("refusal_recipients").select("refusal_id as id").where("recipient_key", "in", keys)),
    );
  }
  if (filter.broadcastId !== undefined) query = query.where("broadcast_id", "=", filter.broadcastId);
  if (filter.jobId !== undefined) query = query.where("job_id", "=", filter.jobId);
  if (filter.accountId === null) query = query.where("account_id", "is", null);
  else if (filter.accountId !== undefined) query = query.where("account_id", "=", filter.accountId);
  if (before !== undefined) query = query.where("id", "<", before);
  return narrowed(query, filter).orderBy("id", "desc").limit(rows);
}

type RefusalQuery = SelectQueryBuilder<Database, "refusals", Selectable<RefusalsTable>>;

/** The filters both reads apply to the rows they found: the dates, the code and the username. */
function narrowed(query: RefusalQuery, filter: RefusalFilter): RefusalQuery {
  let narrow = query;
  if (filter.from !== undefined) narrow = narrow.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) narrow = narrow.where("created_at", "<", filter.to);
  if (filter.code !== undefined) narrow = narrow.where("code", "=", filter.code);
  if (filter.username !== undefined) narrow = whereUsername(narrow, filter.username);
  return narrow;
}

/** Rows whose login named `username`, case aside as logins are (A to Z). */
function whereUsername<Q extends SelectQueryBuilder<Database, "refusals", Selectable<RefusalsTable>>>(
  query: Q,
  username: string,
): Q {
  return query.where((eb) => eb(eb.fn<string>("lower", ["username"]), "=", usernameKey(username))) as Q;
}

/** Removes up to `batch` refusals written before `cutoff`, the oldest first; answers how many went. */
export async function pruneRefusals(store: Pick<Store, "transaction">, cutoff: number, batch: number) {
  return store.transaction(async (trx) => {
    const old = await trx
      .selectFrom("refusals")
      .select("id")
      .where("created_at", "<", cutoff)
      .orderBy("created_at")
      .limit(batch)
      .execute();
    if (old.length === 0) return 0;
    await trx
      .deleteFrom("refusal_recipients")
      .where(
        "refusal_id",
        "in",
        old.map((row) => row.id),
      )
      .execute();
    await trx
      .deleteFrom("refusals")
      .where(
        "id",
        "in",
        old.map((row) => row.id),
      )
      .execute();
    return old.length;
  });
}

/** A cursor: the last row id of a page, opaque to the caller. */
export function encodeRefusalCursor(id: number): string {
  return Buffer.from(`r1:${id}`, "utf8").toString("base64url");
}

export function decodeRefusalCursor(cursor: string): number | undefined {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(cursor)) return undefined;
  const match = /^r1:(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  return match ? Number(match[1]) : undefined;
}
