// The bulk expander's statements (dispatch/bulk-expander.ts) over bulk_parts and messages: the due
// parts, how many queued messages are due, and a part advanced by a chunk with the chunk's messages
// inserted in the same transaction, conditional on the part's next_index.
import { sql } from "kysely";
import type { BulkPartRow, NewMessage } from "../../base/store/schema.js";
import type { Db, Store } from "../../base/store/store.js";
import { RollupChanges } from "./rollups.js";
import { insertShortLinks, type NewShortLink } from "./short-links.js";

/** Up to 100 pending parts due at `now`, oldest first, of accounts other than `exceptAccounts`: their ids and accounts. */
export async function dueBulkParts(db: Db, now: number, exceptAccounts: readonly number[] = []) {
  let query = db
    .selectFrom("bulk_parts")
    .select(["id", "account_id"])
    // A literal, not a parameter: SQLite uses the partial index bulk_parts_pending only then.
    .where("status", "=", sql.lit("pending"))
    .where("due_at", "<=", now);
  // Accounts whose parts wait (not active, decision 0155): few, those a first read found.
  if (exceptAccounts.length > 0) query = query.where("account_id", "not in", exceptAccounts);
  return query.orderBy("due_at").orderBy("id").limit(100).execute();
}

export async function countQueuedDue(db: Db, now: number, cap: number): Promise<number> {
  const backlog = await sql<{ n: number }>`
    select count(*) as n from (select 1 from messages where status = 'queued' and due_at <= ${now}
                               limit ${cap}) q`.execute(db);
  return Number(backlog.rows[0]?.n ?? 0);
}

export async function bulkPartsById(db: Db, ids: number[]): Promise<BulkPartRow[]> {
  return db.selectFrom("bulk_parts").selectAll().where("id", "in", ids).execute();
}

/**
 * Makes the next `take` recipients of `part` messages inside `trx`: advances its next_index
 * (done once it reaches count), only if next_index is still the one read and the part pending,
 * then inserts `messages()` (and their short links). False, with nothing inserted, when another worker took this chunk
 * or the part was cancelled meanwhile: every recipient becomes exactly one message.
 */
export async function expandBulkPart(
  store: Store,
  trx: Db,
  part: Pick<BulkPartRow, "id" | "next_index" | "count">,
  take: number,
  messages: () => { rows: NewMessage[]; links: NewShortLink[] },
): Promise<boolean> {
  const advanced = await trx
    .updateTable("bulk_parts")
    .set({
      next_index: part.next_index + take,
      status: part.next_index + take >= part.count ? "done" : "pending",
    })
    .where("id", "=", part.id)
    .where("next_index", "=", part.next_index)
    .where("status", "=", "pending")
    .executeTakeFirst();
  if (Number(advanced.numUpdatedRows) === 0) return false;
  const { rows, links } = messages();
  await store.insertMany(trx, "messages", rows);
  if (links.length > 0) await insertShortLinks(trx, links);
  const rollups = new RollupChanges();
  for (const row of rows) rollups.add(row, 1);
  await rollups.write(store, trx);
  return true;
}
