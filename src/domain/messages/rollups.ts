// Delivery analytics' rollups (migration 0035), kept by the writers of messages in their own
// transaction: each writer hands the messages it changed (before and after) to a RollupChanges,
// which sums them per rollup row in memory and writes one upsert per row it changed, once per
// commit group or batch, never per message. A message counts in its accept time's buckets under
// the key it has now, so a change is −1 under the old key and +1 under the new; a deleted message
// (MESSAGE_RETENTION_DAYS) leaves its counts. Why not triggers: decision 0112. On SQLite the
// changes of every writer of one group commit (the sends accepted, the submits recorded, the
// reports applied in a tick) are summed before they are written: the same rows, once a group
// (decision 0131). A message that failed before any carrier carried it (`submitted_at` null:
// refused at submit, refunded) counts as `rejected`, not in sent or failed (migration 0064).
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from "../../base/store/latency-buckets.js";
import type { CommitShare, Db, Store } from "../../base/store/store.js";

/** What a message's counts depend on: the columns a rollup change reads. */
export interface RollupSource {
  account_id: number;
  channel: string;
  route: string;
  recipient: string;
  connector?: string | null;
  status: string;
  error_code?: string | null;
  /** A carrier failure's mapped reason (0048): counted in the error breakdown instead of its code. */
  error_reason?: string | null;
  created_at: number;
  delivered_at?: number | null;
  done_at?: number | null;
  /** Null for a failure before any carrier carried the message: a rejection, not a failure. */
  submitted_at?: number | null;
}

/** RollupSource's columns, for a select or a RETURNING. */
export const ROLLUP_COLUMNS = [
  "account_id",
  "channel",
  "route",
  "recipient",
  "connector",
  "status",
  "error_code",
  "created_at",
  "delivered_at",
  "done_at",
  "submitted_at",
] as const;

const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;
const ROUTE_CODES: Readonly<Record<string, string>> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
  voice: "V",
};
const INDIAN_MOBILE = /^[6-9][0-9]{9}$/;
/** sent, delivered, failed, pending, rejected, then the latency histogram h00..h35. */
const COUNTS = 5;
const WIDTH = COUNTS + LATENCY_COLUMNS.length;

/** Prefix lengths in force from each accept time on (delivery_rollup_prefix), newest first; loaded once per process. */
let prefixLengths: Array<{ since: number; digits: number }> | undefined;

/** Loads (or, after recordPrefixDigits, reloads) the prefix lengths in force. */
export async function loadPrefixLengths(db: Db): Promise<void> {
  const rows = await db
    .selectFrom("delivery_rollup_prefix")
    .select(["since", "digits"])
    .orderBy("since", "desc")
    .execute();
  prefixLengths = rows.map((row) => ({ since: Number(row.since), digits: Number(row.digits) }));
}

function digitsAt(createdAt: number): number {
  for (const entry of prefixLengths ?? []) if (entry.since <= createdAt) return entry.digits;
  return 4;
}

/** The destination's leading digits with the country code, as routes write them (9198…); "" for email. */
export function prefixOf(m: Pick<RollupSource, "channel" | "route" | "recipient" | "created_at">): string {
  if (m.channel === "email") return "";
  const full =
    m.route !== "international" && INDIAN_MOBILE.test(m.recipient)
      ? `91${m.recipient}`
      : m.recipient.replaceAll("+", "");
  return full.slice(0, digitsAt(m.created_at));
}

/**
 * d(elivered), f(ailed), p(ending), r(ejected: failed before a carrier carried it, counted apart
 * from sent), or "" for a cancelled message, which counts nowhere.
 */
function categoryOf(m: RollupSource): "d" | "f" | "p" | "r" | "" {
  const status = m.status;
  if (status === "delivered" || status === "read") return "d";
  if (status === "failed") return m.submitted_at == null ? "r" : "f";
  if (status === "cancelled") return "";
  return "p";
}

function latencyBucket(m: RollupSource): number {
  const latency = (m.delivered_at ?? m.done_at ?? m.created_at) - m.created_at;
  const k = LATENCY_BOUNDS_MS.findIndex((bound) => latency < bound);
  return k === -1 ? LATENCY_BOUNDS_MS.length : k;
}

