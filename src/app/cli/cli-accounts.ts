// CLI commands for accounts and what an account holds: the account itself (onboarding in one
// command, show with what it lacks to send, set), credits, sender IDs, and (from cli-keys.ts and
// cli-login-locks.ts) its API keys and login locks. They call admin/'s actions (operations.ts,
// sender-id-operations.ts) and admin/onboarding.ts, as the operator API does.
import { type Command, Option } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { loadConfig } from "../../base/runtime/config.js";
import type { ApprovalStatus } from "../../base/store/schema.js";
import { hasSmppChanges, type SmppSettingsChanges, setSmppSettings } from "../../channels/smpp-server/index.js";
import { listAccounts, parseRouteList, setAccountPriceCard, updateAccount } from "../../domain/accounts/index.js";
import { clearLoginLocks } from "../../domain/auth/index.js";
import {
  accountDetail,
  accountPriceCardEntry,
  accountSummary,
  accountUpdateEntry,
  addCredits,
  addSenderIdFor,
  adjustCredits,
  createAccountWithKey,
  parseCreditList,
  senderIdsOf,
  setSenderIdStatusFor,
  smppSettingsEntry,
} from "../admin/index.js";
import { accountViewDeps, detailText, readinessText } from "./cli-account-text.js";
import { groupCommand } from "./cli-group-names.js";
import { addKeyCommands } from "./cli-keys.js";
import { addLoginLockCommands } from "./cli-login-locks.js";
import {
  addReviewCommands,
  cliDeps,
  decimal,
  onOff,
  positiveNumber,
  print,
  repeatable,
  repeatableList,
  signedNumber,
  table,
  wholeNumber,
  withStore,
} from "./cli-support.js";

