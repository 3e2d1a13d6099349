// The shapes of the operator API's answers the console reads (docs/api.md, "Operator API"), taken
// from the server's answer schemas, as types.ts does for v2: `import type` only, and lists of
// words from files of src/ that import nothing.
import type { Static } from "typebox";
import type * as admin from "../../src/app/admin/account-schemas.js";
import type * as desk from "../../src/app/admin/desk-schemas.js";
import type * as prices from "../../src/app/admin/price-card-schemas.js";
import type * as smsRules from "../../src/app/admin/sms-rule-schemas.js";
import type * as analytics from "../../src/app/analytics-schemas.js";
import type * as system from "../../src/app/system-schemas.js";
import type * as smpp from "../../src/channels/smpp-server/admin-schemas.js";
import type * as alerts from "../../src/delivery/alerts/alert-schemas.js";
import type * as carriers from "../../src/delivery/carriers/carrier-schemas.js";
import type * as audit from "../../src/domain/audit/audit-schemas.js";
import type * as refusals from "../../src/domain/refusals/refusal-schemas.js";

export { APPROVAL_KINDS, type ApprovalKind } from "../../src/app/admin/approval-kinds.js";
/** The error catalogue: a carrier's code maps to one of its codes (a reason), refunded or not by the policy. */
export { ERROR_CATALOGUE } from "../../src/base/core/errors.js";
export { WALLETS as ACCOUNT_WALLETS } from "../../src/base/core/wallets.js";
export { ACCOUNT_ROUTES as ROUTE_CODES, DLT_MATCHING_MODES } from "../../src/domain/accounts/account-fields.js";

export type OperatorAccount = Static<typeof admin.OperatorAccount>;
export type OperatorAccountDetail = Static<typeof admin.OperatorAccountDetail>;
export type OnboardedAccount = Static<typeof admin.OnboardedAccount>;
export type MissingRegistration = Static<typeof admin.MissingRegistration>;
export type CreditTopUp = Static<typeof admin.CreditTopUp>;
/** A ledger entry as the operator sees it: the account's view, and what it is for (`ref`). */
export type LedgerEntry = Static<typeof admin.OperatorLedgerEntry>;
export type ApprovalItem = Static<typeof admin.ApprovalItem>;
export type ApprovalQueue = Static<typeof admin.ApprovalQueue>;

export type WorkerHealth = Static<typeof carriers.WorkerHealth>;
export type ConnectorHealth = Static<typeof carriers.ConnectorHealth>;
export type Carrier = Static<typeof carriers.CarrierWithHealth>;
export type CarrierRoute = Static<typeof carriers.CarrierRoute>;

export type SystemView = Static<typeof system.SystemView>;

// The support desk: every account's messages, a wallet's correction, the read-only views.
export type OperatorMessage = Static<typeof desk.OperatorMessage>;
export type OperatorMessagePage = Static<typeof desk.OperatorMessagePage>;
export type OperatorMessageDetail = Static<typeof desk.OperatorMessageDetail>;
export type CreditAdjustment = Static<typeof desk.CreditAdjustment>;
export type AccountView = Static<typeof admin.AccountView>;
export type OperatorRefusalPage = Static<typeof refusals.OperatorRefusalPage>;
/** A bind of the SMPP server, in any process (GET /admin/api/smpp/binds). */
export type SmppBind = Static<typeof smpp.SmppBind>;
export type AlertSettings = Static<typeof alerts.AlertSettings>;
export type AccountThreshold = Static<typeof alerts.AccountThreshold>;
export type PriceCardSummary = Static<typeof prices.PriceCardSummary>;
/** A price card with its rows (prices in credits, effective_from ISO 8601 or null: always). */
export type PriceCard = Static<typeof prices.PriceCard>;
export type PriceCardPage = Static<typeof prices.PriceCardPage>;
export type PriceCardRow = Static<typeof prices.PriceCardRow>;
export type WrittenPriceCard = Static<typeof prices.WrittenPriceCard>;
export type DeletedPriceCard = Static<typeof prices.DeletedPriceCard>;
export type ActiveAlert = Static<typeof alerts.ActiveAlert>;
export type DeliveryAnalytics = Static<typeof analytics.DeliveryAnalytics>;
export type DeliveryAnalyticsRow = Static<typeof analytics.DeliveryAnalyticsRow>;
export type MarginAnalytics = Static<typeof analytics.MarginAnalytics>;
export type MarginRow = Static<typeof analytics.MarginRow>;
export type RouteScore = Static<typeof carriers.RouteScore>;
/** A connector's carrier codes mapped to reasons: its own over the default table. */
export type ErrorCodeTable = Static<typeof carriers.ErrorCodes>;
/** Whether carrier failures of each reason are refunded: the operator's choice, else REFUND_CARRIER_REASONS. */
export type RefundPolicy = Static<typeof carriers.RefundPolicy>;
/** A white-listed link or callback number of a DLT entity (`url` or `number`, the other null). */
export type DltLink = Static<typeof smsRules.OperatorDltLink>;
/** A DLT entity's telemarketer chain, the operator's own TM ID last. */
export type DltChain = Static<typeof smsRules.DltChain>;
/** What a DND import wrote, and the lines it refused. */
export type DndImport = Static<typeof smsRules.DndImport>;
export type AuditVerification = Static<typeof audit.AuditVerification>;
