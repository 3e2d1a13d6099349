// One evaluation of every alert: each kind's conditions read from their owners (wallets,
// connector health, webhook deliveries, messages), settled against the stored states
// (states.ts), every raise and clear told to the operator (a signed webhook queued in the same
// transaction, and an email after it) and low balances to the account (its low_balance event),
// and the gauges set from what the database holds. startAlertChecks runs it every
// ALERT_CHECK_SECONDS in the worker role.

import { isoUtc } from "../../base/core/clock.js";
import { fromMilli } from "../../base/core/credits.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { accountUsernames, customerBalances } from "../../domain/accounts/index.js";
import { connectorFinalCounts } from "../../domain/messages/index.js";
import {
  failingEndpoints,
  queueLowBalance,
  queueOperatorAlert,
  wakeWebhookSenders,
} from "../../domain/webhooks/alert-queries.js";
import { readConnectorHealth } from "../carriers/catalog.js";
import { type AlertKind, type AlertSettings, accountThresholds, readAlertSettings } from "./settings.js";
import { activeAlerts, type Condition, settleAlerts, type Transition } from "./states.js";

type Deps = Pick<Runtime, "store" | "clock" | "logger" | "metrics">;

/** One email to the operator, sent through the gateway's SMTP relay (channels/email, handed in by app/). */
export type AlertMailer = (mail: { to: string; subject: string; text: string }) => Promise<void>;

/** The conditions of one kind that hold now. */
async function conditionsOf(deps: Deps, kind: AlertKind, settings: AlertSettings, now: number): Promise<Condition[]> {
  const db = deps.store.db;
  if (kind === "low_balance") {
    const { threshold, wallet } = settings.low_balance;
    const own = new Map((await accountThresholds(db)).map((row) => [row.account_id, row]));
    const wallets = new Set([wallet, ...[...own.values()].map((row) => row.wallet)]);
    const conditions: Condition[] = [];
    for (const name of wallets) {
      for (const account of await customerBalances(db, name)) {
        const mine = own.get(account.account_id);
        const limit = mine ? (mine.wallet === name ? mine.threshold : null) : name === wallet ? threshold : null;
        if (limit === null) continue;
        const balance = fromMilli(account.balance);
        if (balance >= limit) continue;
        conditions.push({
          subject: account.username,
          value: balance,
          detail: `${account.username}'s ${name} balance is ${balance} credits, below its threshold of ${limit}`,
          accountId: account.account_id,
          windowMs: 0,
        });
      }
    }
    return conditions;
  }
  if (kind === "connector_down") {
    const windowMs = settings.connector_down.seconds * 1000;
    return (await readConnectorHealth(db, now))
      .filter((view) => view.state === "down")
      .map((view) => ({
        subject: view.connector,
        value: null,
        detail: `connector ${view.connector} is down${reasonOf(view.workers)}`,
        windowMs,
      }));
  }
  if (kind === "webhook_failing") {
    const endpoints = await failingEndpoints(db);
    const names = await accountUsernames(db, [...new Set(endpoints.map((endpoint) => endpoint.account_id))]);
    return endpoints.map((endpoint) => {
      const who = names.get(endpoint.account_id) ?? `account ${endpoint.account_id}`;
      return {
        subject: `account:${endpoint.account_id} ${endpoint.url}`,
        since: endpoint.since,
        value: endpoint.deliveries,
        detail: `${who}'s webhook endpoint ${endpoint.url} is failing (${endpoint.deliveries} deliveries in retry; last error: ${endpoint.last_error ?? "none"})`,
        accountId: endpoint.account_id,
        windowMs: settings.webhook_failing.minutes * 60_000,
      };
    });
  }
  const { messages, percent } = settings.delivery_rate;
  const conditions: Condition[] = [];
  for (const view of await readConnectorHealth(db, now)) {
    const { delivered, failed } = await connectorFinalCounts(db, view.connector, messages);
    if (delivered + failed < messages) continue;
    const rate = Math.round((delivered / (delivered + failed)) * 10_000) / 100;
    if (rate >= percent) continue;
    conditions.push({
      subject: view.connector,
      value: rate,
      detail: `connector ${view.connector} delivered ${rate} % of its last ${messages} final messages (below ${percent} %)`,
      windowMs: 0,
    });
  }
  return conditions;
}

function reasonOf(workers: readonly Record<string, unknown>[]): string {
  const reason = workers.map((worker) => worker.reason).find((r) => typeof r === "string" && r !== "");
  return typeof reason === "string" ? ` (${reason})` : "";
}

