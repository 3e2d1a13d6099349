// The `switchboard` command: run the gateway by role, migrate, and operator commands that
// work on the configured database directly (no running server needed).
import { Command } from "commander";
import { listAccounts, parseRouteList, setSenderIdStatus, updateAccount } from "../accounts/index.js";
import {
  accountSummary,
  addCredits,
  addSenderIdFor,
  createAccountWithKey,
  createKeyFor,
  parseCreditList,
  parseRateLimit,
  revokeKey,
} from "../admin/index.js";
import { clearLoginLocks, listLoginLocks } from "../auth/index.js";
import { systemClock } from "../core/clock.js";
import { isGatewayError } from "../core/errors.js";
import { credentialsBanner } from "./bootstrap.js";
import { addCarrierCommands } from "./cli-carriers.js";
import { addInboundCommands } from "./cli-inbound.js";
import { addSmsRuleCommands } from "./cli-sms-rules.js";
import { onOff, positiveNumber, print, wholeNumber, withStore } from "./cli-support.js";
import { addVoiceCommands } from "./cli-voice.js";
import { ConfigError, loadConfig } from "./config.js";
import { type Gateway, type Role, startGateway } from "./gateway.js";

async function run(roles: readonly Role[], seed: boolean): Promise<void> {
  const config = loadConfig();
  // Signals are handled from the start: a supervisor may stop the gateway the moment it says
  // it is running, and an unhandled SIGTERM would kill it without a clean shutdown.
  let gateway: Gateway | undefined;
  let signalled: string | undefined;
  const shutdown = (signal: string) => {
    signalled = signal;
    const stopping = gateway;
    if (!stopping) return;
    stopping.ctx.logger.info({ signal }, "shutting down");
    stopping
      .stop()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        stopping.ctx.logger.error({ err: error }, "shutdown failed");
        process.exit(1);
      });
  };
  process.once("SIGINT", () => shutdown("SIGINT"));
  process.once("SIGTERM", () => shutdown("SIGTERM"));

  const started = await startGateway({ config, roles, bootstrap: seed });
  gateway = started;
  const { ctx } = started;
  if (started.bootstrapped) {
    const baseUrl = (started.url ?? `http://127.0.0.1:${config.port}`).replace("0.0.0.0", "127.0.0.1");
    process.stdout.write(credentialsBanner(started.bootstrapped, baseUrl));
  }
  ctx.logger.info({ roles, url: started.url, engine: ctx.store.engine }, "switchboard running");
  if (signalled) shutdown(signalled);
}

const program = new Command()
  .name("switchboard")
  .description("Self-hostable messaging gateway. Settings come from environment variables (see README).")
  .showHelpAfterError();

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

const accounts = program.command("accounts").description("manage accounts");
accounts
  .command("create")
  .requiredOption("--username <username>")
  .requiredOption("--password <password>")
  .option("--credits <list>", "opening balances, e.g. sms=1000,whatsapp=50,email=100,voice=10,international=5")
  .option("--operator", "create an operator account")
  .option("--rate-limit <n>", "requests per minute of the first API key (0 = unlimited)", wholeNumber)
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const created = await createAccountWithKey(
        { store, clock: systemClock },
        {
          username: opts.username,
          password: opts.password,
          ...(opts.operator ? { role: "operator" as const } : {}),
          ...(opts.credits ? { credits: parseCreditList(opts.credits) } : {}),
          ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
        },
      );
      print(
        created,
        opts.json,
        () => `created account ${created.username} (id ${created.id})\napi key: ${created.api_key}`,
      );
    }),
  );
accounts
  .command("list")
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const all = await Promise.all(
        (await listAccounts(store.db)).map((a) => accountSummary({ store, clock: systemClock }, a.username)),
      );
      print(all, opts.json, () =>
        all.map((a) => `${a.id}\t${a.username}\t${a.role}\t${a.status}\tsms=${a.balances?.sms}`).join("\n"),
      );
    }),
  );
accounts
  .command("show")
  .argument("<username>")
  .option("--json", "print JSON")
  .action((username: string, opts) =>
    withStore(async (store) => {
      const summary = await accountSummary({ store, clock: systemClock }, username);
      print(summary, opts.json, () => JSON.stringify(summary, null, 2));
    }),
  );
