// The migrations' bodies, by name, in order: loaded only when one is pending (index.ts compares
// the names of MIGRATION_NAMES with schema_migrations first), so a command against an up-to-date
// database never loads them.
import type { Migration } from "kysely";
import type { Engine } from "../engine.js";
import { accountsAndLedger } from "./0001_accounts_and_ledger.js";
import { messages } from "./0002_messages.js";
import { smsRules } from "./0003_sms_rules.js";
import { campaignsAndInbound } from "./0004_campaigns_and_inbound.js";
import { webhooks } from "./0005_webhooks.js";
import { whatsapp } from "./0006_whatsapp.js";
import { voice } from "./0007_voice.js";
import { email } from "./0008_email.js";
import { carrierParts } from "./0009_carrier_parts.js";
import { carriers } from "./0010_carriers.js";
import { messagePartsAge } from "./0011_message_parts_age.js";
import { usernamesCaseInsensitive } from "./0012_usernames_case_insensitive.js";
import { loginLocks } from "./0013_login_locks.js";
import { defaultDltEntity } from "./0014_default_dlt_entity.js";
import { messageListing } from "./0015_message_listing.js";
import { consoleSessions } from "./0016_console_sessions.js";
import { smppServer } from "./0017_smpp_server.js";
import { processHeartbeats } from "./0018_process_heartbeats.js";
import { smppBinds } from "./0019_smpp_binds.js";
import { voiceCallerRequests } from "./0020_voice_caller_requests.js";
import { messagesHeldSince } from "./0021_messages_held_since.js";
import { keyCollation } from "./0022_key_collation.js";
import { hotTableKeys } from "./0023_hot_table_keys.js";
import { messagePartsCount } from "./0024_message_parts_count.js";
import { messagePartsRoom } from "./0025_message_parts_room.js";
import { earlyReports } from "./0026_early_reports.js";
import { loginBudget } from "./0027_login_budget.js";
import { earlyReportsByAge } from "./0028_early_reports_by_age.js";
import { messagesByCreated } from "./0029_messages_by_created.js";
import { accountViews } from "./0030_account_views.js";
import { refusals } from "./0032_refusals.js";
import { alerts } from "./0033_alerts.js";
import { priceCards } from "./0034_price_cards.js";
import { deliveryRollups } from "./0035_delivery_rollups.js";
import { resellers } from "./0036_resellers.js";
import { routingCosts } from "./0037_routing_costs.js";
import { dltWhitelists } from "./0038_dlt_whitelists.js";
import { verifications } from "./0039_verifications.js";
import { verifyCountries } from "./0040_verify_countries.js";
import { verifyGuards } from "./0041_verify_guards.js";
import { dltMatching } from "./0042_dlt_matching.js";
import { dltTmChain } from "./0043_dlt_tm_chain.js";
import { auditLog } from "./0044_audit_log.js";
import { sendChains } from "./0045_send_chains.js";
import { promoHours } from "./0046_promo_hours.js";
import { shortLinks } from "./0047_short_links.js";
import { carrierReasons } from "./0048_carrier_reasons.js";
import { keyScopes } from "./0049_key_scopes.js";
import { users } from "./0050_users.js";
import { twoFactor } from "./0051_two_factor.js";
import { prefixAlertsChainPruning } from "./0053_prefix_alerts_chain_pruning.js";
import { fewerMessageWrites } from "./0054_fewer_message_writes.js";
import { earlyReceipts } from "./0055_early_receipts.js";
import { keyMakers } from "./0056_key_makers.js";
import { attemptUrlsRejectionReasons } from "./0057_attempt_urls_rejection_reasons.js";
import { moreRejectionReasons } from "./0059_more_rejection_reasons.js";
import { messageDltChainScrub } from "./0060_message_dlt_chain_scrub.js";
import { priceCardGenerations } from "./0061_price_card_generations.js";
import { rollupsRejected } from "./0064_rollups_rejected.js";
import { priceCardRowOrder } from "./0067_price_card_row_order.js";
import { refusalRecipients } from "./0068_refusal_recipients.js";
import { refusalUsername } from "./0069_refusal_username.js";
import { refusalUpline } from "./0070_refusal_upline.js";
import { priceCardPlacesUnique } from "./0071_price_card_places_unique.js";
import { emailUnsubscribe } from "./0074_email_unsubscribe.js";
import { messageCarrierSource } from "./0075_message_carrier_source.js";
import { earlyReportCarrierCode } from "./0076_early_report_carrier_code.js";
import { whatsAppEarlyStatuses } from "./0077_whatsapp_early_statuses.js";
import { webhookSecretOneCurrent } from "./0078_webhook_secret_one_current.js";

