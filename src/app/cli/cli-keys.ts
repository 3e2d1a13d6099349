// CLI commands for an account's API keys: make one (shown once; its scopes and allowed
// addresses), list them, change one's name, scopes, addresses or rate, revoke one. Registered with
// the account commands; they call admin/key-credit-operations.ts and accounts/key-changes.ts, as
// the operator API does.
import type { Command } from "commander";
import { GatewayError } from "../../base/core/errors.js";
import { changeKey } from "../../domain/accounts/index.js";
import { createKeyFor, keysOf, parseRateLimit, revokeKey } from "../admin/index.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, print, table, wholeNumber, withStore } from "./cli-support.js";

export function addKeyCommands(program: Command): void {
  const keys = groupCommand(program, "keys");
  keys
    .command("create")
    .description("another API key for an account (shown once)")
    .requiredOption("--account <username>", "the account")
    .option("--name <name>", "a label to tell keys apart")
    .option("--rate-limit <n>", "requests per minute (0 = unlimited, default 60)", wholeNumber)
    .option("--scopes <list>", "what the key may do, comma-separated: send, read, manage, billing (default: all)")
    .option(
      "--allowed-ips <list>",
      "addresses and CIDR ranges the key may be used from, comma-separated (default: any)",
    )
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const list = (text: string) => text.split(",").map((item) => item.trim());
        const key = await createKeyFor(cliDeps(store), opts.account, {
          ...(opts.name ? { name: opts.name } : {}),
          ...(opts.rateLimit !== undefined ? { rateLimit: parseRateLimit(opts.rateLimit) } : {}),
          ...(opts.scopes !== undefined ? { scopes: list(opts.scopes).filter((scope) => scope !== "") } : {}),
          ...(opts.allowedIps !== undefined ? { allowedIps: list(opts.allowedIps) } : {}),
        });
        const limits = `scopes ${key.scopes.join(",")}; from ${key.allowed_ips?.join(",") ?? "any address"}`;
        print(key, opts.json, () => `api key ${key.id} for ${key.account}: ${key.api_key}   (${limits})`);
      }),
    );
  keys
    .command("list")
    .description("an account's API keys (prefix, name, rate, scopes, allowed addresses, who made each; never the key)")
    .requiredOption("--account <username>", "the account")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await keysOf(cliDeps(store), opts.account);
        print(rows, opts.json, () =>
          table(
            ["ID", "PREFIX", "NAME", "RATE/MIN", "SCOPES", "ALLOWED IPS", "CREATED BY", "CREATED", "REVOKED"],
            rows.map((k) => [
              k.id,
              k.prefix,
              k.name,
              k.rate_limit || "unlimited",
              k.scopes.join(","),
              k.allowed_ips?.join(",") ?? "any",
              // The login of the user who made it (`<parent>/<login>`: a parent's user); none: the operator or the CLI.
              k.created_by,
              k.created_at,
              k.revoked_at,
            ]),
            "no API keys",
          ),
        );
      }),
    );
  keys
    .command("set")
    .description("change a key's name, scopes, allowed addresses or rate (each left out is kept)")
    .requiredOption("--id <id>", "key id", wholeNumber)
    .option("--name <name>", "a new label; none removes it")
    .option("--scopes <list>", "what the key may do, comma-separated: send, read, manage, billing")
    .option("--allowed-ips <list>", "addresses and CIDR ranges, comma-separated; none: any address")
    .option("--rate-limit <n>", "requests per minute (0 = unlimited)", wholeNumber)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const list = (text: string) => text.split(",").map((item) => item.trim());
        const changes = {
          ...(opts.name !== undefined ? { name: opts.name === "none" ? null : opts.name } : {}),
          ...(opts.scopes !== undefined ? { scopes: list(opts.scopes).filter((scope) => scope !== "") } : {}),
          ...(opts.allowedIps !== undefined
            ? { allowed_ips: opts.allowedIps === "none" ? null : list(opts.allowedIps) }
            : {}),
          ...(opts.rateLimit !== undefined ? { rate_limit: parseRateLimit(opts.rateLimit) } : {}),
        };
        if (Object.keys(changes).length === 0) {
          throw new GatewayError(
            "invalid_request",
            "Give at least one of --name, --scopes, --allowed-ips, --rate-limit.",
          );
        }
        const key = await changeKey(cliDeps(store), opts.id, undefined, changes, { bits: undefined });
        const limits = `scopes ${key.scopes.join(",")}; from ${key.allowed_ips?.join(",") ?? "any address"}`;
        print(key, opts.json, () => `changed key ${key.id} (${key.prefix}): ${limits}`);
      }),
    );
  keys
    .command("revoke")
    .description("revoke an API key by its id")
    .requiredOption("--id <id>", "key id", wholeNumber)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const result = await revokeKey(cliDeps(store), opts.id);
        print(result, opts.json, () => `revoked key ${opts.id}`);
      }),
    );
}
