// CLI commands of the log of refused sends: `refusals list`, every account's (or one's) refusals
// newest first with the filters of GET /admin/api/refusals. Times without a zone are read in UTC
// (the CLI has no account of its own).
import type { Command } from "commander";
import { operatorRefusalPage } from "../../domain/refusals/index.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, withStore } from "./cli-support.js";

interface ListOptions {
  account?: string;
  from?: string;
  to?: string;
  code?: string;
  recipient?: string;
  username?: string;
  limit?: string;
  cursor?: string;
  json?: boolean;
}

export function addRefusalCommands(program: Command): void {
  const refusals = groupCommand(program, "refusals");
  refusals
    .command("list")
    .description("refused sends of every account (or one), newest first")
    .option("--account <username>", "one account's refusals (- for unauthenticated callers)")
    .option("--from <time>", "ISO 8601, inclusive (without a zone: UTC)")
    .option("--to <time>", "ISO 8601, exclusive (without a zone: UTC)")
    .option("--code <code>", "the error code, e.g. dlt_template_mismatch")
    .option("--recipient <number>", "a recipient as asked (with or without +)")
    .option("--username <username>", "the username a password login named (a wrong password's refusals too)")
    .option("--limit <n>", "rows per page, 1 to 500 (default 50)")
    .option("--cursor <cursor>", "the next page: the cursor the last page printed")
    .option("--json", "print the answer as GET /admin/api/refusals does")
    .action((opts: ListOptions) =>
      withStore(async (store) => {
        const page = await operatorRefusalPage(
          store.db,
          {
            account: opts.account,
            from: opts.from,
            to: opts.to,
            code: opts.code,
            recipient: opts.recipient,
            username: opts.username,
            limit: opts.limit,
            cursor: opts.cursor,
          },
          "UTC",
        );
        print(page, opts.json, () => {
          const rows = page.data.map((row) => [
            row.at,
            row.account ?? (row.username ? `- (${row.username})` : "-"),
            row.family,
            row.operation,
            row.recipients.join(",") || null,
            row.answer,
            row.reason,
          ]);
          const listing = table(
            ["AT", "ACCOUNT", "FAMILY", "OPERATION", "RECIPIENTS", "ANSWER", "REASON"],
            rows,
            "no refusals match",
          );
          const next = page.meta.next_cursor ? `\nmore: --cursor ${page.meta.next_cursor}` : "";
          return `${listing}${next}`;
        });
      }),
    );
}
