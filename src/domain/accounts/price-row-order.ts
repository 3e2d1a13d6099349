// The order of a card's rows (decision 0154): channel, prefix, route, effective_from (`always`
// first), as the database compares them (byte by byte: COLLATE "C" on PostgreSQL, migration 0067).
// An upload stores each row's place in this order (price_card_rows.position), so a page of the
// card, or of a channel or a prefix's rows (a run of places), is read where it starts.
import type { PriceRow } from "./price-rows.js";

const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function compareInCard(a: PriceRow, b: PriceRow): number {
  return (
    text(a.channel, b.channel) ||
    text(a.prefix, b.prefix) ||
    text(a.route, b.route) ||
    since(a.effective_from, b.effective_from)
  );
}

/** `always` (null) first, then by time. */
function since(a: number | null, b: number | null): number {
  if (a === b) return 0;
  if (a === null) return -1;
  return b === null ? 1 : a - b;
}

/** Rows sorted, or merged, per turn of the event loop. */
const RUN = 5_000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * `rows` in the card's order, sorted a few milliseconds per turn of the event loop (sorting
 * 200,000 rows at once holds the thread for about 100 ms): runs of RUN rows, then merged in pairs.
 */
export async function inCardOrder(rows: readonly PriceRow[]): Promise<PriceRow[]> {
  let runs: PriceRow[][] = [];
  for (let at = 0; at < rows.length; at += RUN) {
    runs.push(rows.slice(at, at + RUN).sort(compareInCard));
    await nextTurn();
  }
  while (runs.length > 1) {
    const merged: PriceRow[][] = [];
    for (let i = 0; i < runs.length; i += 2)
      merged.push(i + 1 < runs.length ? await merge(runs[i]!, runs[i + 1]!) : runs[i]!);
    runs = merged;
  }
  return runs[0] ?? [];
}

/** Two sorted runs as one (the first's row first of two equal ones), RUN rows a turn. */
async function merge(a: PriceRow[], b: PriceRow[]): Promise<PriceRow[]> {
  const out: PriceRow[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    for (let n = 0; n < RUN && (i < a.length || j < b.length); n++) {
      out.push(j >= b.length || (i < a.length && compareInCard(a[i]!, b[j]!) <= 0) ? a[i++]! : b[j++]!);
    }
    await nextTurn();
  }
  return out;
}
