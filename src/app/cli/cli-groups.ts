// The operator command groups of the `switchboard` executable: each top-level command's name
// and description, and the module that declares its subcommands. A command line loads only the
// module of the group it names (and --help none of them), so a command does not parse and run
// what it never calls: the modules of every group import most of the gateway between them.
// Imports nothing but commander's types, and is loaded by every command line.
import type { Command } from "commander";

export type AddCommands = (program: Command) => void;

/** What every group module exports: its own groups' subcommands, under `program`. */
interface GroupModule {
  load: () => Promise<AddCommands>;
  groups: Record<string, string>;
}

export const GROUP_MODULES: readonly GroupModule[] = [
  {
    load: async () => (await import("./cli-accounts.js")).addAccountCommands,
    groups: {
      accounts: "manage accounts",
      keys: "manage API keys",
      credits: "manage credits",
      "sender-ids": "manage sender IDs",
      "login-locks": "password logins locked after repeated failures",
    },
  },
  {
    load: async () => (await import("./cli-sms-rules.js")).addSmsRuleCommands,
    groups: {
      templates: "manage DLT content templates",
      dlt: "manage DLT entity IDs and headers white-listed per account",
      dnd: "manage the DND registry promotional routes must not reach",
    },
  },
  {
    load: async () => (await import("./cli-inbound.js")).addInboundCommands,
    groups: {
      "inbound-numbers": "manage the virtual numbers whose inbound SMS an account receives",
      keywords: "review the keywords accounts create",
      suppressions: "manage an account's suppression list (numbers that opted out of its promotional SMS)",
    },
  },
  {
    load: async () => (await import("./cli-voice.js")).addVoiceCommands,
    groups: { "voice-caller-ids": "manage the caller numbers (from) an account may place voice calls from" },
  },
  {
    load: async () => (await import("./cli-carriers.js")).addCarrierCommands,
    groups: {
      carriers: "manage SMS connectors (smpp, http-sms): add, replace, enable, remove, health",
      routes: "manage SMS routes: route code + number prefix → connectors",
    },
  },
  {
    load: async () => (await import("./cli-smpp.js")).addSmppCommands,
    groups: { smpp: "the SMPP server's binds (SMPP_SERVER_PORT)" },
  },
  {
    load: async () => (await import("./cli-messages.js")).addMessageCommands,
    groups: { messages: "every account's messages: find one, read its timeline" },
  },
];

const DESCRIPTIONS: Record<string, string> = Object.assign({}, ...GROUP_MODULES.map((m) => m.groups));

/** A group's top-level command, described as the manifest says (its module adds the rest). */
export function groupCommand(program: Command, name: string): Command {
  const description = DESCRIPTIONS[name];
  if (description === undefined) throw new Error(`cli-groups.ts does not list the command group "${name}".`);
  return program.command(name).description(description);
}

/** The group modules a command line needs: the one its first word names (or `help <group>`), else none. */
export function modulesFor(argv: readonly string[]): GroupModule[] {
  const words = argv.slice(2).filter((word) => !word.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return GROUP_MODULES.filter((m) => name !== undefined && name in m.groups);
}