/** What an alert's webhook and email say. */
export function alertPayload(transition: Transition): Record<string, unknown> {
  return {
    event: "alert",
    alert: transition.kind,
    subject: transition.subject,
    state: transition.state,
    value: transition.value,
    detail: transition.detail,
    since: isoUtc(new Date(transition.since)),
    at: isoUtc(new Date(transition.at)),
  };
}

/** The label of an alert's series: an account by id (never a username or URL), else its subject. */
export function seriesSubject(kind: string, subject: string, accountId: number | null): string {
  return accountId !== null && (kind === "low_balance" || kind === "webhook_failing")
    ? `account:${accountId}`
    : subject;
}

/** One evaluation of every alert; answers the raises and clears this process made. */
export async function evaluateAlerts(deps: Deps, mailer?: AlertMailer): Promise<Transition[]> {
  const { store } = deps;
  const now = deps.clock.now().getTime();
  const { settings, operatorAccountId } = await readAlertSettings(store.db);
  let queued = false;
  const told = async (trx: Db, transition: Transition) => {
    if (settings.url && operatorAccountId !== null) {
      await queueOperatorAlert(store, trx, {
        operatorAccountId,
        url: settings.url,
        orderKey: `alert:${transition.kind}:${transition.subject}`,
        now,
        payload: alertPayload(transition),
      });
      queued = true;
    }
    if (transition.kind === "low_balance" && transition.state === "raised" && transition.accountId !== null) {
      const own = (await accountThresholds(trx)).find((row) => row.account_id === transition.accountId);
      const told = await queueLowBalance(store, trx, transition.accountId, {
        username: transition.subject,
        wallet: own?.wallet ?? settings.low_balance.wallet,
        balance: transition.value ?? 0,
        threshold: own?.threshold ?? settings.low_balance.threshold ?? 0,
        at: now,
      });
      queued ||= told;
    }
  };
  const transitions: Transition[] = [];
  for (const kind of ["low_balance", "connector_down", "webhook_failing", "delivery_rate"] as const) {
    const conditions = settings[kind].enabled ? await conditionsOf(deps, kind, settings, now) : [];
    transitions.push(...(await settleAlerts(store, kind, conditions, now, told)));
  }
  if (queued) await wakeWebhookSenders(store).catch(() => undefined);
  await setGauges(deps);
  for (const transition of transitions) {
    if (transition.state === "raised") deps.metrics.alertsRaised.inc({ alert: transition.kind });
    deps.logger.warn(
      { alert: transition.kind, subject: transition.subject, state: transition.state },
      `alert ${transition.state}: ${transition.detail}`,
    );
    if (settings.email && mailer) await mail(deps, mailer, settings.email, transition);
  }
  return transitions;
}

async function mail(deps: Deps, mailer: AlertMailer, to: string, transition: Transition): Promise<void> {
  const payload = alertPayload(transition);
  const subject = `[Switchboard] ${transition.state === "raised" ? "ALERT" : "Cleared"}: ${transition.kind} ${transition.subject}`;
  const text = [
    transition.detail,
    "",
    ...Object.entries(payload).map(([key, value]) => `${key}: ${value === null ? "-" : String(value)}`),
  ].join("\n");
  try {
    await mailer({ to, subject, text });
  } catch (error) {
    // The raise stands (it is shown, counted and webhooked); the mail is not tried again.
    deps.logger.error({ err: error, alert: transition.kind, to }, "mailing an alert failed");
  }
}

/**
 * switchboard_alert_active from the database: every process that evaluates shows the same. Read
 * first, then reset and set with no await between: a scrape during the read sees the last round's
 * series, never an empty gauge.
 */
async function setGauges(deps: Deps): Promise<void> {
  const gauge = deps.metrics.alertActive;
  const active = await activeAlerts(deps.store.db);
  gauge.reset();
  for (const alert of active) {
    gauge.inc({ alert: alert.kind, subject: seriesSubject(alert.kind, alert.subject, alert.account_id) });
  }
}

export interface AlertChecks {
  runOnce(): Promise<Transition[]>;
  stop(): Promise<void>;
}

/** Evaluates every `intervalMs` (ALERT_CHECK_SECONDS), one round at a time. */
export function startAlertChecks(deps: Deps, mailer: AlertMailer | undefined, intervalMs: number): AlertChecks {
  let running: Promise<unknown> | undefined;
  const runOnce = () => evaluateAlerts(deps, mailer);
  const timer = setInterval(() => {
    if (running) return;
    running = runOnce()
      .catch((error: unknown) => deps.logger.error({ err: error }, "evaluating alerts failed"))
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
