// CLI commands for price cards: import a card from CSV (replacing its rows; a bad line refuses the
// whole file with its line number), show one, list them, delete one no account is priced by. An account's card: `accounts set
// --price-card`. They call domain/accounts/price-cards.ts, as the operator API does. `prices margin`:
// revenue, carriers' cost and margin as GET /admin/api/analytics/margin answers them (times in UTC).
import { readFile } from "node:fs/promises";
import type { Command } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import {
  DEFAULT_CARD,
  deletePriceCard,
  describePriceRow,
  findPriceCard,
  listPriceCards,
  parsePriceCsv,
  priceCardRows,
  replacePriceCard,
  type SubAccountBelow,
  subAccountsBelowParent,
} from "../../domain/accounts/index.js";
import { priceCardDeleteEntry, priceCardEntry } from "../admin/index.js";
import { marginAnswer } from "../analytics-routes.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, print, refuseEmptyImport, table, withStore } from "./cli-support.js";

export function addPriceCommands(program: Command): void {
  const prices = groupCommand(program, "prices");
  prices
    .command("import")
    .description("replace a price card's rows with a CSV file (header channel,route,prefix,price[,effective_from])")
    .requiredOption("--card <name>", "the card (created if new)")
    .requiredOption("--file <path>", "the CSV file")
    .option("--allow-empty", "accept a file with no rows, emptying the card")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const text = await readFile(opts.file, "utf8");
        const rows = parsePriceCsv(text);
        refuseEmptyImport(
          rows,
          opts.allowEmpty,
          `the price card ${opts.card} (every account on it back to 1 credit a unit)`,
        );
        const card = (await findPriceCard(store.db, opts.card, { hidden: true }))?.name ?? opts.card.toLowerCase();
        const entry = priceCardEntry(cliDeps(store), card, rows);
        const written = await replacePriceCard(store, systemClock, card, rows, entry);
        // Imported even so: the sub-accounts it leaves below their parent's price named (decision 0168).
        const below = await subAccountsBelowParent(store.db, Date.now(), { card });
        print({ name: card, rows: written, below_parent: below }, opts.json, () =>
          [`imported ${written} ${written === 1 ? "row" : "rows"} into ${card}`, ...belowParentLines(below)].join("\n"),
        );
      }),
    );
  prices
    .command("show")
    .description("a price card's rows (prices in credits per SMS segment or voice unit)")
    .requiredOption("--card <name>", "the card")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const card = opts.card === DEFAULT_CARD ? opts.card : (await findPriceCard(store.db, opts.card))?.name;
        const rows = card === undefined ? undefined : await priceCardRows(store.db, card);
        if (!rows) throw new GatewayError("not_found", `No price card named "${opts.card}".`);
        const described = rows.map(describePriceRow);
        print({ name: card, rows: described }, opts.json, () =>
          table(
            ["CHANNEL", "ROUTE", "PREFIX", "PRICE", "EFFECTIVE FROM"],
            described.map((r) => [r.channel, r.route, r.prefix, String(r.price), r.effective_from ?? "always"]),
            `no rows: every unit at 1 credit`,
          ),
        );
      }),
    );
  prices
    .command("delete")
    .description("delete a price card no account is priced by (its name in any case)")
    .argument("<name>", "the card")
    .option("--json", "print JSON")
    .action((name: string, opts: { json?: boolean }) =>
      withStore(async (store) => {
        if (name.trim().toLowerCase() === DEFAULT_CARD) {
          throw new GatewayError("invalid_request", `The card "${DEFAULT_CARD}" is built in (1 credit a unit).`);
        }
        const card = await deletePriceCard(store, systemClock, name, priceCardDeleteEntry(cliDeps(store)));
        print({ name: card, deleted: true }, opts.json, () => `deleted the price card ${card}`);
      }),
    );
  prices
    .command("margin")
    .description("revenue, carriers' cost and margin of a window's SMS and voice, in credits")
    .option("--from <time>", "ISO 8601, inclusive (default: 30 days before --to)")
    .option("--to <time>", "ISO 8601, exclusive (default: now)")
    .option("--group-by <group>", "account (default), connector or prefix")
    .option("--json", "print the answer as GET /admin/api/analytics/margin does")
    .action((opts: { from?: string; to?: string; groupBy?: string; json?: boolean }) =>
      withStore(async (store) => {
        const query = { from: opts.from, to: opts.to, group_by: opts.groupBy };
        const answer = await marginAnswer(store.db, query, "UTC", Date.now());
        print({ status: "success", data: answer }, opts.json, () => {
          const rows = [...answer.rows, { ...answer.totals, key: "(total)", uncosted: 0 }].map((row) => [
            row.key ?? "(none)",
            String(row.messages),
            String(row.revenue),
            String(row.cost),
            String(row.margin),
          ]);
          const head = `${answer.from} to ${answer.to} by ${answer.group_by}`;
          return `${head}\n${table([answer.group_by.toUpperCase(), "MESSAGES", "REVENUE", "COST", "MARGIN"], rows, "no messages")}`;
        });
      }),
    );
  prices
    .command("list")
    .description("every price card, with its rows and the accounts it prices")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const cards = await listPriceCards(store.db);
        print(cards, opts.json, () =>
          table(
            ["CARD", "ROWS", "ACCOUNTS", "UPDATED"],
            cards.map((c) => [c.name, String(c.rows), String(c.accounts), c.updated_at ?? "built in"]),
            "no cards",
          ),
        );
      }),
    );
}

/** The warning lines of sub-accounts priced below their parent (none: no lines). */
export function belowParentLines(below: readonly SubAccountBelow[]): string[] {
  if (below.length === 0) return [];
  const n = below.length;
  return [
    `warning: ${n} ${n === 1 ? "sub-account is" : "sub-accounts are"} now priced below ${n === 1 ? "its" : "their"} parent:`,
    ...below.map((sub) => `  - ${sub.message}`),
    "  Raise their cards (prices import) or put them on a markup (accounts set --no-price-card).",
  ];
}
