// The operator's alert settings (one row of alert_settings, JSON) and each account's low-balance
// threshold (alert_thresholds): read with their defaults, changed by a partial update that is
// checked whole before anything is written, each change with its audit entry in its transaction.
import { fromMilli, toMilli, type Wallet } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { type Audited, recordChange } from "../../domain/audit/index.js";

export const ALERT_KINDS = ["low_balance", "connector_down", "webhook_failing", "delivery_rate"] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export interface AlertSettings {
  /** The operator's alert URL: every raise and clear is POSTed there, signed. */
  url: string | null;
  /** The operator's address: every raise and clear is mailed there (through SMTP_URL). */
  email: string | null;
  /** `threshold`: credits, for accounts without their own (null: only those with one). */
  low_balance: { enabled: boolean; threshold: number | null; wallet: Wallet };
  connector_down: { enabled: boolean; seconds: number };
  webhook_failing: { enabled: boolean; minutes: number };
  /** Raised when the connector's last `messages` final messages delivered under `percent` %. */
  delivery_rate: { enabled: boolean; messages: number; percent: number };
}

export type AlertSettingsChange = {
  url?: string | null;
  email?: string | null;
} & { [K in AlertKind]?: Partial<AlertSettings[K]> };

export const DEFAULT_ALERT_SETTINGS: AlertSettings = {
  url: null,
  email: null,
  low_balance: { enabled: true, threshold: null, wallet: "sms" },
  connector_down: { enabled: true, seconds: 60 },
  webhook_failing: { enabled: true, minutes: 15 },
  delivery_rate: { enabled: true, messages: 100, percent: 50 },
};

/** What the settings row holds besides the settings. */
export interface StoredAlertSettings {
  settings: AlertSettings;
  /** The operator account whose webhook secret signs the alert webhooks. */
  operatorAccountId: number | null;
  updatedAt: number | null;
}

function merged(stored: Partial<AlertSettings>): AlertSettings {
  const base = DEFAULT_ALERT_SETTINGS;
  return {
    url: stored.url ?? null,
    email: stored.email ?? null,
    low_balance: { ...base.low_balance, ...stored.low_balance },
    connector_down: { ...base.connector_down, ...stored.connector_down },
    webhook_failing: { ...base.webhook_failing, ...stored.webhook_failing },
    delivery_rate: { ...base.delivery_rate, ...stored.delivery_rate },
  };
}

export async function readAlertSettings(db: Db): Promise<StoredAlertSettings> {
  const row = await db.selectFrom("alert_settings").selectAll().where("id", "=", 1).executeTakeFirst();
  if (!row) return { settings: merged({}), operatorAccountId: null, updatedAt: null };
  return {
    settings: merged(JSON.parse(row.settings) as Partial<AlertSettings>),
    operatorAccountId: row.operator_account_id === null ? null : Number(row.operator_account_id),
    updatedAt: Number(row.updated_at),
  };
}

/** The settings with `change` applied; a value out of its range is refused naming its field. */
export function applyChange(current: AlertSettings, change: AlertSettingsChange): AlertSettings {
  const next = merged({
    ...current,
    ...("url" in change ? { url: change.url ?? null } : {}),
    ...("email" in change ? { email: change.email ?? null } : {}),
    low_balance: { ...current.low_balance, ...change.low_balance },
    connector_down: { ...current.connector_down, ...change.connector_down },
    webhook_failing: { ...current.webhook_failing, ...change.webhook_failing },
    delivery_rate: { ...current.delivery_rate, ...change.delivery_rate },
  });
  if (next.low_balance.threshold !== null) {
    next.low_balance.threshold = fromMilli(toMilli(next.low_balance.threshold, "low_balance.threshold"));
  }
  const rate = next.delivery_rate;
  if (rate.percent <= 0 || rate.percent > 100) {
    throw new GatewayError("invalid_request", '"delivery_rate.percent" must be more than 0 and at most 100.', {
      field: "delivery_rate.percent",
    });
  }
  return next;
}

/** Writes the settings, and their audit entry (`alerts.change`, before → after), in one transaction. */
export async function writeAlertSettings(
  store: Store,
  who: Audited,
  settings: AlertSettings,
  operatorAccountId: number | null,
): Promise<void> {
  const now = who.clock.now().getTime();
  const values = { settings: JSON.stringify(settings), operator_account_id: operatorAccountId, updated_at: now };
  await store.transaction(async (trx) => {
    const before = await readAlertSettings(trx);
    await trx
      .insertInto("alert_settings")
      .values({ id: 1, ...values })
      .onConflict((oc) => oc.column("id").doUpdateSet(values))
      .execute();
    await recordChange(trx, who, {
      action: "alerts.change",
      target: "alert settings",
      accountId: null,
      before: { ...before.settings, operator_account_id: before.operatorAccountId },
      after: { ...settings, operator_account_id: operatorAccountId },
    });
  });
}

/** An account's own low-balance threshold: wallet and credits. */
export interface AccountThreshold {
  account_id: number;
  wallet: string;
  threshold: number;
}

export async function accountThresholds(db: Db): Promise<AccountThreshold[]> {
  const rows = await db.selectFrom("alert_thresholds").select(["account_id", "wallet", "threshold"]).execute();
  return rows.map((row) => ({
    account_id: Number(row.account_id),
    wallet: row.wallet,
    threshold: fromMilli(row.threshold),
  }));
}

export async function accountThreshold(db: Db, accountId: number): Promise<AccountThreshold | undefined> {
  return (await accountThresholds(db)).find((row) => row.account_id === accountId);
}

/** Sets (or, with null, removes) an account's own threshold, audited (`alerts.threshold`) in its transaction. */
export async function setAccountThreshold(
  store: Store,
  who: Audited,
  account: { id: number; username: string },
  change: { wallet: Wallet; threshold: number | null },
): Promise<void> {
  const now = who.clock.now().getTime();
  const threshold = change.threshold === null ? null : toMilli(change.threshold, "threshold");
  await store.transaction(async (trx) => {
    const before = await trx
      .selectFrom("alert_thresholds")
      .select(["wallet", "threshold"])
      .where("account_id", "=", account.id)
      .executeTakeFirst();
    if (threshold === null) {
      await trx.deleteFrom("alert_thresholds").where("account_id", "=", account.id).execute();
    } else {
      const values = { wallet: change.wallet, threshold, updated_at: now };
      await trx
        .insertInto("alert_thresholds")
        .values({ account_id: account.id, ...values })
        .onConflict((oc) => oc.column("account_id").doUpdateSet(values))
        .execute();
    }
    await recordChange(trx, who, {
      action: "alerts.threshold",
      target: `low-balance threshold of ${account.username}`,
      accountId: account.id,
      before: before ? { wallet: before.wallet, threshold: fromMilli(before.threshold) } : { threshold: null },
      after: threshold === null ? { threshold: null } : { wallet: change.wallet, threshold: fromMilli(threshold) },
    });
  });
}
