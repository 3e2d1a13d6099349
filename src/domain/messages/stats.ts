// What the console's overview shows of an account's traffic: per channel, the messages
// accepted today and in the last 7 days (the account's days) with how many were delivered
// and failed, and messages per minute over the last hours; and for the account routes, the
// messages of a window counted, and the SMS it sent with what they cost. All read the messages
// the account accepted in the period through messages_by_account_time (account, created_at).
import { sql } from "kysely";
import { DateTime } from "luxon";
import type { Db } from "../../base/store/store.js";
import { TRAFFIC_CHANNELS, type TrafficChannel } from "./traffic-channels.js";

export interface TrafficCounts {
  /** Messages accepted (every status). */
  sent: number;
  /** Delivered (WhatsApp: delivered or read). */
  delivered: number;
  failed: number;
}

const DELIVERED = ["delivered", "read"];

function zero(): TrafficCounts {
  return { sent: 0, delivered: 0, failed: 0 };
}

function add(counts: TrafficCounts, status: string, n: number): void {
  counts.sent += n;
  if (DELIVERED.includes(status)) counts.delivered += n;
  else if (status === "failed") counts.failed += n;
}

/** Today (from the account's midnight) and the last 7 days (today and the 6 before), per channel. */
export async function trafficSummary(db: Db, accountId: number, now: Date, zone: string) {
  const today = DateTime.fromJSDate(now, { zone }).startOf("day");
  const todayFrom = today.toMillis();
  const weekFrom = today.minus({ days: 6 }).toMillis();
  const rows = await db
    .selectFrom("messages")
    .select((eb) => [
      "channel",
      "status",
      eb.fn.countAll<number>().as("week"),
      eb.fn.sum<number>(sql<number>`case when created_at >= ${todayFrom} then 1 else 0 end`).as("today"),
    ])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", weekFrom)
    .where("created_at", "<=", now.getTime())
    .groupBy(["channel", "status"])
    .execute();
  const channels = Object.fromEntries(
    TRAFFIC_CHANNELS.map((channel) => [channel, { today: zero(), last_7_days: zero() }]),
  ) as Record<TrafficChannel, { today: TrafficCounts; last_7_days: TrafficCounts }>;
  for (const row of rows) {
    const channel = channels[row.channel as TrafficChannel];
    if (!channel) continue;
    add(channel.today, row.status, Number(row.today ?? 0));
    add(channel.last_7_days, row.status, Number(row.week));
  }
  return { todayFrom, weekFrom, channels };
}

export interface MinuteCounts extends TrafficCounts {
  /** The minute's start (epoch ms). */
  at: number;
}

/**
 * Messages accepted per minute in the last `hours` (whole minutes, the current one last), and
 * how many of them are delivered and failed by now. Minutes without messages are left out.
 */
export async function messagesPerMinute(db: Db, accountId: number, now: Date, hours: number) {
  const to = (Math.floor(now.getTime() / 60_000) + 1) * 60_000;
  const from = to - hours * 3_600_000;
  // A literal, not a parameter: PostgreSQL matches the SELECT and GROUP BY expressions by their text.
  const minute = sql<number>`(created_at - ${sql.lit(from)}) / 60000`;
  const rows = await db
    .selectFrom("messages")
    .select((eb) => [minute.as("minute"), "status", eb.fn.countAll<number>().as("n")])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", to)
    .groupBy([minute, "status"])
    .execute();
  const byMinute = new Map<number, MinuteCounts>();
  for (const row of rows) {
    const index = Math.floor(Number(row.minute));
    let counts = byMinute.get(index);
    if (!counts) {
      counts = { at: from + index * 60_000, ...zero() };
      byMinute.set(index, counts);
    }
    add(counts, row.status, Number(row.n));
  }
  return { from, to, minutes: [...byMinute.values()].sort((a, b) => a.at - b.at) };
}

/** An account's SMS sent in a window: one set of messages for every figure. */
export interface SmsSent {
  /** SMS accepted in the window that went out or are on their way: not still scheduled, not cancelled. */
  sent: number;
  /** Of them, delivered and failed by now. */
  delivered: number;
  failed: number;
}

/** The account's SMS (its international ones too) accepted in [from, until), as SmsSent counts them. */
export async function smsSent(db: Db, accountId: number, from: number, until: number): Promise<SmsSent> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => [
      eb.fn.countAll<number>().as("sent"),
      sql<number>`coalesce(sum(case when status = 'delivered' then 1 else 0 end), 0)`.as("delivered"),
      sql<number>`coalesce(sum(case when status = 'failed' then 1 else 0 end), 0)`.as("failed"),
    ])
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .where("channel", "=", "sms")
    .where("status", "not in", ["scheduled", "cancelled"])
    .executeTakeFirstOrThrow();
  return {
    sent: Number(row.sent),
    delivered: Number(row.delivered),
    failed: Number(row.failed),
  };
}

/** Messages the account accepted in [from, until). */
export async function messageCount(db: Db, accountId: number, from: number, until: number): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Messages waiting for dispatch per channel and lane, counting at most `cap` rows: the partial
 * index of queued messages is walked, never the whole table (the backlog gauge of /metrics).
 */
export async function queuedBacklog(db: Db, cap: number) {
  // `held`: of them, those held because no connector of their route is up (connectors_down).
  const queued = await sql<{ channel: string; lane: number; n: number; held: number }>`
    select channel, lane, count(*) as n, sum(held) as held
      from (select channel, lane, case when error_code = 'connectors_down' then 1 else 0 end as held
              from messages where status = 'queued' limit ${cap}) q
     group by channel, lane`.execute(db);
  return queued.rows.map((row) => ({
    channel: row.channel,
    lane: Number(row.lane),
    n: Number(row.n),
    held: Number(row.held),
  }));
}

/**
 * A connector's last `last` final messages (delivered, read or failed, by when they ended), counted
 * delivered and failed: the delivery-rate alert's measure, read through (connector, done_at).
 */
export async function connectorFinalCounts(
  db: Db,
  connector: string,
  last: number,
): Promise<{ delivered: number; failed: number }> {
  const rows = await db
    .selectFrom("messages")
    .select("status")
    .where("connector", "=", connector)
    .where("done_at", "is not", null)
    .where("status", "in", ["delivered", "read", "failed"])
    .orderBy("done_at", "desc")
    .limit(last)
    .execute();
  const failed = rows.filter((row) => row.status === "failed").length;
  return { delivered: rows.length - failed, failed };
}