export function migrationBodies(engine: Engine): Record<string, Migration> {
  return {
    "0001_accounts_and_ledger": accountsAndLedger(engine),
    "0002_messages": messages(engine),
    "0003_sms_rules": smsRules(engine),
    "0004_campaigns_and_inbound": campaignsAndInbound(engine),
    "0005_webhooks": webhooks(engine),
    "0006_whatsapp": whatsapp(engine),
    "0007_voice": voice(engine),
    "0008_email": email(engine),
    "0009_carrier_parts": carrierParts(engine),
    "0010_carriers": carriers(engine),
    "0011_message_parts_age": messagePartsAge(engine),
    "0012_usernames_case_insensitive": usernamesCaseInsensitive(engine),
    "0013_login_locks": loginLocks(engine),
    "0014_default_dlt_entity": defaultDltEntity(engine),
    "0015_message_listing": messageListing(engine),
    "0016_console_sessions": consoleSessions(engine),
    "0017_smpp_server": smppServer(engine),
    "0018_process_heartbeats": processHeartbeats(engine),
    "0019_smpp_binds": smppBinds(engine),
    "0020_voice_caller_requests": voiceCallerRequests(engine),
    "0021_messages_held_since": messagesHeldSince(engine),
    "0022_key_collation": keyCollation(engine),
    "0023_hot_table_keys": hotTableKeys(engine),
    "0024_message_parts_count": messagePartsCount(engine),
    "0025_message_parts_room": messagePartsRoom(engine),
    "0026_early_reports": earlyReports(engine),
    "0027_login_budget": loginBudget(engine),
    "0028_early_reports_by_age": earlyReportsByAge(),
    "0029_messages_by_created": messagesByCreated(engine),
    "0030_account_views": accountViews(engine),
    "0032_refusals": refusals(engine),
    "0033_alerts": alerts(),
    "0034_price_cards": priceCards(engine),
    "0035_delivery_rollups": deliveryRollups(engine),
    "0036_resellers": resellers(),
    "0037_routing_costs": routingCosts(engine),
    "0038_dlt_whitelists": dltWhitelists(engine),
    "0039_verifications": verifications(),
    "0040_verify_countries": verifyCountries(),
    "0041_verify_guards": verifyGuards(),
    "0042_dlt_matching": dltMatching(),
    "0043_dlt_tm_chain": dltTmChain(),
    "0044_audit_log": auditLog(engine),
    "0045_send_chains": sendChains(),
    "0046_promo_hours": promoHours(),
    "0047_short_links": shortLinks(engine),
    "0048_carrier_reasons": carrierReasons(),
    "0049_key_scopes": keyScopes(),
    "0050_users": users(engine),
    "0051_two_factor": twoFactor(),
    "0053_prefix_alerts_chain_pruning": prefixAlertsChainPruning(),
    "0054_fewer_message_writes": fewerMessageWrites(engine),
    "0055_early_receipts": earlyReceipts(engine),
    "0056_key_makers": keyMakers(),
    "0057_attempt_urls_rejection_reasons": attemptUrlsRejectionReasons(),
    "0059_more_rejection_reasons": moreRejectionReasons(),
    "0060_message_dlt_chain_scrub": messageDltChainScrub(),
    "0061_price_card_generations": priceCardGenerations(),
    "0064_rollups_rejected": rollupsRejected(engine),
    "0067_price_card_row_order": priceCardRowOrder(engine),
    "0068_refusal_recipients": refusalRecipients(),
    "0069_refusal_username": refusalUsername(),
    "0070_refusal_upline": refusalUpline(),
    "0071_price_card_places_unique": priceCardPlacesUnique(),
    "0074_email_unsubscribe": emailUnsubscribe(),
    "0075_message_carrier_source": messageCarrierSource(),
    "0076_early_report_carrier_code": earlyReportCarrierCode(),
    "0077_whatsapp_early_statuses": whatsAppEarlyStatuses(engine),
    "0078_webhook_secret_one_current": webhookSecretOneCurrent(),
  };
}