/**
 * A batch's changes to the rollups, summed per message key (accept quarter, account, connector,
 * route, prefix, error) until written; each such key is counted in 13 rollup rows, which are
 * made from the sums when they are written: a message's change is one lookup, not 13 (the
 * messages of a commit group mostly share their key).
 */
export class RollupChanges {
  private readonly rows = new Map<string, number[]>();
  /** Added before this process knew its prefix lengths: counted once write() has read them. */
  private readonly early: Array<[RollupSource, 1 | -1]> = [];

  /** Counts `m` (+1) or takes it out (−1) of every rollup row it is counted in. */
  add(m: RollupSource, sign: 1 | -1): void {
    if (prefixLengths === undefined) {
      this.early.push([m, sign]);
      return;
    }
    const category = categoryOf(m);
    if (category === "") return;
    const q = Math.floor(m.created_at / QUARTER_MS) * QUARTER_MS;
    const route = ROUTE_CODES[m.route] ?? m.route;
    const error = category === "f" || category === "r" ? (m.error_reason ?? m.error_code ?? "failed") : "";
    const key = `${q}\u0000${m.account_id}\u0000${m.connector ?? ""}\u0000${route}\u0000${prefixOf(m)}\u0000${error}`;
    let sums = this.rows.get(key);
    if (!sums) {
      sums = new Array<number>(WIDTH).fill(0);
      this.rows.set(key, sums);
    }
    if (category !== "r") sums[0]! += sign;
    sums[category === "d" ? 1 : category === "f" ? 2 : category === "p" ? 3 : 4]! += sign;
    if (category === "d") sums[COUNTS + latencyBucket(m)]! += sign;
  }

  /** A message that changed: out of its old key, into its new one. */
  move(before: RollupSource, after: RollupSource): void {
    this.add(before, -1);
    this.add(after, 1);
  }

  /** Adds `other`'s changes to these, and empties it. */
  absorb(other: RollupChanges): void {
    for (const [key, sums] of other.rows) {
      const mine = this.rows.get(key);
      if (!mine) this.rows.set(key, sums);
      else for (let i = 0; i < WIDTH; i++) mine[i]! += sums[i]!;
    }
    other.rows.clear();
    this.early.push(...other.early.splice(0));
  }

  /**
   * Writes the rows that changed, in key order (two batches on PostgreSQL then lock shared rows
   * in the same order). SQLite: a prepared upsert per row (without the histogram when none of it
   * changed), summed with the other writers' of the group commit and written before its COMMIT
   * when `trx` is one of its transactions; PostgreSQL: one statement with the rows as arrays.
   */
  async write(store: Store, trx: Db): Promise<void> {
    if (this.early.length > 0) {
      if (prefixLengths === undefined) await loadPrefixLengths(trx);
      for (const [m, sign] of this.early.splice(0)) this.add(m, sign);
    }
    if (this.rows.size === 0) return;
    const share = store.shareUntilCommit?.(trx, "delivery_rollups", () => new RollupShare(store));
    if (share) {
      share.changes.absorb(this);
      return;
    }
    await this.writeNow(store, trx);
  }

  /** Writes the rows that changed at once (what `write` does outside a group commit). */
  async writeNow(store: Store, trx: Db): Promise<void> {
    if (this.rows.size === 0) return;
    const changed = [...rollupRows(this.rows)]
      .filter(([, row]) => row.sums.some((n) => n !== 0))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, row]) => row);
    this.rows.clear();
    if (changed.length === 0) return;
    if (store.engine === "sqlite") {
      for (const { values, sums } of changed) {
        const latency = sums.some((n, i) => i >= COUNTS && n !== 0);
        await store
          .statement(latency ? UPSERT_ALL : UPSERT_COUNTS)
          .run(trx, [...values, ...(latency ? sums : sums.slice(0, COUNTS))]);
      }
      return;
    }
    const columns = [0, 1, 2, 3, 4].map((i) => changed.map((row) => row.values[i]));
    const sums = Array.from({ length: WIDTH }, (_, i) => changed.map((row) => row.sums[i]));
    await store.statement(UPSERT_ARRAYS).run(trx, [...columns, ...sums]);
  }
}

/** A group commit's rollup changes: its transactions' summed, written once before its COMMIT. */
class RollupShare implements CommitShare {
  readonly changes = new RollupChanges();
  constructor(private readonly store: Store) {}
  merge(other: CommitShare): void {
    this.changes.absorb((other as RollupShare).changes);
  }
  write(trx: Db): Promise<void> {
    return this.changes.writeNow(this.store, trx);
  }
}

