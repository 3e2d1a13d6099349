// Runs one command line of the program and answers its exit code: 0, the code a command set
// (doctor's 1), commander's own for a usage error or --help, 2 for a bad configuration and 1
// for any other failure, told in one line on stderr. The executable (cli.ts) exits with it.
import { type Command, CommanderError } from "commander";
import { isGatewayError } from "../../base/core/errors.js";
import { ConfigError } from "../../base/runtime/config.js";

export async function runCommandLine(program: Command, argv: readonly string[]): Promise<number> {
  try {
    await program.parseAsync([...argv]);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (error) {
    // Commander has printed its message (or the help) already.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ConfigError) {
      process.stderr.write(`switchboard: ${error.message}\n`);
      return 2;
    }
    const message = isGatewayError(error) || error instanceof Error ? error.message : String(error);
    process.stderr.write(`switchboard: ${message}\n`);
    return 1;
  }
}
