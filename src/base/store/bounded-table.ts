// The trim of a table that keeps at most so many rows (the delivery reports kept before their
// message: early_receipts, early_reports, whatsapp_early_statuses): past the most, the oldest
// go, each deleted and answered by exactly one transaction, also when processes keep at once.
import { type RawBuilder, sql } from "kysely";
import type { Engine } from "./engine.js";
import type { Database, Db } from "./schema.js";

/** How many rows a table keeps at most, and the engine, which decides how the oldest are taken. */
export interface RowBound {
  engine: Engine;
  max: number;
}

/** The columns of table `T`. */
type Column<T extends keyof Database> = keyof Database[T] & string;

/** A bounded table's rows: dated by its `received_at`, told apart by `key` within `scope`. */
export interface BoundedRows<T extends keyof Database, K extends Column<T>> {
  table: T;
  /** The columns that name a row within the scope; of one received_at, rows go in their order. */
  key: readonly K[];
  /** What the rows the bound counts have in common (a connector), column by column; none: the whole table. */
  scope?: Partial<Record<Column<T>, string>>;
}

/**
 * Deletes the oldest rows past `max` within the scope (by received_at, then key), in the caller's
 * transaction, and answers the keys of those it deleted. On PostgreSQL a row another transaction
 * holds (one dropping it past the bound too, or applying it) is passed over, so transactions
 * keeping rows at once never wait for each other here, and each row dropped is answered by the
 * one that deleted it. The table stays within `max` plus what transactions not yet committed
 * keep, and the next keep trims it again.
 */
export async function dropOldestPastMax<T extends keyof Database, K extends Column<T>>(
  trx: Db,
  rows: BoundedRows<T, K>,
  { engine, max }: RowBound,
): Promise<Pick<Database[T], K>[]> {
  const table = sql.table(rows.table);
  const scope = Object.entries<string | undefined>(rows.scope ?? {}).map(
    ([column, value]) => sql`${sql.ref(column)} = ${value}`,
  );
  const within = (more: RawBuilder<unknown>[] = []) => {
    const conditions = [...scope, ...more];
    return conditions.length > 0 ? sql`where ${sql.join(conditions, sql` and `)}` : sql``;
  };
  const counted = await sql<{ n: number | string }>`select count(*) as n from ${table} ${within()}`.execute(trx);
  const excess = Number(counted.rows[0]?.n ?? 0) - max;
  if (excess <= 0) return [];
  const key = sql.join(rows.key.map((column) => sql.ref(column)));
  // Locked as it is chosen (PostgreSQL): the delete takes exactly the rows this transaction chose.
  const lock = engine === "postgres" ? sql`for update skip locked` : sql``;
  const oldest = sql`select ${key} from ${table} ${within()} order by received_at, ${key} limit ${excess} ${lock}`;
  const deleted = await sql<Pick<Database[T], K>>`
    delete from ${table} ${within([sql`(${key}) in (${oldest})`])} returning ${key}`.execute(trx);
  return deleted.rows;
}
