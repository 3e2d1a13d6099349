// What a price or cost card's replacement changed, for its audit entry: the rows added, removed
// and repriced, in credits and ISO time as the API writes them (never milli-credits), up to a
// number listed (a 200,000-row card replaced whole would not fit an audit entry).
import { describePriceRow, type PriceRow } from "./price-rows.js";

/** Rows listed in one audit entry, all kinds together; the rest are counted in `unlisted`. */
export const LISTED_PRICE_CHANGES = 500;

const keyOf = (row: PriceRow) => `${row.channel}|${row.route}|${row.prefix}|${row.effective_from ?? ""}`;

/** The `before` and `after` of a card's audit entry: its row counts, and what changed row by row. */
export function priceCardChange(before: readonly PriceRow[], after: readonly PriceRow[]) {
  const old = new Map(before.map((row) => [keyOf(row), row]));
  const added: ReturnType<typeof describePriceRow>[] = [];
  const changed: (ReturnType<typeof describePriceRow> & { was: number })[] = [];
  let unlisted = 0;
  const room = () => added.length + changed.length < LISTED_PRICE_CHANGES;
  for (const row of after) {
    const key = keyOf(row);
    const earlier = old.get(key);
    old.delete(key);
    if (earlier?.price === row.price) continue;
    if (!room()) unlisted++;
    else if (earlier) changed.push({ ...describePriceRow(row), was: describePriceRow(earlier).price });
    else added.push(describePriceRow(row));
  }
  const removed: ReturnType<typeof describePriceRow>[] = [];
  for (const row of old.values()) {
    if (added.length + changed.length + removed.length < LISTED_PRICE_CHANGES) removed.push(describePriceRow(row));
    else unlisted++;
  }
  return {
    before: { rows: before.length },
    after: { rows: after.length, added, changed, removed, ...(unlisted > 0 ? { unlisted } : {}) },
  };
}
