// Rule 5 of the SMS rules (docs/api.md, "The SMS rules"): whether the account may send on the
// route at all. Route P from the account's own alphabetic sender ID is a promotional send with
// sender ID, so it needs promo sender as PS does (decision 0183).

import { GatewayError } from "../../base/core/errors.js";
import { type TrafficClass, trafficClassCode } from "../../base/core/traffic-class.js";
import { GENERIC_PROMOTIONAL_SENDER as PROMOTIONAL_SENDER } from "../../delivery/carriers/promotional-header.js";
import type { AccountRules } from "./account-rules.js";

/** A number (India's promotional DLT headers are 6 digits), not a name. */
export function numericSender(sender: string): boolean {
  return /^\d+$/.test(sender);
}

/** The account's own name for itself: neither a number nor the generic PROMOTIONAL. */
export function brandedSender(sender: string): boolean {
  return !numericSender(sender) && sender.toUpperCase() !== PROMOTIONAL_SENDER;
}

/** Refuses a route the account may not send on; `sender` is the trimmed sender ID. */
export function checkRouteEnabled(route: TrafficClass, rules: AccountRules, sender: string): void {
  if (route === "international") {
    if (!rules.internationalEnabled) throw new GatewayError("international_disabled");
    return;
  }
  if (route === "promotional_sender") {
    if (!rules.promoSenderEnabled) throw new GatewayError("promo_sender_disabled");
    return;
  }
  if (!rules.routes.has(trafficClassCode(route))) {
    throw new GatewayError("route_not_approved", `Route ${trafficClassCode(route)} is not enabled for this account.`);
  }
  if (route === "promotional" && !rules.promoSenderEnabled && brandedSender(sender)) {
    throw new GatewayError(
      "promo_sender_disabled",
      `Promo with sender ID not enabled: route P sends from ${PROMOTIONAL_SENDER} or a numeric promotional header; from the sender ID ${sender} it is promotional with sender ID (PS), which this account may not send.`,
    );
  }
}
