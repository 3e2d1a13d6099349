// The refusals table: the batch insert the log's writer runs, the newest-first list both routes
// and the CLI read (a cursor of the row id), and the prune by age housekeeping runs.
import { sql } from "kysely";
import type { Db, Store } from "../../base/store/store.js";
import type { NewRefusal } from "./refusal-log.js";

export interface RefusalFilter {
  /** One account's; null: the unauthenticated ones; undefined: everyone's. */
  accountId?: number | null;
  /** Epoch ms, inclusive. */
  from?: number;
  /** Epoch ms, exclusive. */
  to?: number;
  code?: string;
  /** One recipient as asked (with or without a leading +). */
  recipient?: string;
}

/** Writes a batch of refusals in one transaction. */
export async function insertRefusals(store: Pick<Store, "transaction" | "insertMany">, rows: NewRefusal[]) {
  if (rows.length === 0) return;
  await store.transaction((trx) => store.insertMany(trx, "refusals", rows));
}

const likeText = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Rows a page reads at most before its filters (code, recipient, times) are applied. */
export const REFUSAL_SCAN = 10_000;

/**
 * Up to `limit` refusals the filter matches, newest first, before the row `before` (a cursor),
 * and the cursor of the next page. A page reads at most REFUSAL_SCAN of the account's (or
 * everyone's) rows through the (account, id) index and filters those, so a rare match answers a
 * short page with a cursor instead of scanning a long log in one request.
 */
export async function listRefusals(db: Db, filter: RefusalFilter, limit: number, before?: number) {
  let window = db.selectFrom("refusals").select("id");
  if (filter.accountId === null) window = window.where("account_id", "is", null);
  else if (filter.accountId !== undefined) window = window.where("account_id", "=", filter.accountId);
  if (before !== undefined) window = window.where("id", "<", before);
  const filtered =
    filter.from !== undefined || filter.to !== undefined || filter.code !== undefined || filter.recipient !== undefined;
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
  if (filter.from !== undefined) query = query.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) query = query.where("created_at", "<", filter.to);
  if (filter.code !== undefined) query = query.where("code", "=", filter.code);
  if (filter.recipient !== undefined) {
    const bare = filter.recipient.replace(/^\+/, "");
    const forms = [...new Set([filter.recipient, bare, /^\d+$/.test(bare) ? `+${bare}` : bare])];
    query = query.where((eb) =>
      eb.or(
        forms.map(
          (form) => sql<boolean>`(',' || ${eb.ref("recipients")} || ',') like ${`%,${likeText(form)},%`} escape '\\'`,
        ),
      ),
    );
  }
  const rows = await query
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();
  if (rows.length > limit) return { rows: rows.slice(0, limit), next: Number(rows[limit - 1]!.id) };
  // The window was full: older rows are left to read, from the window's oldest on.
  const next = filtered && scanned.length === REFUSAL_SCAN ? scanned[scanned.length - 1] : undefined;
  return { rows, next };
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
