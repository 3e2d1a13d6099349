// CLI commands for what a carrier's failure codes mean (issue 40, item 5): one code of a
// connector's error_codes table set or removed, and the refund policy per reason shown, chosen
// and given back to REFUND_CARRIER_REASONS. They call the functions the operator API calls.
import type { Command } from "commander";
import { loadConfig } from "../../base/runtime/config.js";
import type { Store } from "../../base/store/store.js";
import { changeErrorCode } from "../../delivery/carriers/error-code-routes.js";
import { changeRefundChoice, describeRefundPolicy } from "../../delivery/carriers/refund-policy.js";
import { cliDeps, print, table, withStore } from "./cli-support.js";

async function showPolicy(store: Store, json: boolean | undefined): Promise<void> {
  const policy = await describeRefundPolicy(store.db, loadConfig().refundCarrierReasons);
  print(policy, json, () =>
    table(
      ["REASON", "REFUNDED", "SOURCE"],
      policy.reasons.map((r) => [r.reason, r.refund ? "yes" : "no", r.source]),
    ),
  );
}

export function addCarrierReasonCommands(carriers: Command): void {
  carriers
    .command("set-error-code")
    .description("map one carrier code of a connector to a reason of the error catalogue (its own table)")
    .requiredOption("--connector <name>", "the connector")
    .requiredOption("--code <code>", "the carrier's code, e.g. 633 or 0x00000455")
    .requiredOption("--reason <reason>", "a reason of the error catalogue, e.g. dlt_template_mismatch")
    .requiredOption("--description <text>", "what the carrier means by it, in words")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const entry = { reason: opts.reason, description: opts.description };
        const shown = await changeErrorCode(cliDeps(store), opts.connector, opts.code, entry);
        print(shown, opts.json, () => `${opts.connector} maps ${opts.code} to ${opts.reason}`);
      }),
    );
  carriers
    .command("remove-error-code")
    .description("remove one code from a connector's own table (the default table's entry applies again)")
    .requiredOption("--connector <name>", "the connector")
    .requiredOption("--code <code>", "the carrier's code")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const shown = await changeErrorCode(cliDeps(store), opts.connector, opts.code, undefined);
        print(shown, opts.json, () => `${opts.connector} no longer maps ${opts.code} itself`);
      }),
    );
  carriers
    .command("show-refunds")
    .description(
      "whether carrier failures of each reason are refunded: the operator's choice, else REFUND_CARRIER_REASONS",
    )
    .option("--json", "print JSON")
    .action((opts) => withStore((store) => showPolicy(store, opts.json)));
  carriers
    .command("set-refund")
    .description("choose whether carrier failures of a reason are refunded (over REFUND_CARRIER_REASONS)")
    .requiredOption("--reason <reason>", "a reason of the error catalogue, e.g. dlt_template_mismatch")
    .option("--no-refund", "do not refund them (the default of this command refunds)")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        await changeRefundChoice(cliDeps(store), opts.reason, opts.refund !== false);
        await showPolicy(store, opts.json);
      }),
    );
  carriers
    .command("remove-refund")
    .description("remove the operator's choice for a reason: REFUND_CARRIER_REASONS decides it again")
    .requiredOption("--reason <reason>", "a reason of the error catalogue")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        await changeRefundChoice(cliDeps(store), opts.reason, undefined);
        await showPolicy(store, opts.json);
      }),
    );
}
