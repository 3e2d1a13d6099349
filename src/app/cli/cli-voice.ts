// CLI commands for voice: the caller numbers an account may place calls from. They call
// voice/caller-ids.ts, as the operator API does.
import type { Command } from "commander";
import { systemClock } from "../../base/core/clock.js";
import type { Store } from "../../base/store/store.js";
import { approveCallerIdFor, callerIdsOf, removeCallerIdFor } from "../../channels/voice/index.js";
import { cliActor } from "../../domain/audit/index.js";
import { groupCommand } from "./cli-group-names.js";
import { addRequestReviewCommands } from "./cli-reviews.js";
import { print, table, withStore } from "./cli-support.js";

const deps = (store: Store) => ({ store, clock: systemClock, actor: cliActor() });

export function addVoiceCommands(program: Command): void {
  const callerIds = groupCommand(program, "voice-caller-ids");
  callerIds
    .command("approve")
    .description("approve a caller number for an account's voice calls")
    .requiredOption("--account <username>", "the account")
    .requiredOption(
      "--number <number>",
      "the caller number, with its country code (+918047110000) or as an Indian number",
    )
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const { callerId, created } = await approveCallerIdFor(deps(store), opts.account, opts.number);
        print(
          callerId,
          opts.json,
          () => `${callerId.number} ${created ? "approved" : "was already approved"} for ${callerId.account}`,
        );
      }),
    );
  addRequestReviewCommands(callerIds, "caller");
  callerIds
    .command("remove")
    .description("withdraw a caller number's approval")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--number <number>", "the caller number")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const removed = await removeCallerIdFor(deps(store), opts.account, opts.number);
        print(removed, opts.json, () => `removed ${removed.number} from ${removed.account}`);
      }),
    );
  callerIds
    .command("list")
    .description("an account's approved caller numbers")
    .requiredOption("--account <username>", "the account")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await callerIdsOf(deps(store), opts.account);
        print(rows, opts.json, () =>
          table(
            ["NUMBER"],
            rows.map((row) => [row.number]),
            "no approved caller numbers",
          ),
        );
      }),
    );
}
