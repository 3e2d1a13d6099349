// Every command of the `switchboard` executable, declared without running anything, so a test
// can read the whole tree (descriptions, required options) without a process per command.
import { Command, Help, type Option } from "commander";
import type { Role } from "../gateway.js";
import { packageVersion } from "../version.js";
import { addAccountCommands } from "./cli-accounts.js";
import { addAlertCommands } from "./cli-alerts.js";
import { addCarrierCommands } from "./cli-carriers.js";
import { addInboundCommands } from "./cli-inbound.js";
import { addMessageCommands } from "./cli-messages.js";
import { addSmppCommands } from "./cli-smpp.js";
import { addSmsRuleCommands } from "./cli-sms-rules.js";
import { withStore } from "./cli-support.js";
import { addVoiceCommands } from "./cli-voice.js";

/** Runs the gateway in these roles; `seed` makes an empty database's first credentials. */
export type RunRoles = (roles: readonly Role[], seed: boolean) => Promise<void>;

export function buildProgram(run: RunRoles): Command {
  const program = new Command()
    .name("switchboard")
    .description("Self-hostable messaging gateway. Settings come from environment variables (see README).")
    .version(packageVersion(), "-V, --version", "print the version")
    .showHelpAfterError()
    // Usage errors, --help and --version end in runCommandLine (cli-run.ts), not in process.exit.
    .exitOverride()
    // Subcommands copy this when they are created, so it is set before any of them.
    .configureHelp({
      optionDescription(this: Help, option: Option): string {
        const text = Help.prototype.optionDescription.call(this, option);
        return option.mandatory ? `${text} (required)`.trim() : text;
      },
    });

  program
    .command("start")
    .description("run everything in one process (API, workers, simulated carriers)")
    .action(() => run(["api", "worker"], true));
  program
    .command("api")
    .description("run only the HTTP API (scale out with PostgreSQL)")
    .action(() => run(["api"], true));
  program
    .command("worker")
    .description("run only the workers (dispatcher, delivery reports, housekeeping); needs PostgreSQL")
    .action(() => run(["worker"], false));
  program
    .command("migrate")
    .description("create or upgrade the database schema")
    .action(() =>
      withStore(async () => {
        process.stdout.write("migrations applied\n");
      }),
    );

  program
    .command("doctor")
    .description(
      "check the configuration, database (migrations, clock), running processes, Redis and carriers; exit 1 on a failure",
    )
    .option("--json", "print the checks as JSON")
    .action(async (options: { json?: boolean }) => {
      const { formatReport, runDoctor } = await import("../doctor.js");
      const report = await runDoctor();
      process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : `${formatReport(report)}\n`);
      if (!report.ok) process.exitCode = 1;
    });

  addAccountCommands(program);
  addSmsRuleCommands(program);
  addInboundCommands(program);
  addVoiceCommands(program);
  addCarrierCommands(program);
  addSmppCommands(program);
  addMessageCommands(program);
  addAlertCommands(program);
  return program;
}
