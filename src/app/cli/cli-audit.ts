// CLI commands of the audit log: `audit list`, every entry (or one account's) newest first with
// the filters of GET /admin/api/audit, and `audit verify`, the chain checked from its first
// entry: exit 1 naming the first bad entry (or, with --file, an operator's JSON Lines export
// checked without the database). Times without a zone are read in UTC.
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { checkAuditExport, verifyAuditChain } from "../../domain/audit/index.js";
import { auditPage, readerOf } from "../audit-routes.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, withStore } from "./cli-support.js";

interface ListOptions {
  account?: string;
  from?: string;
  to?: string;
  action?: string;
  actor?: string;
  actorUser?: string;
  credential?: string;
  target?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

const change = (before: unknown, after: unknown) => {
  const text = (value: unknown) => (value === null ? "-" : JSON.stringify(value));
  const words = `${text(before)} → ${text(after)}`;
  return words.length > 80 ? `${words.slice(0, 79)}…` : words;
};

export function addAuditCommands(program: Command): void {
  const audit = groupCommand(program, "audit");
  audit
    .command("list")
    .description("changes made by operators and accounts, newest first")
    .option("--account <username>", "one account's entries: changes to it and changes it made")
    .option("--from <time>", "ISO 8601, inclusive (without a zone: UTC)")
    .option("--to <time>", "ISO 8601, exclusive (without a zone: UTC)")
    .option("--action <action>", "an action (template.approve) or a thing (template)")
    .option("--actor <username>", "the acting account's username, or cli")
    .option("--actor-user <login>", "the login that acted: a staff member, a team user, the owner login")
    .option("--credential <credential>", "what acted, as entries name it: key:12 (or 12), session:<id>, user@host")
    .option("--target <words>", "part of the target, e.g. 'template 12'")
    .option("--limit <n>", "rows per page, 1 to 500 (default 50)")
    .option("--cursor <cursor>", "the next page: the cursor the last page printed")
    .option("--json", "print the answer as GET /admin/api/audit does")
    .action((opts: ListOptions) =>
      withStore(async (store) => {
        const { account, json, actorUser, ...query } = opts;
        const page = await auditPage(
          store.db,
          { ...query, actor_user: actorUser },
          "UTC",
          await readerOf(store.db, account),
        );
        print(page, json, () => {
          const rows = page.data.map((row) => [
            row.seq,
            row.at,
            row.actor_user ? `${row.actor}/${row.actor_user}` : row.actor,
            row.channel,
            row.address,
            // The account the entry concerns: a target such as "webhook URLs" does not name it.
            row.account,
            row.action,
            row.target,
            change(row.before, row.after),
          ]);
          const listing = table(
            ["SEQ", "AT", "ACTOR", "CHANNEL", "ADDRESS", "ACCOUNT", "ACTION", "TARGET", "BEFORE → AFTER"],
            rows,
            "no entries match",
          );
          const next = page.meta.next_cursor ? `\nmore: --cursor ${page.meta.next_cursor}` : "";
          return `${listing}${next}`;
        });
      }),
    );
  audit
    .command("verify")
    .description("check the log's hash chain; exit 1 naming the first deleted, edited or re-ordered entry")
    .option("--file <export.jsonl>", "check an operator's JSON Lines export instead, without the database")
    .option("--json", "print the report as JSON")
    .action((opts: { json?: boolean; file?: string }) => {
      if (opts.file !== undefined) return verifyExport(opts.file, opts.json);
      return withStore(async (store) => {
        const report = await verifyAuditChain(store.db);
        print(report, opts.json, () =>
          report.broken
            ? `audit log BROKEN at entry ${report.broken.seq}: ${report.broken.reason}\n${report.entries} entries before it verified`
            : `audit log intact: ${report.entries} entries, head ${report.head.seq} ${report.head.hash}`,
        );
        if (report.broken) process.exitCode = 1;
      });
    });
}

/** `audit verify --file`: each line against its hash, each against the one before it. */
function verifyExport(file: string, json: boolean | undefined): void {
  const report = checkAuditExport(readFileSync(file, "utf8").split("\n"));
  const gaps = report.gaps.map((gap) => (gap.from === gap.to ? `${gap.from}` : `${gap.from}-${gap.to}`));
  print(report, json, () => {
    if (report.broken) {
      return `export BROKEN at entry ${report.broken.seq}: ${report.broken.reason}\n${report.entries} entries before it verified`;
    }
    const last = report.last ? `, last ${report.last.seq} ${report.last.hash}` : "";
    const missing =
      gaps.length === 0 ? "" : `\nentries not in the file (a filtered export, or taken out): ${gaps.join(", ")}`;
    return `export intact: ${report.entries} entries${last}${missing}`;
  });
  if (report.broken) process.exitCode = 1;
}
