// The state of every alert condition, in alert_states, shared by every process that evaluates:
// a condition seen is a row (active 0) from when it was first seen; once its window is over, the
// one UPDATE … WHERE active = 0 that changes the row raises it, and once the condition is gone
// the one DELETE … WHERE active = 1 that removes the row clears it. However many processes look,
// and however often, each alert is raised once and cleared once.
import type { Db, Store } from "../../base/store/store.js";
import type { AlertKind } from "./settings.js";

/** A condition that holds now, as one evaluation sees it. */
export interface Condition {
  /** What it is about, unique within its kind (a username, a connector, `account:<id> <url>`). */
  subject: string;
  /** When it started, when the source knows (a failing endpoint's oldest retry); else first seen. */
  since?: number;
  value: number | null;
  detail: string;
  accountId?: number | null;
  /** How long it must hold before it is raised. */
  windowMs: number;
}

/** A raise or a clear this process made. */
export interface Transition {
  kind: AlertKind;
  subject: string;
  state: "raised" | "cleared";
  value: number | null;
  detail: string;
  accountId: number | null;
  since: number;
  at: number;
}

export interface ActiveAlert {
  kind: AlertKind;
  subject: string;
  since: number;
  raised_at: number;
  value: number | null;
  detail: string;
  account_id: number | null;
}

/**
 * Brings the rows of `kind` in line with `conditions` (every condition of the kind that holds
 * now; an empty list clears them all). `told` runs inside the transaction of each raise and
 * clear this process makes (to queue its webhooks with it); the transitions are answered.
 */
export async function settleAlerts(
  store: Store,
  kind: AlertKind,
  conditions: readonly Condition[],
  now: number,
  told: (trx: Db, transition: Transition) => Promise<void>,
): Promise<Transition[]> {
  const rows = await store.db
    .selectFrom("alert_states")
    .select(["subject", "since", "active", "value", "detail", "account_id"])
    .where("kind", "=", kind)
    .execute();
  const known = new Map(rows.map((row) => [row.subject, row]));
  const holding = new Set(conditions.map((condition) => condition.subject));
  const transitions: Transition[] = [];

  for (const condition of conditions) {
    const row = known.get(condition.subject);
    if (row && Number(row.active) === 1) continue;
    let since = row ? Number(row.since) : Math.min(condition.since ?? now, now);
    if (!row) {
      await store.db
        .insertInto("alert_states")
        .values({
          kind,
          subject: condition.subject,
          since,
          active: 0,
          raised_at: null,
          value: condition.value,
          detail: condition.detail,
          account_id: condition.accountId ?? null,
          updated_at: now,
        })
        .onConflict((oc) => oc.columns(["kind", "subject"]).doNothing())
        .execute();
      // Another process may have seen it first: its `since` counts.
      const stored = await store.db
        .selectFrom("alert_states")
        .select("since")
        .where("kind", "=", kind)
        .where("subject", "=", condition.subject)
        .executeTakeFirst();
      if (!stored) continue;
      since = Number(stored.since);
    }
    if (now - since < condition.windowMs) continue;
    const transition: Transition = {
      kind,
      subject: condition.subject,
      state: "raised",
      value: condition.value,
      detail: condition.detail,
      accountId: condition.accountId ?? null,
      since,
      at: now,
    };
    const raised = await store.transaction(async (trx) => {
      const result = await trx
        .updateTable("alert_states")
        .set({ active: 1, raised_at: now, value: condition.value, detail: condition.detail, updated_at: now })
        .where("kind", "=", kind)
        .where("subject", "=", condition.subject)
        .where("active", "=", 0)
        .where("since", "<=", now - condition.windowMs)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await told(trx, transition);
      return true;
    });
    if (raised) transitions.push(transition);
  }

  for (const row of rows) {
    if (holding.has(row.subject)) continue;
    if (Number(row.active) === 0) {
      // Seen, never raised, gone again: forgotten quietly.
      await store.db
        .deleteFrom("alert_states")
        .where("kind", "=", kind)
        .where("subject", "=", row.subject)
        .where("active", "=", 0)
        .execute();
      continue;
    }
    const transition: Transition = {
      kind,
      subject: row.subject,
      state: "cleared",
      value: row.value === null ? null : Number(row.value),
      detail: row.detail,
      accountId: row.account_id === null ? null : Number(row.account_id),
      since: Number(row.since),
      at: now,
    };
    const cleared = await store.transaction(async (trx) => {
      const result = await trx
        .deleteFrom("alert_states")
        .where("kind", "=", kind)
        .where("subject", "=", row.subject)
        .where("active", "=", 1)
        .executeTakeFirst();
      if (Number(result.numDeletedRows) !== 1) return false;
      await told(trx, transition);
      return true;
    });
    if (cleared) transitions.push(transition);
  }
  return transitions;
}

/** Every alert raised and not cleared, oldest first. */
export async function activeAlerts(db: Db): Promise<ActiveAlert[]> {
  const rows = await db
    .selectFrom("alert_states")
    .selectAll()
    .where("active", "=", 1)
    .orderBy("raised_at")
    .orderBy("kind")
    .orderBy("subject")
    .execute();
  return rows.map((row) => ({
    kind: row.kind as AlertKind,
    subject: row.subject,
    since: Number(row.since),
    raised_at: Number(row.raised_at),
    value: row.value === null ? null : Number(row.value),
    detail: row.detail,
    account_id: row.account_id === null ? null : Number(row.account_id),
  }));
}
