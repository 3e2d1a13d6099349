// The tables of alerts/ (delivery/alerts): the operator's alert settings, each account's
// low-balance threshold and the state of every alert condition, as Kysely sees them;
// `Database` (schema.ts) extends this.

export interface AlertSettingsTable {
  /** Always 1: one row. */
  id: number;
  /** The settings as JSON (alerts/settings.ts AlertSettings). */
  settings: string;
  /** The operator account whose webhook secret signs the alert webhooks (the last to save the settings). */
  operator_account_id: number | null;
  updated_at: number;
}

export interface AlertThresholdsTable {
  account_id: number;
  wallet: string;
  /** Milli-credits. */
  threshold: number;
  updated_at: number;
}

export interface AlertStatesTable {
  /** low_balance, connector_down, webhook_failing, delivery_rate. */
  kind: string;
  /** What the alert is about: a username, a connector, an endpoint (`username url`). */
  subject: string;
  /** When the condition was first seen. */
  since: number;
  /** 0: seen, not yet raised (its window not over); 1: raised. Cleared: the row is deleted. */
  active: number;
  raised_at: number | null;
  /** The measure that raised it: a balance in credits, seconds down, a delivery rate in %. */
  value: number | null;
  detail: string;
  account_id: number | null;
  updated_at: number;
}

export interface AlertsTables {
  alert_settings: AlertSettingsTable;
  alert_thresholds: AlertThresholdsTable;
  alert_states: AlertStatesTable;
}
