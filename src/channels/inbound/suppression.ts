// The suppression list: numbers that opted out (STOP) of one account's promotional SMS. The
// send path asks it about every promotional recipient, at thousands of sends per second and
// 100,000 recipients in a bulk call, so each account's list is remembered: most accounts have
// none (no query at all), most others a few thousand (one set in memory). Changes signal every
// process (NOTIFY on PostgreSQL) to drop the account's entry, so a STOP applies to the next send.
import { BoundedMap } from "../../base/core/bounded-map.js";
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { pagedRows } from "../../base/store/paging.js";
import type { Db, Store } from "../../base/store/store.js";
import { MAX_DIGITS, normalizePhoneNumber } from "./numbers.js";

/** Signal sent (payload: the account id) after an account's suppression list changes. */
const SUPPRESSIONS_CHANGED = "suppressions_changed";
/** A list up to this size is held in memory; a longer one is queried per send, 500 numbers a query. */
const MAX_CACHED = 10_000;
const QUERY_BATCH = 500;
/** Also refreshed without a signal, for changes made by another process on SQLite (the CLI). */
const TTL_MS = 2_000;
const MAX_ACCOUNTS = 10_000;

type Cached = { numbers: ReadonlySet<string> } | { large: true };

export class SuppressionList {
  private readonly cache = new BoundedMap<number, { value: Promise<Cached>; expires: number }>(MAX_ACCOUNTS);

  constructor(private readonly store: Store) {
    store.signals.listen(SUPPRESSIONS_CHANGED, (payload) => this.cache.delete(Number(payload)));
  }

  /** Which of these numbers the account must not send promotional SMS to. */
  async among(accountId: number, numbers: readonly string[]): Promise<Set<string>> {
    const list = await this.listOf(accountId);
    const found = new Set<string>();
    if ("numbers" in list) {
      if (list.numbers.size === 0) return found;
      for (const number of numbers) if (list.numbers.has(number)) found.add(number);
      return found;
    }
    const unique = [...new Set(numbers)];
    for (let i = 0; i < unique.length; i += QUERY_BATCH) {
      const rows = await this.store.db
        .selectFrom("suppressions")
        .select("number")
        .where("account_id", "=", accountId)
        .where("number", "in", unique.slice(i, i + QUERY_BATCH))
        .execute();
      for (const row of rows) found.add(row.number);
    }
    return found;
  }

  private listOf(accountId: number): Promise<Cached> {
    const now = Date.now();
    const hit = this.cache.get(accountId);
    if (hit && hit.expires > now) return hit.value;
    const value = this.store.db
      .selectFrom("suppressions")
      .select("number")
      .where("account_id", "=", accountId)
      .limit(MAX_CACHED + 1)
      .execute()
      .then(
        (rows): Cached =>
          rows.length > MAX_CACHED ? { large: true } : { numbers: new Set(rows.map((r) => r.number)) },
      );
    this.cache.set(accountId, { value, expires: now + TTL_MS });
    value.catch(() => this.cache.delete(accountId));
    return value;
  }
}

/** A number as the list keeps it: an Indian mobile's 10 digits, else its digits. */
export function parseSuppressedNumber(raw: string): string {
  const number = typeof raw === "string" ? normalizePhoneNumber(raw) : "";
  if (number.length < 3 || number.length > MAX_DIGITS) {
    throw new GatewayError("invalid_request", `"${String(raw).slice(0, 40)}" is not a phone number.`, {
      invalid: [String(raw).slice(0, 40)],
    });
  }
  return number;
}

/** Puts numbers on the account's list (already there: kept as they were); answers how many were new. */
export async function suppress(db: Db, clock: Clock, accountId: number, numbers: string[], reason: string) {
  const now = clock.now().getTime();
  let added = 0;
  for (let i = 0; i < numbers.length; i += QUERY_BATCH) {
    const result = await db
      .insertInto("suppressions")
      .values(
        numbers.slice(i, i + QUERY_BATCH).map((number) => ({ account_id: accountId, number, reason, created_at: now })),
      )
      .onConflict((oc) => oc.columns(["account_id", "number"]).doNothing())
      .executeTakeFirst();
    added += Number(result.numInsertedOrUpdatedRows ?? 0);
  }
  return added;
}

/** Takes numbers off the account's list; answers how many were on it. */
export async function unsuppress(db: Db, accountId: number, numbers: string[]): Promise<number> {
  let removed = 0;
  for (let i = 0; i < numbers.length; i += QUERY_BATCH) {
    const result = await db
      .deleteFrom("suppressions")
      .where("account_id", "=", accountId)
      .where("number", "in", numbers.slice(i, i + QUERY_BATCH))
      .executeTakeFirst();
    removed += Number(result.numDeletedRows);
  }
  return removed;
}

export async function listSuppressions(db: Db, accountId: number, options: { page: number; perPage: number }) {
  const query = db.selectFrom("suppressions").where("account_id", "=", accountId);
  const { rows, total } = await pagedRows(
    query,
    (q) => q.selectAll().orderBy("created_at", "desc").orderBy("number"),
    options,
  );
  return {
    rows: rows.map((row) => ({
      number: row.number,
      reason: row.reason,
      created_at: new Date(row.created_at).toISOString(),
    })),
    total,
  };
}

export function suppressionsChanged(store: Store, accountId: number): Promise<void> {
  return store.signals.notify(SUPPRESSIONS_CHANGED, String(accountId));
}
