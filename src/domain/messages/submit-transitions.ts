// A batch's accepted submits recorded: each message `submitted` to its connector with the
// carrier's id, its cost by the connector's cost card and why its route chose the connector; the
// rollups moved from the connector it had before (none, or a retry's other one).

import { assertTransition } from "../../base/core/message-status.js";
import { jsonbText } from "../../base/store/jsonb.js";
import type { Db, Store } from "../../base/store/store.js";
import { ROLLUP_COLUMNS, RollupChanges, type RollupSource } from "./rollups.js";
import { CLAIMED_SQL, chunks } from "./transitions.js";

export interface Submitted {
  id: string;
  connector: string;
  upstreamId: string;
  at: number;
  attempts: number;
  /** Milli-credits the carrier charges for it (its connector's cost card); null: no cost row. */
  cost?: number | null;
  costPrefix?: string | null;
  /** Why its route chose the connector (least_cost and adaptive routes). */
  note?: string | null;
  /** The source address the carrier got when not the message's sender (decision 0187). */
  source?: string | null;
}

/**
 * Records accepted submits. A submit moves a message in the rollups only from its connector
 * before (none, or a retry's other one) to this one: read from `claimed`, the rows as the
 * dispatcher claimed them, or else from the table before the update.
 * SQLite: one prepared statement per message (no SQL to build); PostgreSQL: one statement for
 * the batch, the values as arrays (one round trip, one plan).
 */
export async function markSubmitted(
  store: Store,
  trx: Db,
  items: Submitted[],
  claimed?: readonly (RollupSource & { id: string })[],
  /** The caller's changes, which it writes last in its transaction; else written here. */
  into?: RollupChanges,
): Promise<number> {
  assertTransition("dispatching", "submitted");
  assertTransition("queued", "submitted");
  if (items.length === 0) return 0;
  const before =
    claimed ??
    (await rowsOf(
      trx,
      items.map((i) => i.id),
    ));
  const changed = await submit(store, trx, items);
  const rollups = into ?? new RollupChanges();
  const byId = new Map(before.map((m) => [m.id, m]));
  for (const item of items) {
    const before = byId.get(item.id);
    if (!before || !changed.has(item.id) || before.connector === item.connector) continue;
    rollups.move(before, { ...before, connector: item.connector });
  }
  if (!into) await rollups.write(store, trx);
  return changed.size;
}

async function rowsOf(trx: Db, ids: string[]) {
  const rows = [];
  for (const part of chunks(ids)) {
    rows.push(
      ...(await trx
        .selectFrom("messages")
        .select(["id", ...ROLLUP_COLUMNS])
        .where("id", "in", part)
        .execute()),
    );
  }
  return rows;
}

/** A submit's values, in the order both engines' updates set them (connector … carrier_source). */
function submitValues(i: Submitted) {
  return [
    i.connector,
    i.upstreamId,
    i.at,
    i.attempts,
    i.cost ?? null,
    i.costPrefix ?? null,
    i.note ?? null,
    i.source ?? null,
  ];
}

/** markSubmitted's update: the ids it changed. */
async function submit(store: Store, trx: Db, items: Submitted[]): Promise<Set<string>> {
  const set = `status = 'submitted', lease_until = null, error_code = null, error_message = null`;
  const changed = new Set<string>();
  if (store.engine === "sqlite") {
    const update = store.statement(
      `update messages set ${set}, connector = ?, upstream_id = ?, submitted_at = ?, attempts = ?,
              cost = ?, cost_prefix = ?, route_note = ?, carrier_source = ?
        where id = ? and status in (${CLAIMED_SQL})`,
    );
    for (const i of items) {
      if ((await update.run(trx, [...submitValues(i), i.id])) > 0) changed.add(i.id);
    }
    return changed;
  }
  // No join: the rows are found by primary key (`m.id = any(…)`) and read their values from one
  // jsonb object keyed by id. Joined with unnest(…) of the values, the planner, which cannot know
  // that the ids given are exactly the rows `dispatching`, expected two rows of messages and
  // compared every message with every value (16 ms for 500 messages; this way 4 ms).
  const values = Object.fromEntries(items.map((i) => [i.id, submitValues(i)]));
  const rows = await store
    .statement(
      `update messages as m
          set ${set}, connector = v.submits -> m.id ->> 0, upstream_id = v.submits -> m.id ->> 1,
              submitted_at = (v.submits -> m.id ->> 2)::bigint, attempts = (v.submits -> m.id ->> 3)::int,
              cost = (v.submits -> m.id ->> 4)::bigint, cost_prefix = v.submits -> m.id ->> 5,
              route_note = v.submits -> m.id ->> 6, carrier_source = v.submits -> m.id ->> 7
         from (select ?::jsonb as submits) as v
        where m.id = any(?::text[]) and m.status in (${CLAIMED_SQL})
       returning m.id`,
    )
    .all<{ id: string }>(trx, [jsonbText(values), items.map((i) => i.id)]);
  for (const row of rows) changed.add(row.id);
  return changed;
}