function addAccountsCommands(program: Command): void {
  const accounts = groupCommand(program, "accounts");
  accounts
    .command("create")
    .description(
      "create an account and its first API key, ready to send in one step: sender IDs, DLT entities, templates, credits",
    )
    .requiredOption("--username <username>", "3 to 64 letters, digits, _ . @ - (unique regardless of case)")
    .requiredOption("--password <password>", "8 to 256 characters, for the legacy APIs")
    .option("--credits <list>", "opening balances, e.g. sms=1000,whatsapp=50,email=100,voice=10,international=5")
    .option(
      "--sender <id>",
      "an approved sender ID, also white-listed as its DLT header (repeat, or comma-separate, for more)",
      repeatableList,
    )
    .option(
      "--dlt-entity <id>",
      "a white-listed DLT entity ID (repeat for more; the first is the default)",
      repeatableList,
    )
    .option("--template <text>", "an approved template; {#var#} marks each variable part (repeat for more)", repeatable)
    .option("--dlt-template-id <id>", "the DLT template ID of each --template, in the same order", repeatable)
    .option("--routes <list>", "SMS routes the account may use (default T,P)")
    .option("--time-zone <zone>", "IANA time zone (default Asia/Kolkata)")
    .option("--flood-limit <n>", "SMS per day (default 0 = no limit)", wholeNumber)
    .option("--operator", "create an operator account")
    .option("--parent <username>", "the reseller account it is a sub-account of (charged with it at its own price)")
    .option(
      "--markup <percent>",
      "with --parent: its price is the parent's plus this per cent (up to 2 decimals)",
      decimal,
    )
    .option("--rate-limit <n>", "requests per minute of the first API key (0 = unlimited, default 60)", wholeNumber)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const templates: string[] = opts.template ?? [];
        const templateIds: string[] = opts.dltTemplateId ?? [];
        if (templateIds.length > templates.length) {
          throw new Error(
            `--dlt-template-id is given ${templateIds.length} times for ${templates.length} --template; give one per template, in order`,
          );
        }
        const created = await createAccountWithKey(cliDeps(store), {
          username: opts.username,
          password: opts.password,
          ...(opts.operator ? { role: "operator" as const } : {}),
          ...(opts.parent !== undefined ? { parent: opts.parent } : {}),
          ...(opts.markup !== undefined ? { markupPercent: opts.markup } : {}),
          ...(opts.credits ? { credits: parseCreditList(opts.credits) } : {}),
          ...(opts.rateLimit !== undefined ? { rateLimit: opts.rateLimit } : {}),
          ...(opts.routes !== undefined ? { routes: parseRouteList(opts.routes) } : {}),
          ...(opts.timeZone !== undefined ? { timeZone: opts.timeZone } : {}),
          ...(opts.floodLimit !== undefined ? { floodLimit: opts.floodLimit } : {}),
          senderIds: opts.sender ?? [],
          dltEntityIds: opts.dltEntity ?? [],
          templates: templates.map((content, index) => ({ content, dltTemplateId: templateIds[index] ?? null })),
        });
        const view = await accountViewDeps(store);
        const { ready, missing } = await accountDetail(view.deps, created.username);
        print({ ...created, ready, missing, readiness_judged_by: view.basis }, opts.json, () =>
          [
            `created account ${created.username} (id ${created.id})`,
            `api key: ${created.api_key}   (shown once; keep it)`,
            ...(opts.operator ? [] : [readinessText({ ready, missing }, view.basis)]),
          ].join("\n"),
        );
      }),
    );
  accounts
    .command("list")
    .description("every account with its role, status and SMS balance")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const all = await Promise.all(
          (await listAccounts(store.db)).map((a) => accountSummary(cliDeps(store), a.username)),
        );
        print(all, opts.json, () =>
          table(
            ["ID", "USERNAME", "ROLE", "STATUS", "SMS"],
            all.map((a) => [a.id, a.username, a.role, a.status, a.balances?.sms ?? 0]),
            "no accounts",
          ),
        );
      }),
    );
  accounts
    .command("show")
    .description(
      "one account: settings, wallets, registrations, and what it lacks to send SMS with the command that adds each",
    )
    .argument("<username>")
    .option("--json", "print JSON")
    .action((username: string, opts) =>
      withStore(async (store) => {
        const view = await accountViewDeps(store);
        const detail = await accountDetail(view.deps, username);
        print(detail, opts.json, () => detailText(detail, view.basis));
      }),
    );
  accounts
    .command("set")
    .description("change an account's settings")
    .requiredOption("--username <username>", "the account")
    .option("--status <status>", "active, inactive or blocked")
    .option("--password <password>", "a new password (8 to 256 characters)")
    .option("--time-zone <zone>", "IANA time zone, e.g. Asia/Kolkata")
    .option("--flood-limit <n>", "SMS per day (0 = no limit)", wholeNumber)
    .option("--international <on|off>", "international SMS", onOff)
    .option("--get-api <on|off>", "GET variant of the v2 send", onOff)
    .option("--dlt-scrubbing <on|off>", "transactional content must match an approved template", onOff)
    .option("--dlt-matching <strict|lenient>", "template whitespace compared as registered, or runs of it as one space")
    .option("--promo-sender <on|off>", "promotional SMS with the account's own sender ID (route PS)", onOff)
    .option("--routes <list>", "SMS routes the account may use, e.g. T,P,PS,I")
    .option("--unlock", "clear the account's login locks")
    .option("--dlt-entity <id>", "the white-listed DLT entity ID of sends that name none (needed with several)")
    .option("--no-dlt-entity", "clear that default")
    .option("--promo-hours <window>", "promotional SMS delivered only inside HH:MM-HH:MM (recipients' time)")
    .option("--no-promo-hours", "back to the operator's PROMO_HOURS")
    .option("--shorten-urls <on|off>", "tracked short links in every SMS unless a send says otherwise", onOff)
    .option("--price-card <name>", "the price card its sends are charged by (default: the built-in 1 credit a unit)")
    .option("--no-price-card", "no card of its own (a sub-account: its parent's price marked up)")
    .option("--smpp-password <password>", "the SMPP server password (1 to 8 characters); gives SMPP access")
    .option("--no-smpp", "remove the account's SMPP access")
    .option("--smpp-max-binds <n>", "SMPP binds open at once (0 = no limit, default 4)", wholeNumber)
    .option("--smpp-submits-per-second <n>", "SMPP submits per second (0 = no limit, default 100)", wholeNumber)
    .option("--smpp-allowed-ips <list>", 'addresses or CIDR ranges SMPP binds may come from ("" = anywhere)')
    .option("--password-allowed-ips <list>", 'addresses or CIDR ranges password logins may come from ("" = anywhere)')
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const smpp: SmppSettingsChanges = {
          password: opts.smpp === false ? null : opts.smppPassword,
          maxBinds: opts.smppMaxBinds,
          submitsPerSecond: opts.smppSubmitsPerSecond,
          allowedIps: opts.smppAllowedIps === undefined ? undefined : String(opts.smppAllowedIps).split(","),
        };
        const who = cliDeps(store);
        if (opts.priceCard !== undefined) {
          const entry = accountPriceCardEntry(who, opts.username);
          const card = opts.priceCard === false ? null : opts.priceCard;
          await setAccountPriceCard(store, systemClock, opts.username, card, entry);
        }
        if (hasSmppChanges(smpp)) {
          await setSmppSettings(store, systemClock, opts.username, smpp, smppSettingsEntry(who, opts.username));
        }
        await updateAccount(
          store,
          systemClock,
          opts.username,
          {
            status: opts.status,
            password: opts.password,
            timeZone: opts.timeZone,
            floodLimit: opts.floodLimit,
            internationalEnabled: opts.international,
            getApiEnabled: opts.getApi,
            dltScrubbing: opts.dltScrubbing,
            dltMatching: opts.dltMatching,
            promoSenderEnabled: opts.promoSender,
            routes: opts.routes === undefined ? undefined : parseRouteList(opts.routes),
            defaultDltEntityId: opts.dltEntity === false ? null : opts.dltEntity,
            promoHours: opts.promoHours === false ? null : opts.promoHours,
            promoHoursLimit: loadConfig().promoHours,
            passwordAllowedIps:
              opts.passwordAllowedIps === undefined ? undefined : String(opts.passwordAllowedIps).split(","),
            shortenUrls: opts.shortenUrls,
          },
          accountUpdateEntry(who),
        );
        // Once the settings are taken: its own change, audited as login_locks.clear (as `login-locks clear`).
        if (opts.unlock) await clearLoginLocks(store, who, opts.username);
        const view = await accountViewDeps(store);
        const detail = await accountDetail(view.deps, opts.username);
        print(detail, opts.json, () => `updated ${detail.username}\n${readinessText(detail, view.basis)}`);
      }),
    );
}

