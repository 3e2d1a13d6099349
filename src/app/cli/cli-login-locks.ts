// CLI commands for login locks (the lock after repeated wrong passwords): list those in force,
// clear an account's or one source address's. Registered with the account commands.
import type { Command } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { clearLoginLocks, listLoginLocks } from "../../domain/auth/index.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, print, table, withStore } from "./cli-support.js";

export function addLoginLockCommands(program: Command): void {
  const loginLocks = groupCommand(program, "login-locks");
  loginLocks
    .command("list")
    .description("the login locks in force")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const locks = await listLoginLocks(store.db, systemClock.now().getTime());
        print(locks, opts.json, () =>
          table(
            ["USERNAME", "SCOPE", "ADDRESS", "LOCKED UNTIL"],
            locks.map((l) => [l.username, l.scope, l.address, l.locked_until]),
            "no login locks",
          ),
        );
      }),
    );
  loginLocks
    .command("clear")
    .description("clear an account's login locks, or one source address's")
    .argument("<username>")
    .option("--address <address>", "only this source address's lock (default: all, and the account's own)")
    .option("--json", "print JSON")
    .action((username: string, opts) =>
      withStore(async (store) => {
        const result = await clearLoginLocks(store, cliDeps(store), username, opts.address);
        print(result, opts.json, () => `cleared ${result.cleared} login lock(s) of ${username}`);
      }),
    );
}
