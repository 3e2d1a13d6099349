// Every command of the `switchboard` executable, declared without running anything, so a test
// can read the whole tree (descriptions, required options) without a process per command. A
// command line declares only the group it runs (loadProgram); the others by name, for the help.
import { Command, Help, type Option } from "commander";
import type { Role } from "../gateway.js";
import { packageVersion } from "../version.js";
import { groupCommand } from "./cli-group-names.js";
import { type AddCommands, GROUP_MODULES, modulesFor } from "./cli-groups.js";

/** Runs the gateway in these roles; `seed` makes an empty database's first credentials. */
export type RunRoles = (roles: readonly Role[], seed: boolean) => Promise<void>;

/** The program with these group modules' commands; the other groups by name and description only. */
export function buildProgram(run: RunRoles, loaded: ReadonlyMap<(typeof GROUP_MODULES)[number], AddCommands>): Command {
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
    .action(async () => {
      const { withStore } = await import("./cli-support.js");
      await withStore(async () => {
        process.stdout.write("migrations applied\n");
      });
    });

  program
    .command("backup")
    .description("copy the SQLite database to <file> while the gateway runs (PostgreSQL: says to use pg_dump)")
    .argument("<file>", "the copy to write; must not exist yet")
    .option("--json", "print what was written as JSON")
    .action(async (file: string, options: { json?: boolean }) => {
      const { backupCommand } = await import("./cli-backup.js");
      await backupCommand(file, options);
    });

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

  for (const module of GROUP_MODULES) {
    const add = loaded.get(module);
    if (add) add(program);
    else for (const name of module.groups) groupCommand(program, name);
  }
  return program;
}

async function loadModules(modules: readonly (typeof GROUP_MODULES)[number][]) {
  return new Map(await Promise.all(modules.map(async (module) => [module, await module.load()] as const)));
}

/** The program a command line needs: its group's commands loaded, the rest by name. */
export async function loadProgram(run: RunRoles, argv: readonly string[]): Promise<Command> {
  return buildProgram(run, await loadModules(modulesFor(argv)));
}

/** Every command of every group (the help test and the test CLI host). */
export async function loadFullProgram(run: RunRoles): Promise<Command> {
  return buildProgram(run, await loadModules(GROUP_MODULES));
}
