// delivery_rollups.rejected (audit F9): a message that failed before any carrier carried it
// (refused at submit by the carrier or the gateway, or no connector up within its validity;
// `submitted_at` null, refunded) counts as `rejected`, no longer in `sent` or `failed`, so a
// connector's delivery rate, delivered ÷ (delivered + failed), is over the messages it carried.
// The messages still stored are moved from sent and failed to rejected here, under the keys
// 0035 counted them (their error under error_reason, else error_code); a rejection already pruned
// (MESSAGE_RETENTION_DAYS) keeps counting in sent and failed. `countStoredMessages` is the rule
// RollupChanges keeps now, in SQL (test/domain/messages/rollups.test.ts compares the two).
// Adding a column with a constant default rewrites no table on either engine.
import { type Kysely, sql } from "kysely";
import type { Engine } from "../engine.js";
import { LATENCY_BOUNDS_MS, LATENCY_COLUMNS } from "../latency-buckets.js";

const COUNTS = ["sent", "delivered", "failed", "pending", "rejected"];
const SUMS = [...COUNTS, ...LATENCY_COLUMNS];
const ROUTE_CODES: Record<string, string> = {
  transactional: "T",
  promotional: "P",
  promotional_sender: "PS",
  international: "I",
  voice: "V",
};

/**
 * One message row `m`'s facts, signed: its buckets, key and state category (d, f, p, r for a
 * rejection, or '' for cancelled); `asFailed` counts a rejection as a failure (0035's rule).
 */
function facts(engine: Engine, m: string, sign: number, from: string, asFailed = false): string {
  const indian =
    engine === "sqlite" ? `${m}.recipient glob '[6-9]${"[0-9]".repeat(9)}'` : `${m}.recipient ~ '^[6-9][0-9]{9}$'`;
  const digits = `(select p.digits from delivery_rollup_prefix p where p.since <= ${m}.created_at order by p.since desc limit 1)`;
  const failed = asFailed ? "'f'" : `case when ${m}.submitted_at is null then 'r' else 'f' end`;
  const cat = `case when ${m}.status in ('delivered', 'read') then 'd' when ${m}.status = 'failed' then ${failed} when ${m}.status = 'cancelled' then '' else 'p' end`;
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
      case when ${m}.status = 'failed' then coalesce(${m}.error_reason, ${m}.error_code, 'failed') else '' end as err,
      case when ${m}.status in ('delivered', 'read') then ${bucket} else -1 end as lb
    ${from}`;
}

/** The sums of signed facts `f` per rollup column. */
function sums(): string[] {
  const total = (expression: string, column: string) => `sum(${expression}) as ${column}`;
  return [
    total("case when f.cat in ('d', 'f', 'p') then f.sign else 0 end", "sent"),
    total("case when f.cat = 'd' then f.sign else 0 end", "delivered"),
    total("case when f.cat = 'f' then f.sign else 0 end", "failed"),
    total("case when f.cat = 'p' then f.sign else 0 end", "pending"),
    total("case when f.cat = 'r' then f.sign else 0 end", "rejected"),
    ...LATENCY_COLUMNS.map((column, k) => total(`case when f.lb = ${k} then f.sign else 0 end`, column)),
  ];
}

const KEY = `x.span, x.dim, case x.span when 'q' then f.q else f.d end as bucket,
        case when x.whole = 1 then 0 else f.account_id end as account_id,
        case x.src when 'connector' then f.connector when 'route' then f.route when 'prefix' then f.prefix
          when 'error_code' then f.err else '' end as value`;
/** The rows a fact counts in (span, dimension as stored, the value it takes, every account?), as in 0035. */
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

/** The statement that adds facts to the rollups, summed per key. */
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

/** The statement that counts every stored message into the rollups: the rule RollupChanges keeps, in SQL. */
export function countStoredMessages(engine: Engine): string {
  return applyFacts(facts(engine, "m", 1, "from messages m where true"));
}

export function rollupsRejected(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .alterTable("delivery_rollups")
        .addColumn("rejected", "bigint", (column) => column.notNull().defaultTo(0))
        .execute();
      await sql.raw(moveStoredRejections(engine)).execute(db);
    },
  };
}

/** The statement that moves the stored rejections out of sent and failed, as 0035 counted them, into rejected. */
export function moveStoredRejections(engine: Engine): string {
  const stored = "from messages m where m.status = 'failed' and m.submitted_at is null";
  return applyFacts(`${facts(engine, "m", -1, stored, true)} union all ${facts(engine, "m", 1, stored)}`);
}
