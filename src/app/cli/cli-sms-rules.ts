// CLI commands for the SMS rule set: content templates, DLT entity IDs and headers, link
// white-lists and telemarketer chains, and the DND registry. They call admin/operations.ts, as the operator API does.
import fs from "node:fs";
import type { Command } from "commander";
import { loadConfig } from "../../base/runtime/config.js";
import type { Store } from "../../base/store/store.js";
import {
  accountDetail,
  addDltFor,
  addDltLinkFor,
  addDndNumbers,
  addTemplateFor,
  clearTmChainFor,
  dltLinksOf,
  dltRegistrationsOf,
  dndStatusOf,
  dndSummary,
  importDndFor,
  listTemplatesFor,
  removeDltFor,
  removeDltLinkFor,
  removeDndNumbers,
  setTemplateStatusFor,
  setTmChainFor,
  tmChainsOf,
} from "../admin/index.js";
import { groupCommand } from "./cli-group-names.js";
import { addRequestReviewCommands } from "./cli-reviews.js";
import { addReviewCommands, addReviewedList, cliDeps, print, table, withStore } from "./cli-support.js";

/** Invalid lines of an import shown in the text output; --json carries the full list. */
const SHOWN_INVALID = 20;

/** Opens the file before the database, so a typo is one clear line instead of a stream error. */
function openCsv(file: string): NodeJS.ReadableStream {
  if (file === "-") return process.stdin;
  try {
    const stat = fs.statSync(file);
    if (!stat.isFile()) throw new Error(`${file} is not a file`);
    fs.accessSync(file, fs.constants.R_OK);
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (error as Error).message;
    throw new Error(`cannot read ${file}: ${reason}`);
  }
  return fs.createReadStream(file);
}

function addTemplateCommands(program: Command): void {
  const templates = groupCommand(program, "templates");
  templates
    .command("add")
    .description("add a content template, pending unless --approve")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--name <name>", "a name to tell templates apart (1 to 100 characters)")
    .requiredOption("--content <text>", "template text; mark variable parts with {#var#}")
    .option("--dlt-template-id <id>", "template ID registered on DLT")
    .option("--entity-id <id>", "DLT entity ID the template belongs to")
    .option("--sender <header>", "DLT header the template is registered with")
    .option("--notes <text>", "a note for the reviewer")
    .option("--approve", "approve it at once")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const created = await addTemplateFor(cliDeps(store), {
          username: opts.account,
          name: opts.name,
          content: opts.content,
          dltTemplateId: opts.dltTemplateId ?? null,
          entityId: opts.entityId ?? null,
          sender: opts.sender ?? null,
          notes: opts.notes ?? null,
          approve: Boolean(opts.approve),
        });
        print(
          created,
          opts.json,
          () => `template ${created.id} "${created.name}" for ${created.account}: ${created.status}`,
        );
      }),
    );
  addReviewCommands(templates, {
    noun: "template",
    listedBy: "templates list",
    setStatus: (store, id, status, account, reason) =>
      setTemplateStatusFor(cliDeps(store), id, status, account, reason),
    describe: (row) => `template ${row.id} "${row.name}"`,
  });
  addReviewedList(templates, {
    description: "an account's templates: id, status, DLT template ID, name, content",
    read: async (store, account, filter) => {
      const { templates: rows, meta } = await listTemplatesFor(cliDeps(store), account, filter);
      return { rows, meta };
    },
    header: ["ID", "STATUS", "DLT TEMPLATE ID", "NAME", "CONTENT"],
    cells: (t) => [t.id, t.status, t.dlt_template_id, t.name, t.content],
    whenEmpty: "no templates",
  });
}

