// The operator command groups of the `switchboard` executable: each module that declares
// subcommands, and the top-level commands it adds (described in cli-group-names.ts). A command
// line loads only the module of the group it names (and --help none of them), so a command does
// not parse and run what it never calls: the modules of every group import most of the gateway
// between them. Imports nothing but commander's types, and is loaded by every command line.
import type { Command } from "commander";

export type AddCommands = (program: Command) => void;

/** What every group module exports: its own groups' subcommands, under `program`. */
interface GroupModule {
  load: () => Promise<AddCommands>;
  groups: readonly string[];
}

export const GROUP_MODULES: readonly GroupModule[] = [
  {
    load: async () => (await import("./cli-accounts.js")).addAccountCommands,
    groups: ["accounts", "keys", "credits", "sender-ids", "login-locks"],
  },
  {
    load: async () => (await import("./cli-users.js")).addUserCommands,
    groups: ["users", "staff"],
  },
  {
    load: async () => (await import("./cli-sms-rules.js")).addSmsRuleCommands,
    groups: ["templates", "dlt", "dnd"],
  },
  {
    load: async () => (await import("./cli-inbound.js")).addInboundCommands,
    groups: ["inbound-numbers", "keywords", "suppressions"],
  },
  {
    load: async () => (await import("./cli-voice.js")).addVoiceCommands,
    groups: ["voice-caller-ids"],
  },
  {
    load: async () => (await import("./cli-carriers.js")).addCarrierCommands,
    groups: ["carriers", "routes"],
  },
  {
    load: async () => (await import("./cli-smpp.js")).addSmppCommands,
    groups: ["smpp"],
  },
  {
    load: async () => (await import("./cli-messages.js")).addMessageCommands,
    groups: ["messages"],
  },
  {
    load: async () => (await import("./cli-refusals.js")).addRefusalCommands,
    groups: ["refusals"],
  },
  {
    load: async () => (await import("./cli-audit.js")).addAuditCommands,
    groups: ["audit"],
  },
  {
    load: async () => (await import("./cli-alerts.js")).addAlertCommands,
    groups: ["alerts"],
  },
  {
    load: async () => (await import("./cli-analytics.js")).addAnalyticsCommands,
    groups: ["analytics"],
  },
  {
    load: async () => (await import("./cli-prices.js")).addPriceCommands,
    groups: ["prices"],
  },
  {
    load: async () => (await import("./cli-chains.js")).addChainCommands,
    groups: ["chains"],
  },
];

/** The group modules a command line needs: the one its first word names (or `help <group>`), else none. */
export function modulesFor(argv: readonly string[]): GroupModule[] {
  const words = argv.slice(2).filter((word) => !word.startsWith("-"));
  const name = words[0] === "help" ? words[1] : words[0];
  return GROUP_MODULES.filter((m) => name !== undefined && m.groups.includes(name));
}