function addCreditCommands(program: Command): void {
  const credits = groupCommand(program, "credits");
  credits
    .command("add")
    .description("top up a wallet through the ledger")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--wallet <wallet>", "sms, international, whatsapp, email or voice")
    .requiredOption("--amount <credits>", "credits to add", positiveNumber)
    .option("--note <text>", "why, kept in the ledger")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const result = await addCredits(cliDeps(store), {
          username: opts.account,
          wallet: opts.wallet,
          amount: opts.amount,
          ...(opts.note ? { note: opts.note } : {}),
        });
        print(result, opts.json, () => `${result.account} ${result.wallet} balance: ${result.balance}`);
      }),
    );
  credits
    .command("adjust")
    .description("correct a wallet, up or down, with the reason kept in the ledger (an adjustment entry)")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--wallet <wallet>", "sms, international, whatsapp, email or voice")
    .requiredOption(
      "--amount <credits>",
      "credits to add (positive) or take (negative, e.g. --amount=-50)",
      signedNumber,
    )
    .requiredOption("--reason <text>", "why, kept in the ledger")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const result = await adjustCredits(cliDeps(store), {
          username: opts.account,
          wallet: opts.wallet,
          amount: opts.amount,
          reason: opts.reason,
        });
        print(
          result,
          opts.json,
          () => `${result.account} ${result.wallet} adjusted by ${result.adjusted}: balance ${result.balance}`,
        );
      }),
    );
}

function addSenderIdCommands(program: Command): void {
  const senderIds = groupCommand(program, "sender-ids");
  senderIds
    .command("add")
    .description("add a sender ID to an account, pending unless --approve")
    .requiredOption("--account <username>", "the account")
    .requiredOption("--sender <sender>", "3 to 11 letters or digits, or a number of up to 15 digits")
    .option("--approve", "approve it at once, and white-list it as the account's DLT header")
    // Decision 0151, as `sender-ids approve`; only with --approve (addSenderIdFor refuses it alone).
    .option("--no-dlt-header", "with --approve: leave the account's DLT headers as they are")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        // Commander sets dltHeader true unless --no-dlt-header is given.
        if (opts.dltHeader === false && !opts.approve) {
          throw new GatewayError(
            "invalid_request",
            "--no-dlt-header goes with --approve: a pending sender ID white-lists no DLT header.",
          );
        }
        const result = await addSenderIdFor(cliDeps(store), {
          username: opts.account,
          sender: opts.sender,
          approve: Boolean(opts.approve),
          dltHeader: opts.dltHeader === false ? false : undefined,
        });
        const what = `sender ID ${result.sender_id}${result.dlt_header ? " and DLT header" : ""}`;
        print(result, opts.json, () => `${what} for ${result.account}: ${result.status}`);
      }),
    );
  addReviewCommands(senderIds, {
    noun: "sender ID",
    listedBy: "sender-ids list",
    setStatus: (store, id, status, account, reason, options) =>
      setSenderIdStatusFor(cliDeps(store), id, status, account, reason, options.dltHeader !== false),
    describe: (row) => `sender ID ${row.sender_id}${row.dlt_header ? " and DLT header" : ""}`,
    // Decision 0151: an approved sender ID is the DLT header registered, unless the operator says not.
    approveOption: { flags: "--no-dlt-header", description: "leave the account's DLT headers as they are" },
  });
  senderIds
    .command("list")
    .description("an account's sender IDs with their status")
    .requiredOption("--account <username>", "the account")
    .addOption(new Option("--status <status>", "only these").choices(["pending", "approved", "rejected"]))
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = await senderIdsOf(cliDeps(store), opts.account, opts.status as ApprovalStatus | undefined);
        print(rows, opts.json, () =>
          table(
            ["ID", "SENDER ID", "STATUS", "CREATED"],
            rows.map((s) => [s.id, s.sender_id, s.status, s.created_at]),
            "no sender IDs",
          ),
        );
      }),
    );
}

export function addAccountCommands(program: Command): void {
  addAccountsCommands(program);
  addKeyCommands(program);
  addCreditCommands(program);
  addSenderIdCommands(program);
  addLoginLockCommands(program);
}