function addDltCommands(program: Command): void {
  const dlt = groupCommand(program, "dlt");
  for (const [group, kind, flag, label] of [
    ["entities", "entity", "--entity-id <id>", "DLT entity ID"],
    ["headers", "header", "--header <header>", "DLT header"],
  ] as const) {
    const command = dlt.command(group).description(`manage ${label}s`);
    const given = (opts: { entityId?: string; header?: string }) =>
      (kind === "entity" ? opts.entityId : opts.header) ?? "";
    command
      .command("add")
      .description(`white-list a ${label} for an account`)
      .requiredOption("--account <username>", "the account")
      .requiredOption(flag, label)
      .option("--json", "print JSON")
      .action((opts) =>
        withStore(async (store) => {
          const added = await addDltFor(cliDeps(store), opts.account, kind, given(opts));
          const value = "entity_id" in added ? added.entity_id : added.header;
          // A second entity leaves sends that name none without one: say so while the operator is here.
          const { missing } = await accountDetail(cliDeps(store), added.account);
          const noDefault = missing.find((gap) => gap.what === "default_dlt_entity");
          print(added, opts.json, () =>
            [
              `${label} ${value} for ${added.account}: ${added.status}`,
              ...(noDefault ? [`note: ${noDefault.message} Set one: ${noDefault.command}`] : []),
            ].join("\n"),
          );
        }),
      );
    command
      .command("remove")
      .description(`take a ${label} off an account's white-list`)
      .requiredOption("--account <username>", "the account")
      .requiredOption(flag, label)
      .option("--json", "print JSON")
      .action((opts) =>
        withStore(async (store) => {
          const removed = await removeDltFor(cliDeps(store), opts.account, kind, given(opts));
          print(removed, opts.json, () => `removed ${label} ${given(opts).trim().toUpperCase()} of ${opts.account}`);
        }),
      );
    addRequestReviewCommands(command, kind);
  }
  addDltLinkCommands(dlt);
  addDltChainCommands(dlt);
  dlt
    .command("list")
    .description("an account's white-listed DLT entity IDs and headers")
    .requiredOption("--account <username>", "the account")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const registered = await dltRegistrationsOf(cliDeps(store), opts.account);
        print(registered, opts.json, () =>
          [
            `entities: ${registered.entities.map((e) => e.entity_id).join(", ") || "none"}`,
            `headers:  ${registered.headers.map((h) => h.header).join(", ") || "none"}`,
          ].join("\n"),
        );
      }),
    );
}

/** `dlt urls` and `dlt callbacks`: an entity's white-listed links and callback numbers. */
function addDltLinkCommands(dlt: Command): void {
  for (const [group, kind, flag, label] of [
    ["urls", "url", "--url <url>", "link (URL, APK or OTT link; a prefix ends in / or ?)"],
    ["callbacks", "callback", "--number <number>", "callback number"],
  ] as const) {
    const command = dlt
      .command(group)
      .description(`manage the white-listed ${group === "urls" ? "links" : "callback numbers"} of a DLT entity`);
    const given = (opts: { url?: string; number?: string }) => (kind === "url" ? opts.url : opts.number) ?? "";
    const shown = (row: { url: string | null; number: string | null }) => row.url ?? row.number ?? "";
    for (const action of ["add", "remove"] as const) {
      command
        .command(action)
        .description(
          action === "add"
            ? `white-list a ${label} for an entity of an account`
            : `take a ${label} off an entity's list`,
        )
        .requiredOption("--account <username>", "the account")
        .requiredOption("--entity-id <id>", "the DLT entity ID (one of the account's)")
        .requiredOption(flag, label)
        .option("--json", "print JSON")
        .action((opts) =>
          withStore(async (store) => {
            if (action === "add") {
              const added = await addDltLinkFor(cliDeps(store), opts.account, kind, opts.entityId, given(opts));
              print(
                added,
                opts.json,
                () => `${shown(added)} for ${added.account}, entity ${added.entity_id}: ${added.status}`,
              );
            } else {
              const removed = await removeDltLinkFor(cliDeps(store), opts.account, kind, opts.entityId, given(opts));
              print(
                removed,
                opts.json,
                () => `removed ${shown(removed)} of ${removed.account}, entity ${removed.entity_id}`,
              );
            }
          }),
        );
    }
    addRequestReviewCommands(command, kind);
    command
      .command("list")
      .description(`an account's ${group === "urls" ? "links" : "callback numbers"}, per entity, with their state`)
      .requiredOption("--account <username>", "the account")
      .option("--entity-id <id>", "only this entity's")
      .option("--json", "print JSON")
      .action((opts) =>
        withStore(async (store) => {
          const rows = await dltLinksOf(cliDeps(store), opts.account, kind, opts.entityId);
          print(rows, opts.json, () =>
            rows.length === 0
              ? "none"
              : table(
                  ["ID", "ENTITY", kind === "url" ? "URL" : "NUMBER", "STATUS"],
                  rows.map((row) => [row.id, row.entity_id, shown(row), row.status]),
                ),
          );
        }),
      );
  }
}

