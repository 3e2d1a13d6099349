// CLI commands for inbound SMS: virtual numbers, keyword approval and suppression lists. They
// call inbound/operations.ts, as the operator API does.
import type { Command } from "commander";
import {
  addSuppressionsFor,
  assignNumberFor,
  keywordsOf,
  numbersOf,
  removeNumberFor,
  removeSuppressionsFor,
  setKeywordStatusFor,
} from "../../channels/inbound/index.js";
import { groupCommand } from "./cli-group-names.js";
import { addReviewCommands, addReviewedList, cliDeps, print, table, withStore } from "./cli-support.js";

function addNumberCommands(program: Command): void {
  const numbers = groupCommand(program, "inbound-numbers");
  numbers
    .command("add")
    .description("assign a virtual number to an account")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--number <number>", "the virtual number (digits; an Indian mobile may have +91, 91 or 0)")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const { number, created } = await assignNumberFor(cliDeps(store), opts.account, opts.number);
        print(
          number,
          opts.json,
          () => `${number.number} ${created ? "assigned to" : "already belongs to"} ${number.account}`,
        );
      }),
    );
  numbers
    .command("remove")
    .description("take a virtual number from an account")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--number <number>", "the virtual number")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const removed = await removeNumberFor(cliDeps(store), opts.account, opts.number);
        print(removed, opts.json, () => `removed ${removed.number} from ${removed.account}`);
      }),
    );
  numbers
    .command("list")
    .description("an account's virtual numbers")
    .requiredOption("--account <username>", "the account")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await numbersOf(cliDeps(store), opts.account);
        print(rows, opts.json, () =>
          table(
            ["NUMBER"],
            rows.map((row) => [row.number]),
            "no inbound numbers",
          ),
        );
      }),
    );
}

function addKeywordCommands(program: Command): void {
  const keywords = groupCommand(program, "keywords");
  addReviewCommands(keywords, {
    noun: "keyword",
    listedBy: "keywords list",
    setStatus: (store, id, status, account, reason) => setKeywordStatusFor(cliDeps(store), id, status, account, reason),
    describe: (row) => `keyword ${row.id} ${row.key}`,
  });
  addReviewedList(keywords, {
    description: "an account's keywords: id, status, keyword, reply type and text",
    read: async (store, account, filter) => {
      const { keywords: rows, meta } = await keywordsOf(cliDeps(store), account, filter);
      return { rows, meta };
    },
    header: ["ID", "STATUS", "KEYWORD", "REPLY", "TEXT"],
    cells: (k) => [k.id, k.status, k.key, k.response_type, k.static_message],
    whenEmpty: "no keywords",
  });
}

function addSuppressionCommands(program: Command): void {
  const suppressions = groupCommand(program, "suppressions");
  suppressions
    .command("add")
    .description("put numbers on an account's suppression list")
    .requiredOption("--account <username>", "the account")
    .argument("<numbers...>")
    .option("--json", "print JSON")
    .action((numbers: string[], opts) =>
      withStore(async (store) => {
        const result = await addSuppressionsFor(cliDeps(store), opts.account, numbers);
        print(result, opts.json, () => `added ${result.added}, duplicates ${result.duplicates}`);
      }),
    );
  suppressions
    .command("remove")
    .description("take numbers off an account's suppression list")
    .requiredOption("--account <username>", "the account")
    .argument("<numbers...>")
    .option("--json", "print JSON")
    .action((numbers: string[], opts) =>
      withStore(async (store) => {
        const result = await removeSuppressionsFor(cliDeps(store), opts.account, numbers);
        print(result, opts.json, () => `removed ${result.removed}`);
      }),
    );
}

export function addInboundCommands(program: Command): void {
  addNumberCommands(program);
  addKeywordCommands(program);
  addSuppressionCommands(program);
}
