// CLI commands of fallback chains (POST /api/v2/send): `chains list`, every account's (or one's)
// newest first, and `chains show`, one chain with its steps and their messages' statuses (read
// by chains/listing.ts; the bundle leaves out the send paths this group never calls).
import { type Command, InvalidArgumentError, Option } from "commander";
import type { ChainStatus } from "../../base/store/schema.js";
import { operatorChain, operatorChains } from "../../channels/chains/index.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, withStore } from "./cli-support.js";

function limitOf(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw new InvalidArgumentError("a whole number from 1 to 1000");
  return n;
}

export function addChainCommands(program: Command): void {
  const chains = groupCommand(program, "chains");
  chains
    .command("list")
    .description("fallback chains of every account (or one), newest first")
    .option("--account <username>", "one account's chains")
    .addOption(new Option("--status <status>", "only these").choices(["running", "completed"]))
    .option("--limit <n>", "how many, 1 to 1000", limitOf, 50)
    .option("--json", "print JSON")
    .action((opts: { account?: string; status?: ChainStatus; limit: number; json?: boolean }) =>
      withStore(async (store) => {
        const rows = await operatorChains(store.db, { account: opts.account, status: opts.status, limit: opts.limit });
        print(rows, opts.json, () =>
          table(
            ["CHAIN", "ACCOUNT", "RECIPIENT", "STATUS", "OUTCOME", "STEPS", "CREATED"],
            rows.map((row) => [
              row.chain_id,
              row.account,
              row.recipient,
              row.status,
              row.outcome,
              String(row.steps),
              row.created_at,
            ]),
            "no chains",
          ),
        );
      }),
    );
  chains
    .command("show")
    .description("one chain: its steps, their conditions, messages and statuses")
    .argument("<chain_id>")
    .option("--json", "print JSON (GET /api/v2/send/{chain_id}'s answer and the account)")
    .action((id: string, opts: { json?: boolean }) =>
      withStore(async (store) => {
        const chain = await operatorChain(store.db, id);
        print(chain, opts.json, () => {
          const head = [
            `chain ${chain.chain_id} of ${chain.account} to ${chain.recipient}: ${chain.status}${chain.outcome ? ` (${chain.outcome})` : ""}`,
            `created ${chain.created_at}${chain.completed_at ? `, completed ${chain.completed_at}` : ""}`,
          ].join("\n");
          const steps = table(
            ["STEP", "CHANNEL", "TO", "AFTER", "MESSAGE", "STATUS", "ERROR"],
            chain.steps.map((step, i) => [
              String(i + 1),
              step.channel,
              step.to,
              step.after
                ? `${step.after.on}${step.after.within_seconds !== undefined ? ` within ${step.after.within_seconds} s` : ""}`
                : null,
              step.message_id,
              step.decides_at ? `${step.status} until ${step.decides_at}` : step.status,
              step.error ? `${step.error.code}: ${step.error.message}` : null,
            ]),
            "no steps",
          );
          return `${head}\n${steps}`;
        });
      }),
    );
}
