// Delivery analytics (issue 38): rollups kept as messages change state, so the analytics never
// scan the messages table. `delivery_rollups` holds, per span (`q`: 15 minutes, `d`: a UTC day),
// bucket start, dimension (`` = the account's total, `connector`, `route`, `prefix`, `error_code`),
// account (0: every account, under `*` for the quarter-hour totals and `*prefix`) and the
// dimension's value: sent, delivered, failed, pending and a latency histogram
// (accept → delivery receipt) in fixed log-scale buckets (h00..h35, see LATENCY_BOUNDS_MS).
// A message counts in the buckets of its accept time, under the key it has now: its change of
// state moves it from one key to the other (−1 old, +1 new), written by the writers of messages
// in their own transaction (domain/messages/rollups.ts, which counts as `facts` below does), and
// a deleted message (MESSAGE_RETENTION_DAYS) leaves them as they are. Why per dimension and
// two spans: docs/decisions/0112-delivery-rollups.md. `delivery_rollup_prefix` holds how many
// leading digits the prefix keeps (ANALYTICS_PREFIX_DIGITS) from which accept time on, so a
// message's prefix never changes between its counts. Messages already stored are counted here.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from "../latency-buckets.js";

/** Upper bounds (exclusive, ms) of the latency buckets h00..h34: 100 ms × √2^k; h35 is the rest (≥ 3.6 h). */
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

/** The sums of signed facts `f` per rollup column. */
function sums(): string[] {
  const total = (expression: string, column: string) => `sum(${expression}) as ${column}`;
  return [
    total("case when f.cat <> '' then f.sign else 0 end", "sent"),
    total("case when f.cat = 'd' then f.sign else 0 end", "delivered"),
    total("case when f.cat = 'f' then f.sign else 0 end", "failed"),
    total("case when f.cat = 'p' then f.sign else 0 end", "pending"),
    ...LATENCY_COLUMNS.map((column, k) => total(`case when f.lb = ${k} then f.sign else 0 end`, column)),
  ];
}

const KEY = `x.span, x.dim, case x.span when 'q' then f.q else f.d end as bucket,
        case when x.whole = 1 then 0 else f.account_id end as account_id,
        case x.src when 'connector' then f.connector when 'route' then f.route when 'prefix' then f.prefix
          when 'error_code' then f.err else '' end as value`;
/**
 * The rows a fact counts in (span, dimension as stored, the value it takes, every account?): each
 * span and dimension for its account, and, where the operator's question would otherwise read a
 * row per account for each bucket, for every account at once (account 0, under a dimension of its
 * own, `*` and `*prefix`, so they lie together in the key's order): the quarter-hour totals (hours
 * and days) and the prefixes.
 */
const ROLLUP_ROWS: Array<[string, string, string, number]> = [
  ...["q", "d"].flatMap((span) =>
    ["", "connector", "route", "prefix", "error_code"].map((dim): [string, string, string, number] => [
      span,
      dim,
      dim,
      0,
    ]),
  ),
  ["q", "*", "", 1],
  ["q", "*prefix", "prefix", 1],
  ["d", "*prefix", "prefix", 1],
];
const EXPAND = `cross join (${ROLLUP_ROWS.map(([span, dim, src, whole], i) =>
  i === 0
    ? `select '${span}' as span, '${dim}' as dim, '${src}' as src, ${whole} as whole`
    : `select '${span}', '${dim}', '${src}', ${whole}`,
).join(" union all ")}) x`;
const UPSERT = `on conflict (span, dim, bucket, account_id, value) do update set
      ${SUMS.map((column) => `${column} = delivery_rollups.${column} + excluded.${column}`).join(", ")}`;

/** The statement that adds facts to the rollups: 13 rows per fact (ROLLUP_ROWS), summed per key. */
function applyFacts(factRows: string): string {
  const columns = `insert into delivery_rollups (span, dim, bucket, account_id, value, ${SUMS.join(", ")})`;
  return `${columns}
    select * from (
      select ${KEY},
        ${sums().join(",\n        ")}
      from (${factRows}) f ${EXPAND}
      group by 1, 2, 3, 4, 5
    ) g
    where ${SUMS.map((column) => `g.${column} <> 0`).join(" or ")}
    order by 1, 2, 3, 4, 5
    ${UPSERT}`;
}

/**
 * The statement that counts every stored message into the rollups: the rule RollupChanges keeps,
 * in SQL (a test and bench/analytics-delivery.mjs compare the two over an emptied table).
 */
export function countStoredMessages(engine: Engine): string {
  return applyFacts(facts(engine, "m", 1, "from messages m where true"));
}

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
      // The messages already stored.
      await run(countStoredMessages(engine));
    },
  };
}
