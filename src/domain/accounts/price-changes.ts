// What a price or cost card's replacement changed, for its audit entry: the rows added, removed
// and repriced, in credits and ISO time as the API writes them (never milli-credits), up to a
// number listed (a 200,000-row card replaced whole would not fit an audit entry).
import { describePriceRow, type PriceRow, ROWS_PER_TURN } from "./price-rows.js";

/** Rows listed in one audit entry, all kinds together; the rest are counted in `unlisted`. */
export const LISTED_PRICE_CHANGES = 500;

const keyOf = (row: PriceRow) => `${row.channel}|${row.route}|${row.prefix}|${row.effective_from ?? ""}`;

type CardChange = ReturnType<typeof changeOf>;

/** The `before` and `after` of a card's audit entry: its row counts, and what changed row by row. */
export function priceCardChange(before: readonly PriceRow[], after: readonly PriceRow[]): CardChange {
  const steps = cardChangeSteps(before, after);
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value;
}

/** priceCardChange with a turn of the event loop every ROWS_PER_TURN rows (a large card on the API's thread). */
export async function priceCardChangeInTurns(before: readonly PriceRow[], after: readonly PriceRow[]) {
  const steps = cardChangeSteps(before, after);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* cardChangeSteps(before: readonly PriceRow[], after: readonly PriceRow[]): Generator<void, CardChange> {
  const old = new Map<string, PriceRow>();
  for (const [i, row] of before.entries()) {
    if (i > 0 && i % ROWS_PER_TURN === 0) yield;
    old.set(keyOf(row), row);
  }
  const added: ReturnType<typeof describePriceRow>[] = [];
  const changed: (ReturnType<typeof describePriceRow> & { was: number })[] = [];
  let unlisted = 0;
  const room = () => added.length + changed.length < LISTED_PRICE_CHANGES;
  for (const [i, row] of after.entries()) {
    if (i > 0 && i % ROWS_PER_TURN === 0) yield;
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
  return changeOf(before.length, after.length, { added, changed, removed, unlisted });
}

function changeOf(
  before: number,
  after: number,
  rows: { added: object[]; changed: object[]; removed: object[]; unlisted: number },
) {
  const { added, changed, removed, unlisted } = rows;
  return {
    before: { rows: before },
    after: { rows: after, added, changed, removed, ...(unlisted > 0 ? { unlisted } : {}) },
  };
}