/**
 * `dlt chains`: the telemarketer chain of each DLT entity, the operator's own TM ID (DLT_TM_ID)
 * last. The gateway adds its own DLT_TM_ID when it carries a chain, so a chain set here without
 * it (not in this command's environment) still ends with it; `list` shows this environment's.
 */
function addDltChainCommands(dlt: Command): void {
  const chains = dlt.command("chains").description("manage the telemarketer chain of each DLT entity");
  const chainDeps = (store: Store) => ({ ...cliDeps(store), tmId: loadConfig().dlt.tmId });
  chains
    .command("set")
    .description("declare an entity's telemarketer chain (replacing it); DLT_TM_ID comes last when carried")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--entity-id <id>", "the DLT entity ID (one of the account's)")
    .requiredOption("--chain <ids>", "the telemarketer IDs in order, comma-separated")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const set = await setTmChainFor(chainDeps(store), opts.account, opts.entityId, String(opts.chain).split(","));
        const own = loadConfig().dlt.tmId ? "" : " (DLT_TM_ID is not set here: the gateway adds its own last)";
        print(set, opts.json, () => `${set.account}, entity ${set.entity_id}: ${set.tm_chain.join(" > ")}${own}`);
      }),
    );
  chains
    .command("clear")
    .description("remove an entity's declared telemarketer chain")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--entity-id <id>", "the DLT entity ID")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const cleared = await clearTmChainFor(chainDeps(store), opts.account, opts.entityId);
        print(cleared, opts.json, () => `cleared the chain of ${cleared.account}, entity ${cleared.entity_id}`);
      }),
    );
  chains
    .command("list")
    .description("an account's DLT entities with their telemarketer chains")
    .requiredOption("--account <username>", "the account")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await tmChainsOf(chainDeps(store), opts.account);
        print(rows, opts.json, () =>
          rows.length === 0
            ? "none"
            : table(
                ["ENTITY", "STATUS", "CHAIN"],
                rows.map((row) => [row.entity_id, row.status, row.tm_chain.join(" > ") || "(none)"]),
              ),
        );
      }),
    );
}

function addDndCommands(program: Command): void {
  const dnd = groupCommand(program, "dnd");
  dnd
    .command("import")
    .description("import the DND registry from a CSV file, streamed")
    .argument("<file>", "CSV whose first column is the mobile number (- reads standard input)")
    .option("--replace", "empty the registry first")
    .option("--json", "print JSON")
    .action((file: string, opts) => {
      const input = openCsv(file);
      return withStore(async (store) => {
        const result = await importDndFor(cliDeps(store), input, { replace: Boolean(opts.replace) });
        print(result, opts.json, () => {
          const lines = [`added ${result.added}, duplicates ${result.duplicates}, invalid ${result.invalid_count}`];
          for (const bad of result.invalid.slice(0, SHOWN_INVALID)) lines.push(`  line ${bad.line}: ${bad.value}`);
          if (result.invalid_count > SHOWN_INVALID) lines.push(`  … ${result.invalid_count - SHOWN_INVALID} more`);
          return lines.join("\n");
        });
      });
    });
  dnd
    .command("add")
    .description("add numbers to the DND registry")
    .argument("<numbers...>")
    .option("--json", "print JSON")
    .action((numbers: string[], opts) =>
      withStore(async (store) => {
        const result = await addDndNumbers(cliDeps(store), numbers);
        print(result, opts.json, () => `added ${result.added}, duplicates ${result.duplicates}`);
      }),
    );
  dnd
    .command("remove")
    .description("take numbers off the DND registry")
    .argument("<numbers...>")
    .option("--json", "print JSON")
    .action((numbers: string[], opts) =>
      withStore(async (store) => {
        const result = await removeDndNumbers(cliDeps(store), numbers);
        print(result, opts.json, () => `removed ${result.removed}`);
      }),
    );
  dnd
    .command("check")
    .description("whether a number is on the DND registry")
    .argument("<number>")
    .option("--json", "print JSON")
    .action((number: string, opts) =>
      withStore(async (store) => {
        const result = await dndStatusOf(cliDeps(store), number);
        print(result, opts.json, () => `${result.number}: ${result.dnd ? "in the DND registry" : "not in DND"}`);
      }),
    );
  dnd
    .command("count")
    .description("how many numbers the DND registry holds")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const result = await dndSummary(cliDeps(store));
        print(result, opts.json, () => String(result.count));
      }),
    );
}

export function addSmsRuleCommands(program: Command): void {
  addTemplateCommands(program);
  addDltCommands(program);
  addDndCommands(program);
}
