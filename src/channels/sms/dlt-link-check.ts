// The SMS rule on DLT links and callback numbers (issue 40, item 1; docs/api.md rules 14a, 14b):
// every link and phone number of a text, fixed text and {#var#} values alike, must be on the
// send's entity's approved lists (found and matched by base/core/dlt-links.ts), or the send is
// refused, naming the first that is not and what to ask the operator for.
import { type EntityLinks, findUnlistedLink, type Unlisted } from "../../base/core/dlt-links.js";
import { GatewayError } from "../../base/core/errors.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";
import type { TemplateMatch } from "./dlt-matcher.js";

/**
 * Refuses the first text of a send that holds a link or number off the entity's lists. A text
 * matched to a template as sent (`layout`) is read by parts (base/core/dlt-link-parts.ts): the
 * same answer, with the template's fixed text read once per template.
 */
export function checkDltLinks(
  texts: Iterable<[string, { layout?: TemplateMatch<unknown>["layout"] | undefined }]>,
  links: EntityLinks | undefined,
  username: string,
  entityId: string,
): void {
  for (const [text, { layout }] of texts) {
    const offending = layout
      ? layout.plan.firstUnlisted(text, layout.pieceStarts, links)
      : findUnlistedLink(text, links);
    if (offending) refuseLink(offending, username, entityId);
  }
}

function refuseLink(offending: Unlisted, username: string, entityId: string): never {
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
