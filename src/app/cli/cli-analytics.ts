// `switchboard analytics delivery`: delivery analytics as GET /admin/api/analytics/delivery answers
// them (every account's messages, or one account's with --account), read from the rollups. Times
// without a zone, and hours and days, are read in --time-zone (default UTC: the CLI has no account).
import { type Command, InvalidArgumentError } from "commander";
import { isTimeZone } from "../../base/core/time-zone-names.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { deliveryAnswer } from "../analytics-routes.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, withStore } from "./cli-support.js";

interface DeliveryOptions {
  from?: string;
  to?: string;
  groupBy?: string;
  account?: string;
  timeZone: string;
  json?: boolean;
}

/** The value of a --time-zone option: an IANA zone name. */
export function timeZone(value: string): string {
  if (!isTimeZone(value)) throw new InvalidArgumentError("use an IANA time zone, e.g. Asia/Kolkata or UTC");
  return value;
}

const percent = (rate: number | null) => (rate === null ? "-" : `${(rate * 100).toFixed(1)} %`);
const ms = (value: number | null) => (value === null ? "-" : `${Math.round(value)} ms`);

export function addAnalyticsCommands(program: Command): void {
  const analytics = groupCommand(program, "analytics");
  analytics
    .command("delivery")
    .description("messages of a window by account, connector, route, prefix, error code, hour or day")
    .option("--from <time>", "ISO 8601, inclusive (default: 30 days before --to)")
    .option("--to <time>", "ISO 8601, exclusive (default: now)")
    .option("--group-by <group>", "account, connector, route, prefix, error_code, hour or day (default day)")
    .option("--account <username>", "one account's messages")
    .option("--time-zone <zone>", "the zone of times without one, and of hours and days", timeZone, "UTC")
    .option("--json", "print the answer as GET /admin/api/analytics/delivery does")
    .action((opts: DeliveryOptions) =>
      withStore(async (store) => {
        const accountId = opts.account ? (await requireAccount(store.db, opts.account)).id : undefined;
        const answer = await deliveryAnswer(
          store.db,
          accountId,
          { from: opts.from, to: opts.to, group_by: opts.groupBy },
          opts.timeZone,
          Date.now(),
          true,
        );
        print({ status: "success", data: answer }, opts.json, () => {
          const head = `${answer.from} to ${answer.to} by ${answer.group_by} (${answer.time_zone})`;
          const rows = answer.rows.map((row) => [
            row.key ?? "(none)",
            row.sent,
            row.delivered,
            row.failed,
            row.pending,
            row.rejected,
            percent(row.delivery_rate),
            ms(row.latency_p50_ms),
            ms(row.latency_p95_ms),
          ]);
          return `${head}\n${table(
            [answer.group_by.toUpperCase(), "SENT", "DELIVERED", "FAILED", "PENDING", "REJECTED", "RATE", "P50", "P95"],
            rows,
            "no messages in this window",
          )}`;
        });
      }),
    );
}
