// CLI commands for the operator's alerts: `alerts show` (the settings, the signing secret and the
// alerts active now), `alerts set` (any setting; checked as PUT /admin/api/alerts checks it) and
// `alerts threshold` (an account's own low-balance threshold). They call delivery/alerts, as the
// operator API does.
import type { Command } from "commander";
import { systemClock } from "../../base/core/clock.js";
import { loadConfig } from "../../base/runtime/config.js";
import type { Store } from "../../base/store/store.js";
import {
  type AlertDeps,
  accountThreshold,
  changeAlerts,
  checkChange,
  describeAlerts,
  setAccountThreshold,
} from "../../delivery/alerts/index.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, onOff, print, table, withStore } from "./cli-support.js";

/** `none` clears a URL, an address or a threshold (kept as the word until the change is built). */
const orNone = (value: string | undefined) => (value === "none" ? null : value);
const numberOrNone = (value: string | undefined) =>
  value === undefined ? undefined : value === "none" ? null : Number(value);

function alertDeps(store: Store): AlertDeps {
  const config = loadConfig();
  return {
    store,
    clock: systemClock,
    allowPrivate: config.allowPrivateWebhooks,
    emailConfigured: config.email.smtpUrl !== undefined,
  };
}

type Shown = Awaited<ReturnType<typeof describeAlerts>>;

function human(shown: Shown): string {
  const on = (enabled: boolean) => (enabled ? "on " : "off");
  const lines = [
    `url:             ${shown.url ?? "none"}${shown.secret ? ` (signed with ${shown.secret})` : ""}`,
    `email:           ${shown.email ?? "none"}${shown.email && !shown.email_configured ? " (not sent: SMTP_URL is not set)" : ""}`,
    `low_balance      ${on(shown.low_balance.enabled)} threshold ${shown.low_balance.threshold ?? "none"} (${shown.low_balance.wallet}; accounts' own thresholds first)`,
    `connector_down   ${on(shown.connector_down.enabled)} after ${shown.connector_down.seconds} s`,
    `webhook_failing  ${on(shown.webhook_failing.enabled)} after ${shown.webhook_failing.minutes} min`,
    `delivery_rate    ${on(shown.delivery_rate.enabled)} below ${shown.delivery_rate.percent} % of the last ${shown.delivery_rate.messages} final messages`,
    "",
    table(
      ["ALERT", "SUBJECT", "VALUE", "RAISED AT", "DETAIL"],
      shown.active.map((a) => [a.alert, a.subject, a.value ?? "", a.raised_at, a.detail]),
      "no active alerts",
    ),
  ];
  return lines.join("\n");
}

interface SetOptions {
  url?: string;
  email?: string;
  operator?: string;
  lowBalance?: boolean;
  lowBalanceThreshold?: string;
  lowBalanceWallet?: string;
  connectorDown?: boolean;
  connectorDownSeconds?: number;
  webhookFailing?: boolean;
  webhookFailingMinutes?: number;
  deliveryRate?: boolean;
  deliveryRateMessages?: number;
  deliveryRatePercent?: number;
  json?: boolean;
}

/** The options given, as the body of PUT /admin/api/alerts (only what was given). */
function changeOf(opts: SetOptions): Record<string, unknown> {
  const defined = (entries: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(entries).filter(([, value]) => value !== undefined));
  const kinds = {
    low_balance: defined({
      enabled: opts.lowBalance,
      threshold: numberOrNone(opts.lowBalanceThreshold),
      wallet: opts.lowBalanceWallet,
    }),
    connector_down: defined({ enabled: opts.connectorDown, seconds: opts.connectorDownSeconds }),
    webhook_failing: defined({ enabled: opts.webhookFailing, minutes: opts.webhookFailingMinutes }),
    delivery_rate: defined({
      enabled: opts.deliveryRate,
      messages: opts.deliveryRateMessages,
      percent: opts.deliveryRatePercent,
    }),
  };
  return {
    ...defined({ url: orNone(opts.url), email: orNone(opts.email) }),
    ...Object.fromEntries(Object.entries(kinds).filter(([, value]) => Object.keys(value).length > 0)),
  };
}

export function addAlertCommands(program: Command): void {
  const alerts = groupCommand(program, "alerts");
  alerts
    .command("show")
    .description("the alert settings and the alerts active now")
    .option("--json", "print JSON")
    .action((opts: { json?: boolean }) =>
      withStore(async (store) => {
        const shown = await describeAlerts(alertDeps(store));
        print(shown, opts.json, () => human(shown));
      }),
    );
  alerts
    .command("set")
    .description("change alert settings (the others are kept); as PUT /admin/api/alerts")
    .option("--url <url>", "the operator's alert URL (signed webhooks); none removes it")
    .option("--email <address>", "the operator's address (mailed through SMTP_URL); none removes it")
    .option("--operator <username>", "the operator account whose webhook secret signs the alerts")
    .option("--low-balance <on|off>", "the low-balance alert", onOff)
    .option("--low-balance-threshold <credits>", "for accounts without their own; none: only those")
    .option("--low-balance-wallet <wallet>", "the wallet the default threshold is of (sms)")
    .option("--connector-down <on|off>", "the connector-down alert", onOff)
    .option("--connector-down-seconds <n>", "down this long before it is raised", Number)
    .option("--webhook-failing <on|off>", "the webhook-failing alert", onOff)
    .option("--webhook-failing-minutes <n>", "failing this long before it is raised", Number)
    .option("--delivery-rate <on|off>", "the delivery-rate alert", onOff)
    .option("--delivery-rate-messages <n>", "over a connector's last n final messages", Number)
    .option("--delivery-rate-percent <x>", "raised below x % delivered", Number)
    .option("--json", "print JSON")
    .action((opts: SetOptions) =>
      withStore(async (store) => {
        const change = checkChange(changeOf(opts));
        const operator = opts.operator === undefined ? undefined : (await requireAccount(store.db, opts.operator)).id;
        const shown = await changeAlerts(alertDeps(store), cliDeps(store), change, operator);
        print(shown, opts.json, () => human(shown));
      }),
    );
  alerts
    .command("threshold")
    .description("an account's own low-balance threshold in credits (none removes it)")
    .argument("<username>")
    .argument("[credits]", "the threshold; none removes it; left out: show it")
    .option("--wallet <wallet>", "the wallet it is of", "sms")
    .option("--json", "print JSON")
    .action((username: string, credits: string | undefined, opts: { wallet: string; json?: boolean }) =>
      withStore(async (store) => {
        const account = await requireAccount(store.db, username);
        if (credits !== undefined) {
          const threshold = numberOrNone(credits);
          const change = checkChange({ low_balance: { threshold, wallet: opts.wallet } }).low_balance!;
          await setAccountThreshold(store, cliDeps(store), account, {
            wallet: change.wallet ?? "sms",
            threshold: change.threshold ?? null,
          });
        }
        const own = await accountThreshold(store.db, account.id);
        const shown = {
          account: account.username,
          wallet: own?.wallet ?? opts.wallet,
          threshold: own?.threshold ?? null,
        };
        print(shown, opts.json, () =>
          shown.threshold === null
            ? `${shown.account}: no threshold of its own (the default applies)`
            : `${shown.account}: ${shown.wallet} below ${shown.threshold} credits raises low_balance`,
        );
      }),
    );
}
