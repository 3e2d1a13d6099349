// Delivery analytics (issue 38): rollups kept as messages change state, so the analytics never
// scan the messages table. `delivery_rollups` holds, per span (`q`: 15 minutes, `d`: a UTC day),
// bucket start, dimension (`` = the account's total, `connector`, `route`, `prefix`, `error_code`),
// account and the dimension's value: sent, delivered, failed, pending and a latency histogram
// (accept → delivery receipt) in fixed log-scale buckets (h00..h35, see LATENCY_BOUNDS_MS).
// A message counts in the buckets of its accept time, under the key it has now: its change of
// state moves it from one key to the other (−1 old, +1 new) in the statement that changes it,
// written by triggers on both engines, so every writer of messages (accept, dispatch, reports,
// expiry, cancellation, WhatsApp, email, voice) keeps the rollups exact in its own transaction,
// and a deleted message (MESSAGE_RETENTION_DAYS) leaves them as they are. Why per dimension and
// two spans: docs/decisions/0106-delivery-rollups.md. `delivery_rollup_prefix` holds how many
// leading digits the prefix keeps (ANALYTICS_PREFIX_DIGITS) from which accept time on, so a
// message's prefix never changes between its counts. Messages already stored are counted here.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";

/** Upper bounds (exclusive, ms) of the latency buckets h00..h34: 100 ms × √2^k; h35 is the rest (≥ 3.6 h). */
export const LATENCY_BOUNDS_MS: readonly number[] = Array.from({ length: 35 }, (_, k) =>
  Math.round(100 * 2 ** (k / 2)),
);
export const LATENCY_COLUMNS: readonly string[] = Array.from(
  { length: LATENCY_BOUNDS_MS.length + 1 },
  (_, k) => `h${String(k).padStart(2, "0")}`,
);
const COUNTS = ["sent", "delivered", "failed", "pending"];
const SUMS = [...COUNTS, ...LATENCY_COLUMNS];
const ROUTE_CODES: Record<string, string> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
  voice: "V",
};

/** One message row `m`'s facts, signed: its buckets, key and state category (d, f, p, or '' for cancelled). */
function facts(engine: Engine, m: string, sign: number, from = ""): string {
  const indian =
    engine === "sqlite" ? `${m}.recipient glob '[6-9]${"[0-9]".repeat(9)}'` : `${m}.recipient ~ '^[6-9][0-9]{9}$'`;
  const digits = `(select p.digits from delivery_rollup_prefix p where p.since <= ${m}.created_at order by p.since desc limit 1)`;
  const cat = `case when ${m}.status in ('delivered', 'read') then 'd' when ${m}.status = 'failed' then 'f' when ${m}.status = 'cancelled' then '' else 'p' end`;
  const latency = `(coalesce(${m}.delivered_at, ${m}.done_at, ${m}.created_at) - ${m}.created_at)`;
  const bucket = `case ${LATENCY_BOUNDS_MS.map((bound, k) => `when ${latency} < ${bound} then ${k}`).join(" ")} else ${LATENCY_BOUNDS_MS.length} end`;
  return `select ${sign} as sign,
      (${m}.created_at / 900000) * 900000 as q,
      (${m}.created_at / 86400000) * 86400000 as d,
      ${m}.account_id as account_id,
      coalesce(${m}.connector, '') as connector,
      case ${m}.route ${Object.entries(ROUTE_CODES)
        .map(([name, code]) => `when '${name}' then '${code}'`)
        .join(" ")} else ${m}.route end as route,
      case when ${m}.channel = 'email' then '' else substr(case when ${m}.route <> 'international' and ${indian}
        then '91' || ${m}.recipient else replace(${m}.recipient, '+', '') end, 1, coalesce(${digits}, 4)) end as prefix,
      ${cat} as cat,
      case when ${m}.status = 'failed' then coalesce(${m}.error_code, 'failed') else '' end as err,
      case when ${m}.status in ('delivered', 'read') then ${bucket} else -1 end as lb
    ${from}`;
}

