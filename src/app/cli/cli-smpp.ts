// CLI commands for the SMPP server's binds: list who is bound (every process's binds, from
// smpp_binds) and disconnect one. They call smpp-server/registry.ts, as the operator API does.
import type { Command } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { disconnectBind, listBinds } from "../../channels/smpp-server/index.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { groupCommand } from "./cli-group-names.js";
import { print, table, wholeNumber, withStore } from "./cli-support.js";

export function addSmppCommands(program: Command): void {
  const smpp = groupCommand(program, "smpp");
  smpp
    .command("binds")
    .description("the SMPP clients bound to every running process, oldest first")
    .option("--username <username>", "only this account's binds")
    .option("--json", "print JSON")
    .action((opts: { username?: string; json?: boolean }) =>
      withStore(async (store) => {
        const accountId = opts.username === undefined ? undefined : (await requireAccount(store.db, opts.username)).id;
        const binds = await listBinds(store.db, systemClock.now().getTime(), accountId);
        print(binds, opts.json, () =>
          table(
            ["ID", "USERNAME", "MODE", "FROM", "TLS", "BOUND AT", "SUBMITS", "PER SECOND", "PROCESS"],
            binds.map((b) => [
              b.id,
              b.username,
              b.mode,
              `${b.address}:${b.port}`,
              b.tls ? "yes" : "no",
              b.bound_at,
              b.submits,
              b.submits_per_second,
              `${b.process.host}:${b.process.pid}`,
            ]),
            "no SMPP binds",
          ),
        );
      }),
    );
  smpp
    .command("disconnect")
    .description("unbind one SMPP client (its id from `smpp binds`); exit 1 if it is still bound after the wait")
    .argument("<id>")
    .option("--wait-seconds <n>", "how long to wait for the client to go", wholeNumber, 15)
    .option("--json", "print JSON")
    .action((id: string, opts: { waitSeconds: number; json?: boolean }) =>
      withStore(async (store) => {
        const { bind, closed } = await disconnectBind({ store, clock: systemClock }, id, opts.waitSeconds * 1000);
        print({ ...bind, closed }, opts.json, () =>
          closed
            ? `disconnected ${bind.id} (${bind.username} from ${bind.address}:${bind.port})`
            : `asked ${bind.process.host}:${bind.process.pid} to disconnect ${bind.id}; still bound after ${opts.waitSeconds} s`,
        );
        if (!closed) process.exitCode = 1;
      }),
    );
}
