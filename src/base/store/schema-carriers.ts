// The tables of carriers/ (connectors, routes, message parts) and smpp-server/ (accounts, binds,
// outbox), as Kysely sees them; `Database` (schema.ts) extends this.
import type { Generated } from "kysely";

export type MessagePartStatus = "pending" | "delivered" | "failed";

/** One part of a carrier message (an SMPP submit_sm): its id at the carrier and its receipt. */
export interface MessagePartsTable {
  message_id: string;
  part_index: number;
  connector: string;
  upstream_id: string;
  status: MessagePartStatus;
  /** The receipt's stat (and err) when the part failed. */
  error_code: string | null;
  done_at: number | null;
  created_at: number;
  /** How many parts the message has (null on rows stored before migration 0024). */
  part_count: number | null;
}

/**
 * An SMPP receipt that named no stored part when it came (its part another process's, not yet
 * committed), kept until a part carries its id (0055; smpp/early-receipts.ts).
 */
export interface EarlyReceiptsTable {
  connector: string;
  upstream_id: string;
  status: "delivered" | "failed";
  stat: string;
  err: string | null;
  done_at: number | null;
  received_at: number;
}

/** An SMS connector an operator configured (issue 10). */
export interface CarriersTable {
  name: string;
  type: "smpp" | "http-sms";
  /** The definition as JSON. */
  config: string;
  enabled: Generated<number>;
  source: "api" | "file";
  created_at: number;
  updated_at: number;
}

/** Which connectors carry the SMS of a route code and number prefix. */
export interface SmsRoutesTable {
  id: Generated<number>;
  route: string;
  prefix: string;
  /** JSON [{ name, weight }] in failover order. */
  connectors: string;
  created_at: number;
  /** weighted (null: the default), least_cost or adaptive (0037). */
  strategy: Generated<string | null>;
  /** JSON { delivery, latency, cost, explore_share, floor_share } of an adaptive route (0037). */
  scoring: Generated<string | null>;
}

/** A row of a connector's cost card: what the carrier charges, as a price card's row (0037). */
export interface CostCardRowsTable {
  id: Generated<number>;
  connector: string;
  channel: string;
  route: string;
  prefix: string;
  /** Milli-credits per SMS segment or voice unit. */
  price: number;
  effective_from: number | null;
}

/** A worker's last look at one connector. */
export interface ConnectorHealthTable {
  connector: string;
  worker: string;
  state: "up" | "degraded" | "down";
  detail: string;
  updated_at: number;
}

/** An account's SMPP server credentials and limits (smpp-server/); no row: it cannot bind. */
export interface SmppAccountsTable {
  account_id: number;
  /** argon2 hash of the SMPP password (at most 8 characters, as SMPP 3.4 allows). */
  password_hash: string;
  /** Binds of the account open at once (every kind counts); 0 = no limit. */
  max_binds: number;
  /** submit_sm, data_sm and submit_multi per second over all its binds; 0 = no limit. */
  submits_per_second: number;
  /** Comma-separated addresses and CIDR ranges a bind may come from; null = anywhere. */
  allowed_ips: string | null;
  created_at: number;
  updated_at: number;
}

/** A deliver_sm owed to an account's receiver binds: a delivery receipt or an MO message. */
export interface SmppOutboxTable {
  id: Generated<number>;
  account_id: number;
  kind: "receipt" | "mo";
  /** The message a receipt is about. */
  message_id: string | null;
  /** JSON: what the deliver_sm carries (smpp-server/outbox.ts). */
  payload: string;
  /** A bind of some process is sending it until then. */
  lease_until: number | null;
  attempts: number;
  created_at: number;
  /** The client refused it or did not answer: tried again then, and nothing after it goes first. */
  retry_at: number | null;
}

/** A bound SMPP client, as the process holding it reports it every few seconds (smpp-server/registry.ts). */
export interface SmppBindsTable {
  id: string;
  process_id: string;
  host: string;
  pid: number;
  account_id: number;
  mode: "transmitter" | "receiver" | "transceiver";
  /** The client's IP address and port. */
  address: string;
  port: number;
  tls: number;
  bound_at: number;
  submits: number;
  /** submit_sm, data_sm and submit_multi per second over the last report's interval. */
  submit_rate: number;
  /** The holding process's last report; a row not seen for a while is of a process gone. */
  seen_at: number;
  /** An operator asked for the bind to be closed; the holding process unbinds it. */
  disconnect_requested_at: number | null;
}

export interface CarriersTables {
  message_parts: MessagePartsTable;
  early_receipts: EarlyReceiptsTable;
  carriers: CarriersTable;
  sms_routes: SmsRoutesTable;
  cost_card_rows: CostCardRowsTable;
  connector_health: ConnectorHealthTable;
  smpp_accounts: SmppAccountsTable;
  smpp_outbox: SmppOutboxTable;
  smpp_binds: SmppBindsTable;
}
