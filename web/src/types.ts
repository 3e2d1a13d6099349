// The shapes of the v2 answers the console reads (docs/api.md), taken from the server's own answer
// schemas: the schemas that serialize the answers are the types the pages read, so a field renamed
// on the server fails the console's type check. `import type` only: no schema reaches the bundle;
// the lists of words below come from files of src/ that import nothing.
import type { Static } from "typebox";
import type * as chains from "../../src/channels/chains/schemas.js";
import type * as email from "../../src/channels/email/v2-schemas.js";
import type * as inbound from "../../src/channels/inbound/v2-schemas.js";
import type * as smpp from "../../src/channels/smpp-server/v2-schemas.js";
import type * as sms from "../../src/channels/sms/v2-schemas.js";
import type * as verify from "../../src/channels/verify/schemas.js";
import type * as voice from "../../src/channels/voice/v2-schemas.js";
import type * as whatsapp from "../../src/channels/whatsapp/v2-schemas.js";
import type * as accounts from "../../src/domain/accounts/v2-schemas.js";
import type * as audit from "../../src/domain/audit/audit-schemas.js";
import type * as users from "../../src/domain/auth/user-schemas.js";
import type * as contacts from "../../src/domain/contacts/v2-schemas.js";
import type * as refusals from "../../src/domain/refusals/refusal-schemas.js";
import type * as webhooks from "../../src/domain/webhooks/schemas.js";

export { WALLETS } from "../../src/base/core/wallets.js";
export {
  ACCOUNT_USER_ROLES,
  type Capability,
  keyCapabilitiesBeyond,
  ROLE_CAPABILITIES,
  STAFF_ROLES,
  scopesOfUserRole,
  type UserRole,
} from "../../src/domain/auth/user-roles.js";
export {
  TRAFFIC_CHANNELS as CHANNELS,
  type TrafficChannel as Channel,
} from "../../src/domain/messages/traffic-channels.js";

// SMS: sends, reports, the message views, bulk jobs.
export type SmsAccepted = Static<typeof sms.SmsAccepted>;
export type Balance = Static<typeof sms.Balance>;
export type SenderId = Static<typeof sms.SenderId>;
export type DeliveryReport = Static<typeof sms.DeliveryReport>;
export type MessagePage = Static<typeof sms.MessagePage>;
export type MessageSummary = Static<typeof sms.MessageSummary>;
export type PerMinute = Static<typeof sms.PerMinute>;
export type MessageDetail = Static<typeof sms.MessageDetail>;
export type SendChain = Static<typeof chains.Chain>;
export type BulkAccepted = Static<typeof sms.BulkAccepted>;
export type BulkPreview = Static<typeof sms.BulkPreview>;
export type BulkJob = Static<typeof sms.BulkJob>;
export type BulkJobWithSummary = Static<typeof sms.BulkJobWithSummary>;
export type BulkJobDetail = Static<typeof sms.BulkJobDetail>;
export type BulkJobCancellation = Static<typeof sms.BulkJobCancellation>;
export type DeliverySummary = Static<typeof sms.DeliverySummary>;

// The account: templates, credits, keys, registrations.
export type Template = Static<typeof accounts.Template>;
export type CreditsDetail = Static<typeof accounts.CreditDetail>;
/** A ledger entry as the account sees it (GET /api/v2/credits' recent_credits). */
export type CreditEntry = Static<typeof accounts.LedgerEntry>;
export type CreditDay = Static<typeof accounts.CreditDay>;
export type LedgerTotals = Static<typeof accounts.LedgerTotals>;
export type CreditTransfer = Static<typeof accounts.CreditTransfer>;
export type SenderIdRequest = Static<typeof accounts.SenderIdRequest>;
export type ApiKey = Static<typeof accounts.ApiKey>;
export type CreatedKey = Static<typeof accounts.CreatedKey>;
export type SubAccount = Static<typeof accounts.SubAccount>;
export type SubAccountFunding = Static<typeof accounts.SubAccountFunding>;
export type DltRegistrations = Static<typeof accounts.DltRegistrations>;

export type ContactGroup = Static<typeof contacts.ContactGroup>;
export type Contact = Static<typeof contacts.Contact>;
export type ContactUpload = Static<typeof contacts.ContactImport>;

export type Keyword = Static<typeof inbound.Keyword>;
export type InboundMessage = Static<typeof inbound.InboundMessage>;

export type WebhookSettings = Static<typeof webhooks.WebhookSettings>;
export type WebhookSecret = Static<typeof webhooks.WebhookSecret>;
export type WebhookDelivery = Static<typeof webhooks.WebhookDelivery>;

export type WhatsAppTemplate = Static<typeof whatsapp.WhatsAppTemplate>;
export type WhatsAppSent = Static<typeof whatsapp.WhatsAppSent>;
export type EmailDomain = Static<typeof email.EmailDomain>;
export type EmailSendAnswer = Static<typeof email.EmailSendAnswer>;
export type CallerId = Static<typeof voice.CallerId>;
export type PlacedCall = Static<typeof voice.PlacedCall>;

// The log of refused sends.
export type Refusal = Static<typeof refusals.Refusal>;
export type RefusalPage = Static<typeof refusals.RefusalPage>;
/** The account's SMPP access and its binds open now (GET /api/v2/smpp/binds). */
export type AccountSmppBinds = Static<typeof smpp.AccountSmppBinds>;
export type AccountSmppBind = Static<typeof smpp.AccountSmppBind>;

// The Verify API: the account's verify settings and the conversion of its codes.
export type VerifySettings = Static<typeof verify.VerifySettingsAnswer>;
export type VerifyAnalytics = Static<typeof verify.VerifyAnalytics>;
// The audit log.
export type AuditEntry = Static<typeof audit.AuditEntry>;
export type AuditPage = Static<typeof audit.AuditPage>;

// Users, staff and sessions (decisions 0126, 0127).
export type User = Static<typeof users.User>;
export type CreatedUser = Static<typeof users.CreatedUser>;
export type PasswordChanged = Static<typeof users.PasswordChanged>;
export type ConsoleSession = Static<typeof users.ConsoleSession>;
export type Invitation = Static<typeof users.Invitation>;
