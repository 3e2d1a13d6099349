// What every operator command of the CLI shares: option parsers, a store opened on the
// configured database for the length of one command, and printing as text or JSON.
import { type Command, InvalidArgumentError, Option } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { loadConfig } from "../../base/runtime/config.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import { openStore, type Store, storeOptions } from "../../base/store/store.js";
import { cliActor } from "../../domain/audit/index.js";

export function onOff(value: string): boolean {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new InvalidArgumentError("use on or off");
}

export function wholeNumber(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError("use a whole number");
  return Number(value);
}

/** A number of at least 0, decimals allowed (a percentage). */
export function decimal(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError("use a number of 0 or more, e.g. 12.5");
  return n;
}

export function signedNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n === 0) {
    throw new InvalidArgumentError("use a number other than 0, e.g. 50 or -50");
  }
  return n;
}

export function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError("use a positive number");
  return n;
}

export async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config.database, storeOptions(config));
  try {
    await store.migrate();
    return await fn(store);
  } finally {
    await store.close();
  }
}

export function print(value: unknown, json: boolean | undefined, human: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
}

/** Every row of a paginated list, read `perPage` at a time (a CLI listing prints them all). */
export async function allPages<T>(
  read: (page: number, perPage: number) => Promise<{ rows: T[]; meta: { last_page: number } }>,
  perPage = 1000,
): Promise<T[]> {
  const all: T[] = [];
  for (let page = 1; ; page++) {
    const { rows, meta } = await read(page, perPage);
    all.push(...rows);
    if (page >= meta.last_page) return all;
  }
}

/**
 * The `approve` and `reject` subcommands of what operators review (sender IDs, templates,
 * keywords, DLT registrations, links and callback numbers, caller numbers): each sets one item's
 * status by its id and prints what it became; `reject` takes `--reason <text>`, which the account
 * reads on the item (rejection_reason).
 */
export function addReviewCommands<Row extends { account?: string | undefined }>(
  group: Command,
  item: {
    /** What it is, in the help: "sender ID". */
    noun: string;
    /** The command that lists them with their ids: "sender-ids list". */
    listedBy: string;
    /** Sets the status; given the account the operator named, one of another account is refused. */
    setStatus: (
      store: Store,
      id: number,
      status: "approved" | "rejected",
      account: string | undefined,
      reason: string | null,
      /** The command's options, for `approveOption`'s value. */
      options: Record<string, unknown>,
    ) => Promise<Row>;
    /** The row in words, after its new status: "sender ID ACMEIN". */
    describe: (row: Row) => string;
    /** One more option of `approve` (sender IDs: `--no-dlt-header`). */
    approveOption?: { flags: string; description: string };
    /** The subcommands to add, when not both (a caller number's `approve` is by number). */
    actions?: readonly ("approve" | "reject")[];
  },
): void {
  for (const [action, status] of [
    ["approve", "approved"],
    ["reject", "rejected"],
  ] as const) {
    if (item.actions && !item.actions.includes(action)) continue;
    const command = group
      .command(action)
      .description(`${action} a ${item.noun} by its id`)
      .requiredOption("--id <id>", `${item.noun} id (${item.listedBy} shows it)`, wholeNumber)
      .option("--account <username>", `refuse a ${item.noun} of another account (the id alone picks its owner)`);
    if (action === "reject") {
      command.option("--reason <text>", "why, for the account to read (up to 500 characters)");
    } else if (item.approveOption) {
      command.option(item.approveOption.flags, item.approveOption.description);
    }
    command
      .option("--json", "print JSON")
      .action((opts: { id: number; account?: string; reason?: string; json?: boolean }) =>
        withStore(async (store) => {
          const row = await item.setStatus(store, opts.id, status, opts.account, opts.reason ?? null, opts);
          const because = opts.reason?.trim() ? ` (${opts.reason.trim()})` : "";
          print(row, opts.json, () => `${status} ${item.describe(row)} of account ${row.account}${because}`);
        }),
      );
  }
}

/**
 * The `list` subcommand of what operators review (templates, keywords): an account's items, every
 * page, `--status` filtering, printed as a table (or JSON).
 */
export function addReviewedList<Row>(
  group: Command,
  list: {
    description: string;
    read: (
      store: Store,
      account: string,
      filter: { status: ApprovalStatus | undefined; page: number; perPage: number },
    ) => Promise<{ rows: Row[]; meta: { last_page: number } }>;
    header: readonly string[];
    cells: (row: Row) => readonly (string | number | null)[];
    whenEmpty: string;
  },
): void {
  group
    .command("list")
    .description(list.description)
    .requiredOption("--account <username>", "the account")
    .addOption(new Option("--status <status>", "only these").choices(["pending", "approved", "rejected"]))
    .option("--json", "print JSON")
    .action((opts: { account: string; status?: ApprovalStatus; json?: boolean }) =>
      withStore(async (store) => {
        const all = await allPages((page, perPage) =>
          list.read(store, opts.account, { status: opts.status, page, perPage }),
        );
        print(all, opts.json, () => table(list.header, all.map(list.cells), list.whenEmpty));
      }),
    );
}

/**
 * A CSV import with a header and no rows would empty the card it replaces, putting every account
 * on it back to the default price: refused unless `--allow-empty` says that is the intent.
 */
export function refuseEmptyImport(rows: readonly unknown[], allowEmpty: boolean | undefined, card: string): void {
  if (rows.length > 0 || allowEmpty) return;
  throw new GatewayError(
    "invalid_request",
    `The file has no rows after its header: importing it would empty ${card}. Pass --allow-empty to do that.`,
  );
}

/** An option given several times (`--template A --template B`) collects every value. */
export function repeatable(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** Like repeatable, and each value may also be a comma-separated list (`--sender ACME,ACMEOT`). */
export function repeatableList(value: string, previous: string[] = []): string[] {
  return [
    ...previous,
    ...value
      .split(",")
      .map((part) => part.trim())
      .filter(Boolean),
  ];
}

/**
 * Rows under a header row, each column as wide as its widest cell: how every listing prints
 * (`--json` is the form for programs). With no rows, `whenEmpty` says so in words instead.
 */
export function table(
  header: readonly string[],
  rows: readonly (readonly (string | number | null)[])[],
  whenEmpty?: string,
): string {
  if (rows.length === 0 && whenEmpty !== undefined) return whenEmpty;
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === "" ? "-" : String(cell))))];
  const widths = header.map((_, column) => Math.max(...cells.map((row) => (row[column] ?? "").length)));
  return cells
    .map((row) =>
      row
        .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

/**
 * What an operator action takes from the CLI: the store, the system clock, the CLI as the actor,
 * DLT_CHAIN_REQUIRED (the account view's readiness names entities without a chain when on),
 * DLT_TEMPLATES_ALL_ROUTES (it asks promotional accounts for a template when on) and DLT_TM_ID
 * (last of every chain shown).
 */
export function cliDeps(store: Store) {
  const dlt = loadConfig().dlt;
  return {
    store,
    clock: systemClock,
    actor: cliActor(),
    dltChainRequired: dlt.chainRequired,
    dltTemplatesAllRoutes: dlt.templatesAllRoutes,
    dltTmId: dlt.tmId,
  };
}
