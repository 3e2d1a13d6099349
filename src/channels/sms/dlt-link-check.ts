// The SMS rule on DLT links and callback numbers (issue 40, item 1; docs/api.md rules 14a, 14b):
// every link and phone number of a text, fixed text and {#var#} values alike, must be on the
// send's entity's approved lists (found and matched by base/core/dlt-links.ts), or the send is
// refused, naming the first that is not and what to ask the operator for.
import { type EntityLinks, findUnlistedLink } from "../../base/core/dlt-links.js";
import { GatewayError } from "../../base/core/errors.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";

export function checkDltLinks(text: string, links: EntityLinks | undefined, username: string, entityId: string): void {
  const offending = findUnlistedLink(text, links);
  if (!offending) return;
  if (offending.kind === "url") {
    throw new GatewayError(
      "dlt_url_not_whitelisted",
      `The link ${offending.text} is not white-listed for DLT entity ${entityId} of the account ${username}: operators drop SMS whose links (short links too) are not white-listed. ${askOperatorSentence(registrationFixes.dltUrl(username, entityId, offending.text))}`,
      { url: offending.text },
    );
  }
  throw new GatewayError(
    "dlt_callback_not_whitelisted",
    `The number ${offending.text} is not a white-listed callback number of DLT entity ${entityId} of the account ${username}: operators drop SMS whose numbers are not white-listed. ${askOperatorSentence(registrationFixes.dltCallback(username, entityId, offending.text))}`,
    { number: offending.text },
  );
}