/** A rollup row: its key's columns (span, dim, bucket, account_id, value) and its sums. */
interface RollupRow {
  values: [span: string, dim: string, bucket: number, account: number, value: string];
  sums: number[];
}

/**
 * The rollup rows of summed message keys (RollupChanges.add): each key's sums in its quarter's and
 * day's rows of the account as a whole and by connector, route, prefix and error, in the
 * operator's rows by prefix, and in the quarter's row of every account. Keyed by the row's columns
 * joined, the order rows are written in.
 */
function rollupRows(byMessageKey: Map<string, number[]>): Map<string, RollupRow> {
  const rows = new Map<string, RollupRow>();
  const count = (values: RollupRow["values"], sums: number[]) => {
    const key = values.join("\u0000");
    const row = rows.get(key);
    if (!row) rows.set(key, { values, sums: [...sums] });
    else for (let i = 0; i < WIDTH; i++) row.sums[i]! += sums[i]!;
  };
  for (const [key, sums] of byMessageKey) {
    const [q = "0", id = "0", connector = "", route = "", prefix = "", error = ""] = key.split("\u0000");
    const [quarter, account] = [Number(q), Number(id)];
    const day = Math.floor(quarter / DAY_MS) * DAY_MS;
    for (const [span, bucket] of [
      ["q", quarter],
      ["d", day],
    ] as const) {
      count([span, "", bucket, account, ""], sums);
      count([span, "connector", bucket, account, connector], sums);
      count([span, "route", bucket, account, route], sums);
      count([span, "prefix", bucket, account, prefix], sums);
      count([span, "error_code", bucket, account, error], sums);
      count([span, "*prefix", bucket, 0, prefix], sums);
    }
    count(["q", "*", quarter, 0, ""], sums);
  }
  return rows;
}

const KEY_COLUMNS = "span, dim, bucket, account_id, value";
const COUNT_COLUMNS = ["sent", "delivered", "failed", "pending", "rejected"];
const ALL_COLUMNS = [...COUNT_COLUMNS, ...LATENCY_COLUMNS];
const onConflict = (columns: readonly string[]) =>
  `on conflict (${KEY_COLUMNS}) do update set ${columns.map((c) => `${c} = delivery_rollups.${c} + excluded.${c}`).join(", ")}`;
const upsert = (columns: readonly string[]) =>
  `insert into delivery_rollups (${KEY_COLUMNS}, ${columns.join(", ")})
   values (${[...KEY_COLUMNS.split(", "), ...columns].map(() => "?").join(", ")}) ${onConflict(columns)}`;
const UPSERT_COUNTS = upsert(COUNT_COLUMNS);
const UPSERT_ALL = upsert(ALL_COLUMNS);
const UPSERT_ARRAYS = `insert into delivery_rollups (${KEY_COLUMNS}, ${ALL_COLUMNS.join(", ")})
  select * from unnest(?::text[], ?::text[], ?::bigint[], ?::bigint[], ?::text[], ${ALL_COLUMNS.map(() => "?::bigint[]").join(", ")})
  ${onConflict(ALL_COLUMNS)}`;

/**
 * Runs `change` on messages `ids` and writes what it changed to the rollups: their rows read before
 * and after. For the writers of one message at a time whose source state may be one of several
 * (WhatsApp's, email's); a batch's writer derives the old rows from what it knows instead.
 */
export async function withRollups<T>(
  store: Store,
  trx: Db,
  ids: string[],
  change: () => Promise<T>,
  /** The caller's changes, which it writes last in its transaction; else written here. */
  into?: RollupChanges,
): Promise<T> {
  const read = () =>
    trx
      .selectFrom("messages")
      .select(["id", ...ROLLUP_COLUMNS])
      .where("id", "in", ids)
      .execute();
  const before = ids.length > 0 ? await read() : [];
  const result = await change();
  if (before.length === 0) return result;
  const after = new Map((await read()).map((row) => [row.id, row]));
  const changes = into ?? new RollupChanges();
  for (const row of before) {
    changes.add(row, -1);
    const now = after.get(row.id);
    if (now) changes.add(now, 1);
  }
  if (!into) await changes.write(store, trx);
  return result;
}
