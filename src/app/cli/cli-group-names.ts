// The operator command groups' names and descriptions: the one place both the help (which lists
// every group without loading any) and each group's module (which adds its subcommands) read
// them. Imports nothing but commander's types.
import type { Command } from "commander";

export const GROUP_DESCRIPTIONS: Readonly<Record<string, string>> = {
  accounts: "manage accounts",
  keys: "manage API keys",
  credits: "manage credits",
  "sender-ids": "manage sender IDs",
  "login-locks": "password logins locked after repeated failures",
  users: "manage an account's users (console logins with roles) and their invitations",
  staff: "manage the operator's staff (users of the operator account) and their invitations",
  templates: "manage DLT content templates",
  dlt: "manage DLT entity IDs and headers white-listed per account",
  dnd: "manage the DND registry promotional routes must not reach",
  "inbound-numbers": "manage the virtual numbers whose inbound SMS an account receives",
  keywords: "review the keywords accounts create",
  suppressions: "manage an account's suppression list (numbers that opted out of its promotional SMS)",
  carriers: "manage SMS connectors (smpp, http-sms): add, replace, enable, remove, health",
  routes: "manage SMS routes: route code + number prefix → connectors",
  "voice-caller-ids": "manage the caller numbers (from) an account may place voice calls from",
  smpp: "the SMPP server's binds (SMPP_SERVER_PORT)",
  messages: "every account's messages: find one, read its timeline",
  refusals: "the log of refused sends of every family and SMPP",
  audit: "the audit log of changes by operators and accounts: list, verify its hash chain",
  alerts: "the operator's alerts: low balance, connector down, webhook failing, delivery rate",
  analytics: "delivery rates, volumes and latencies of every account's messages",
  prices: "manage price cards: what a send costs by channel, route and destination prefix",
  chains: "fallback sends (POST /api/v2/send) of every account: list them, show one's steps",
};

/** A group's top-level command, described as GROUP_DESCRIPTIONS says (its module adds the rest). */
export function groupCommand(program: Command, name: string): Command {
  const description = GROUP_DESCRIPTIONS[name];
  if (description === undefined) throw new Error(`cli-group-names.ts does not describe the command group "${name}".`);
  return program.command(name).description(description);
}