accounts
  .command("set")
  .requiredOption("--username <username>")
  .option("--status <status>", "active, inactive or blocked")
  .option("--password <password>")
  .option("--time-zone <zone>", "IANA time zone, e.g. Asia/Kolkata")
  .option("--flood-limit <n>", "SMS per day (0 = no limit)", wholeNumber)
  .option("--international <on|off>", "international SMS", onOff)
  .option("--get-api <on|off>", "GET variant of the v2 send", onOff)
  .option("--dlt-scrubbing <on|off>", "transactional content must match an approved template", onOff)
  .option("--promo-sender <on|off>", "promotional SMS with the account's own sender ID (route PS)", onOff)
  .option("--routes <list>", "SMS routes the account may use, e.g. T,P,PS,I")
  .option("--unlock", "clear a login lock")
  .option("--dlt-entity <id>", "the white-listed DLT entity ID of sends that name none (needed with several)")
  .option("--no-dlt-entity", "clear that default")
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      await updateAccount(store, systemClock, opts.username, {
        status: opts.status,
        password: opts.password,
        timeZone: opts.timeZone,
        floodLimit: opts.floodLimit,
        internationalEnabled: opts.international,
        getApiEnabled: opts.getApi,
        dltScrubbing: opts.dltScrubbing,
        promoSenderEnabled: opts.promoSender,
        routes: opts.routes === undefined ? undefined : parseRouteList(opts.routes),
        unlock: opts.unlock,
        defaultDltEntityId: opts.dltEntity === false ? null : opts.dltEntity,
      });
      const summary = await accountSummary({ store, clock: systemClock }, opts.username);
      print(summary, opts.json, () => `updated ${opts.username}`);
    }),
  );

const keys = program.command("keys").description("manage API keys");
keys
  .command("create")
  .requiredOption("--account <username>")
  .option("--name <name>")
  .option("--rate-limit <n>", "requests per minute (0 = unlimited, default 60)", wholeNumber)
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const key = await createKeyFor({ store, clock: systemClock }, opts.account, {
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.rateLimit !== undefined ? { rateLimit: parseRateLimit(opts.rateLimit) } : {}),
      });
      print(key, opts.json, () => `api key ${key.id} for ${key.account}: ${key.api_key}`);
    }),
  );
keys
  .command("revoke")
  .requiredOption("--id <id>", "key id", wholeNumber)
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const result = await revokeKey({ store, clock: systemClock }, opts.id);
      print(result, opts.json, () => `revoked key ${opts.id}`);
    }),
  );

program
  .command("credits")
  .description("manage credits")
  .command("add")
  .requiredOption("--account <username>")
  .requiredOption("--wallet <wallet>", "sms, international, whatsapp, email or voice")
  .requiredOption("--amount <credits>", "credits to add", positiveNumber)
  .option("--note <text>")
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const result = await addCredits(
        { store, clock: systemClock },
        {
          username: opts.account,
          wallet: opts.wallet,
          amount: opts.amount,
          ...(opts.note ? { note: opts.note } : {}),
        },
      );
      print(result, opts.json, () => `${result.account} ${result.wallet} balance: ${result.balance}`);
    }),
  );

const senderIds = program.command("sender-ids").description("manage sender IDs");
senderIds
  .command("add")
  .requiredOption("--account <username>")
  .requiredOption("--sender <sender>")
  .option("--approve", "approve it at once")
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const result = await addSenderIdFor(
        { store, clock: systemClock },
        { username: opts.account, sender: opts.sender, approve: Boolean(opts.approve) },
      );
      print(result, opts.json, () => `sender ID ${result.sender_id} for ${result.account}: ${result.status}`);
    }),
  );
senderIds
  .command("approve")
  .requiredOption("--id <id>", "sender ID request id", wholeNumber)
  .action((opts) =>
    withStore(async (store) => {
      const row = await setSenderIdStatus(store.db, systemClock, opts.id, "approved");
      if (!row) throw new Error(`no sender ID request with id ${opts.id}`);
      process.stdout.write(`approved sender ID ${row.sender}\n`);
    }),
  );

const loginLocks = program.command("login-locks").description("password logins locked after repeated failures");
loginLocks
  .command("list")
  .option("--json", "print JSON")
  .action((opts) =>
    withStore(async (store) => {
      const locks = await listLoginLocks(store.db, systemClock.now().getTime());
      print(locks, opts.json, () =>
        locks.length === 0
          ? "no login locks"
          : locks.map((l) => `${l.username}\t${l.scope}\t${l.address ?? "-"}\tuntil ${l.locked_until}`).join("\n"),
      );
    }),
  );
loginLocks
  .command("clear")
  .argument("<username>")
  .option("--address <address>", "only this source address's lock (default: all, and the account's own)")
  .action((username: string, opts) =>
    withStore(async (store) => {
      const { cleared } = await clearLoginLocks(store, username, systemClock.now().getTime(), opts.address);
      process.stdout.write(`cleared ${cleared} login lock(s) of ${username}\n`);
    }),
  );

addSmsRuleCommands(program);
addInboundCommands(program);
addVoiceCommands(program);
addCarrierCommands(program);

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`switchboard: ${error.message}\n`);
    process.exit(2);
  }
  const message = isGatewayError(error) || error instanceof Error ? error.message : String(error);
  process.stderr.write(`switchboard: ${message}\n`);
  process.exit(1);
});
