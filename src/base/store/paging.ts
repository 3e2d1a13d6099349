// A page of a list (page numbers, as the spec's lists take them) and how many rows the list has
// in all: one helper for every list that pages by number, so no list writes its offset again.
import type { SelectQueryBuilder } from "kysely";

export interface PageRequest {
  /** From 1. */
  page: number;
  perPage: number;
}

/**
 * The `page` of the rows `select(filtered)` gives in its order, and the count of `filtered`
 * (the same filters, without select or order), read side by side.
 */
export async function pagedRows<DB, TB extends keyof DB, O>(
  filtered: SelectQueryBuilder<DB, TB, object>,
  select: (filtered: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
): Promise<{ rows: O[]; total: number }> {
  const [rows, count] = await Promise.all([
    select(filtered)
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    filtered.select((eb) => eb.fn.countAll<number>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows as O[], total: Number((count as { total: number | string }).total) };
}
