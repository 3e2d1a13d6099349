// CLI commands for the support desk: every account's messages with the operator list's filters
// (`messages list`) and one message's timeline (`messages show`), as GET /admin/api/messages
// answers them. Times without a zone are read in --time-zone; without it, in the --account's zone,
// else in UTC (the CLI has no account of its own).
import fs from "node:fs";
import { pipeline } from "node:stream/promises";
import type { Command } from "commander";
import { exportFormatOf, exportStream } from "../../base/http/exports.js";
import { queryWindow } from "../../base/http/query-params.js";
import type { Db } from "../../base/store/store.js";
import { MESSAGE_EXPORT_COLUMNS } from "../../channels/sms/index.js";
import { partsOfMessage } from "../../delivery/carriers/smpp/index.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { operatorExportRows, operatorMessageDetail, operatorMessagePage } from "../admin/index.js";
import { timeZone } from "./cli-analytics.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, withStore } from "./cli-support.js";

interface ListOptions {
  account?: string;
  channel?: string;
  status?: string;
  recipient?: string;
  from?: string;
  to?: string;
  broadcastId?: string;
  jobId?: string;
  id?: string;
  connector?: string;
  errorCode?: string;
  route?: string;
  timeZone?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

interface ExportOptions extends Omit<ListOptions, "limit" | "cursor" | "json"> {
  format: string;
  output?: string;
  json?: boolean;
}

/** An SMS's DLT facts as `messages show` prints them (none for other channels). */
type Detail = Awaited<ReturnType<typeof operatorMessageDetail>>;

function dltLines(dlt: Detail["dlt"]): string[] {
  if (!dlt) return [];
  const matched = dlt.matched_template;
  return [
    `dlt       header ${dlt.header ?? UNKNOWN_HEADER}, entity ${dlt.entity_id ?? "-"}, template id ${dlt.template_id ?? "-"}`,
    `template  ${matched ? `${matched.name ?? "(removed)"} (#${matched.id})` : "none matched"}`,
    `tm chain  ${dlt.tm_chain ? `${dlt.tm_chain} (sha256 ${dlt.tm_chain_hash})` : dlt.scrubbing ? "none declared" : "-"}`,
    `scrubbing ${dlt.scrubbing ? SCRUBBING[dlt.scrubbing] : "not recorded (accepted before the gateway kept it)"}`,
  ];
}

/** A PROMOTIONAL message whose header at the carrier was not recorded (decision 0187). */
const UNKNOWN_HEADER =
  "unknown (not recorded: sent from PROMOTIONAL before migration 0075 kept it, or refused before a carrier got it)";

/** What each scrubbing outcome means, as `messages show` says it. */
const SCRUBBING: Record<NonNullable<NonNullable<Detail["dlt"]>["scrubbing"]>, string> = {
  matched: "matched (header and entity white-listed, text matched an approved template)",
  unmatched: "unmatched (header and entity white-listed, no template matched: the route takes any text)",
  off: "off (the account did not scrub: nothing was checked)",
  international: "international (DLT does not cover it)",
};

/** The filters both `messages list` and `messages export` take, as options. */
function withFilterOptions(command: Command): Command {
  return command
    .option("--account <username>", "one account's messages")
    .option("--channel <list>", "sms, voice, email, whatsapp (comma-separated)")
    .option("--status <list>", "scheduled, queued, submitted, delivered, failed, cancelled, sending, sent, read")
    .option("--recipient <number>", "a number or address, written any way a send takes it")
    .option("--from <time>", "ISO 8601, inclusive (without a zone: in --time-zone)")
    .option("--to <time>", "ISO 8601, exclusive (without a zone: in --time-zone)")
    .option(
      "--time-zone <zone>",
      "the zone of --from and --to without one (default: the --account's zone, else UTC)",
      timeZone,
    )
    .option("--broadcast-id <id>", "the messages of one send")
    .option("--job-id <id>", "the messages of one bulk job")
    .option("--id <id>", "any id the status call takes (queue, broadcast or carrier id)")
    .option("--connector <list>", "the connector that took it (comma-separated)")
    .option("--error-code <list>", "its error code (comma-separated)")
    .option("--route <list>", "T, P, PS, I, V, whatsapp or email (comma-separated)");
}

type FilterOptions = Omit<ListOptions, "limit" | "cursor" | "json">;

/**
 * The zone --from and --to are read in (--time-zone, else the --account's, else UTC), once they
 * are checked in the CLI's words: the API's "Query parameter" and "your account's time zone" are
 * not what a CLI user typed.
 */
async function windowZone(db: Db, opts: FilterOptions): Promise<string> {
  const zone = opts.timeZone ?? (opts.account ? (await requireAccount(db, opts.account)).time_zone : "UTC");
  const source = opts.timeZone
    ? "--time-zone"
    : opts.account
      ? `${opts.account}'s zone; --time-zone changes it`
      : "the default; --time-zone changes it";
  queryWindow((bound) => opts[bound]?.trim() || undefined, zone, {
    name: (bound) => `--${bound}`,
    zone: `read in ${zone}, ${source}`,
  });
  return zone;
}

/** Those options as the operator list's query. */
function filtersOf(opts: FilterOptions) {
  return {
    account: opts.account,
    channel: opts.channel,
    status: opts.status,
    recipient: opts.recipient,
    from: opts.from,
    to: opts.to,
    broadcast_id: opts.broadcastId,
    job_id: opts.jobId,
    id: opts.id,
    connector: opts.connector,
    error_code: opts.errorCode,
    route: opts.route,
  };
}

export function addMessageCommands(program: Command): void {
  const messages = groupCommand(program, "messages");
  withFilterOptions(
    messages
      .command("list")
      .description("messages of every account (or one), newest first, with the operator list's filters"),
  )
    .option("--limit <n>", "rows per page, 1 to 500 (default 50)")
    .option("--cursor <cursor>", "the next page: the cursor the last page printed")
    .option("--json", "print the answer as GET /admin/api/messages does")
    .action((opts: ListOptions) =>
      withStore(async (store) => {
        const page = await operatorMessagePage(
          store.db,
          { ...filtersOf(opts), limit: opts.limit, cursor: opts.cursor },
          await windowZone(store.db, opts),
        );
        print(page, opts.json, () => {
          const rows = page.data.map((row) => [
            row.created_at,
            row.account,
            row.message_id,
            row.channel,
            row.mobile,
            row.status,
            "error" in row && row.error ? row.error.code : null,
          ]);
          const listing = table(
            ["ACCEPTED", "ACCOUNT", "MESSAGE", "CHANNEL", "RECIPIENT", "STATUS", "ERROR"],
            rows,
            "no messages match",
          );
          const next = page.meta.next_cursor ? `\nmore: --cursor ${page.meta.next_cursor}` : "";
          return `${listing}${next}`;
        });
      }),
    );
  withFilterOptions(
    messages
      .command("export")
      .description("every message the filters match, newest first, as CSV or JSON Lines (streamed)")
      .option("--format <format>", "csv (a header row; formula-safe text) or jsonl", "csv")
      .option("--json", "JSON Lines, one message per line (the same as --format jsonl)")
      .option("--output <file>", "write to this file instead of standard output"),
  ).action((opts: ExportOptions) =>
    withStore(async (store) => {
      const format = opts.json ? "jsonl" : exportFormatOf(opts.format);
      const rows = await operatorExportRows(store, filtersOf(opts), await windowZone(store.db, opts));
      const output = opts.output ? fs.createWriteStream(opts.output) : process.stdout;
      await pipeline(exportStream(format, ["account", ...MESSAGE_EXPORT_COLUMNS], rows), output, {
        end: opts.output !== undefined,
      });
    }),
  );
  messages
    .command("show")
    .description(
      "one message of any account: its account, status, cost (every level's), carrier, DLT facts, parts and timeline",
    )
    .argument("<id>", "its queue id (q…) or the carrier's id")
    .option("--json", "print the answer as GET /admin/api/messages/{id} does")
    .action((id: string, opts: { json?: boolean }) =>
      withStore(async (store) => {
        // The header a carrier got is the one recorded at its submit (decision 0187), not a setting's.
        const detail = await operatorMessageDetail(store.db, id, partsOfMessage);
        print(detail, opts.json, () => {
          const m = detail.message;
          const head = [
            `message   ${m.message_id} (account ${detail.account}, ${m.channel}, route ${m.route})`,
            `to        ${m.mobile} from ${m.sender_id}`,
            `status    ${m.status}${"error" in m && m.error ? ` (${m.error.code}: ${m.error.message})` : ""}`,
            `cost      ${detail.cost.credits} ${detail.cost.wallet} credit(s)${detail.cost.refunded ? ", refunded" : ""}`,
            `carrier   ${detail.carrier.connector ?? "-"}${detail.carrier.vendor_message_id ? `, id ${detail.carrier.vendor_message_id}` : ""}`,
            ...dltLines(detail.dlt),
          ];
          if (detail.charges.length > 1) {
            head.push(`charged   ${detail.charges.map((level) => `${level.account} ${level.credits}`).join(", ")}`);
          }
          const timeline = table(
            ["AT", "EVENT", "DETAIL"],
            detail.timeline.map((event) => [event.at, event.event, event.detail]),
          );
          return `${head.join("\n")}\n\n${timeline}`;
        });
      }),
    );
}