/** The statement that adds the signed facts to the rollups: 2 spans × 5 dimensions per fact, zero changes skipped. */
function applyFacts(factRows: string): string {
  const sums = [
    "sum(case when f.cat <> '' then f.sign else 0 end) as sent",
    "sum(case when f.cat = 'd' then f.sign else 0 end) as delivered",
    "sum(case when f.cat = 'f' then f.sign else 0 end) as failed",
    "sum(case when f.cat = 'p' then f.sign else 0 end) as pending",
    ...LATENCY_COLUMNS.map((column, k) => `sum(case when f.lb = ${k} then f.sign else 0 end) as ${column}`),
  ];
  return `insert into delivery_rollups (span, dim, bucket, account_id, value, ${SUMS.join(", ")})
    select * from (
      select s.span, x.dim, case s.span when 'q' then f.q else f.d end as bucket, f.account_id,
        case x.dim when 'connector' then f.connector when 'route' then f.route when 'prefix' then f.prefix
          when 'error_code' then f.err else '' end as value,
        ${sums.join(",\n        ")}
      from (${factRows}) f
      cross join (select 'q' as span union all select 'd') s
      cross join (select '' as dim union all select 'connector' union all select 'route'
        union all select 'prefix' union all select 'error_code') x
      group by 1, 2, 3, 4, 5
    ) g
    where ${SUMS.map((column) => `g.${column} <> 0`).join(" or ")}
    order by 1, 2, 3, 4, 5
    on conflict (span, dim, bucket, account_id, value) do update set
      ${SUMS.map((column) => `${column} = delivery_rollups.${column} + excluded.${column}`).join(", ")}`;
}

const TRACKED = ["status", "connector", "error_code", "done_at", "delivered_at"];

export function deliveryRollups(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const run = (text: string) => sql.raw(text).execute(db);
      await run(`create table delivery_rollup_prefix (since bigint primary key, digits integer not null)`);
      await run(`insert into delivery_rollup_prefix (since, digits) values (0, 4)`);
      await run(`create table delivery_rollups (
        span text not null, dim text not null, bucket bigint not null, account_id bigint not null, value text not null,
        ${SUMS.map((column) => `${column} bigint not null default 0`).join(", ")},
        primary key (span, dim, bucket, account_id, value)
      )${engine === "sqlite" ? " without rowid" : ""}`);
      await run(`create index delivery_rollups_by_account on delivery_rollups (account_id, span, dim, bucket)`);
      if (engine === "sqlite") {
        await run(`create trigger delivery_rollups_on_insert after insert on messages begin
          ${applyFacts(facts(engine, "new", 1))};
        end`);
        await run(`create trigger delivery_rollups_on_update after update of ${TRACKED.join(", ")} on messages
          when ${TRACKED.map((column) => `old.${column} is not new.${column}`).join(" or ")} begin
          ${applyFacts(`${facts(engine, "new", 1)} union all ${facts(engine, "old", -1)}`)};
        end`);
      } else {
        // Statement-level: a batch's changes summed once, the rollup rows written in key order
        // (two batches never wait on each other's rows in opposite orders).
        const changed = `where m.id in (select o.id from old_rows o join new_rows n on n.id = o.id
          where (${TRACKED.map((column) => `o.${column}`).join(", ")}) is distinct from (${TRACKED.map((column) => `n.${column}`).join(", ")}))`;
        await run(`create function delivery_rollups_apply() returns trigger language plpgsql as $body$
          begin
            if TG_OP = 'INSERT' then
              ${applyFacts(facts(engine, "m", 1, "from new_rows m"))};
            else
              ${applyFacts(`${facts(engine, "m", 1, `from new_rows m ${changed}`)} union all ${facts(engine, "m", -1, `from old_rows m ${changed}`)}`)};
            end if;
            return null;
          end
        $body$`);
        await run(`create trigger delivery_rollups_on_insert after insert on messages
          referencing new table as new_rows for each statement execute function delivery_rollups_apply()`);
        await run(`create trigger delivery_rollups_on_update after update on messages
          referencing old table as old_rows new table as new_rows for each statement execute function delivery_rollups_apply()`);
      }
      // The messages already stored.
      await run(applyFacts(facts(engine, "m", 1, "from messages m where true")));
    },
  };
}
