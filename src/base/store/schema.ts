// The table shapes, as Kysely sees them. Times are epoch milliseconds (UTC); credits are
// integer milli-credits (see core/credits.ts); booleans are 0/1 on both engines.
// Each owning folder's tables are in a schema-*.ts file beside this one, re-exported here so that
// importers keep importing from schema.ts.
import type { Insertable, Kysely, Selectable } from "kysely";
import type {
  AccountsTable,
  AccountsTables,
  ApiKeysTable,
  LedgerEntriesTable,
  SenderIdsTable,
  TemplatesTable,
} from "./schema-accounts.js";
import type { AlertsTables } from "./schema-alerts.js";
import type { AuditTables } from "./schema-audit.js";
import type { TwoFactorTables } from "./schema-auth.js";
import type { CarriersTables } from "./schema-carriers.js";
import type { ChainsTables } from "./schema-chains.js";
import type { ChannelsTables, ContactGroupsTable, InboundMessagesTable, KeywordsTable } from "./schema-channels.js";
import type { BulkJobsTable, BulkPartsTable, MessagesTable, MessagesTables } from "./schema-messages.js";
import type { RefusalsTables } from "./schema-refusals.js";
import type { VerifyTables } from "./schema-verify.js";
import type { VoiceTables } from "./schema-voice.js";
import type { WebhookDeliveriesTable, WebhooksTables } from "./schema-webhooks.js";

export type * from "./schema-accounts.js";
export type * from "./schema-alerts.js";
export type * from "./schema-audit.js";
export type * from "./schema-auth.js";
export type * from "./schema-carriers.js";
export type * from "./schema-chains.js";
export type * from "./schema-channels.js";
export type * from "./schema-messages.js";
export type * from "./schema-refusals.js";
export type * from "./schema-verify.js";
export type * from "./schema-voice.js";
export type * from "./schema-webhooks.js";

export interface SettingsTable {
  key: string;
  value: string;
}

export interface ProcessHeartbeatsTable {
  id: string;
  role: string;
  host: string;
  pid: number;
  version: string;
  url: string;
  started_at: number;
  beat_local: number;
  beat_db: number;
}

export interface Database
  extends AccountsTables,
    MessagesTables,
    WebhooksTables,
    ChannelsTables,
    VoiceTables,
    CarriersTables,
    RefusalsTables,
    AlertsTables,
    AuditTables,
    VerifyTables,
    ChainsTables,
    TwoFactorTables {
  settings: SettingsTable;
  process_heartbeats: ProcessHeartbeatsTable;
}

export type Account = Selectable<AccountsTable>;
export type NewAccount = Insertable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type LedgerEntry = Selectable<LedgerEntriesTable>;
export type SenderIdRow = Selectable<SenderIdsTable>;
export type MessageRow = Selectable<MessagesTable>;
export type NewMessage = Insertable<MessagesTable>;
export type TemplateRow = Selectable<TemplatesTable>;
export type BulkJobRow = Selectable<BulkJobsTable>;
export type ContactGroupRow = Selectable<ContactGroupsTable>;
export type KeywordRow = Selectable<KeywordsTable>;
export type InboundMessageRow = Selectable<InboundMessagesTable>;
export type BulkPartRow = Selectable<BulkPartsTable>;
export type NewBulkPart = Insertable<BulkPartsTable>;
export type WebhookDeliveryRow = Selectable<WebhookDeliveriesTable>;
export type NewWebhookDelivery = Insertable<WebhookDeliveriesTable>;

/** The database as Kysely sees it (a transaction is one too). */
export type Db = Kysely<Database>;
