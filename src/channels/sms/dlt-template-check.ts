// The SMS rule on DLT content (docs/api.md rule 12): with scrubbing on, every Indian-route
// message records the approved template it matches, and transactional text must match one —
// whitespace as registered when the account's matching is strict (issue 40, item 3). A refusal
// says where the text stopped matching the closest template (the one the send named, if any):
// `error.position` and `error.expected` on v2, the same words in the legacy families' message.
// A template is registered for a DLT entity and a header: operators drop it sent under another,
// so a send whose entity or header is not its template's is refused too (checkTemplatePairs), and
// of templates with the same text the one registered for the send's own is matched.
import { aboutInput, GatewayError } from "../../base/core/errors.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";
import type { AccountRules, MatchedTemplate } from "./account-rules.js";
import type { TemplateIndex, TemplateMatch } from "./dlt-matcher.js";

export interface TemplateCheck {
  username: string;
  text: string;
  route: TrafficClass;
  /** The send's dlt_template_id, if it named one. */
  dltTemplateId: string | undefined;
  /** The header the send goes from, and the entity it names (any case), preferred among matches. */
  header?: string | undefined;
  entityId?: string | undefined;
  /** DLT_TEMPLATES_ALL_ROUTES: promotional text (P, PS) must match a template too. */
  allRoutes?: boolean | undefined;
}

/** Whether the text must match an approved template: transactional text, any text naming one, and promotional text under DLT_TEMPLATES_ALL_ROUTES. */
function templateRequired(send: TemplateCheck): string | undefined {
  if (send.route === "transactional") return "Transactional content";
  if (send.dltTemplateId) return `Content sent with dlt_template_id ${send.dltTemplateId}`;
  if (send.allRoutes && (send.route === "promotional" || send.route === "promotional_sender")) {
    return "Promotional content (the operator's DLT_TEMPLATES_ALL_ROUTES)";
  }
  return undefined;
}

/**
 * The approved template the text matches (`templates`: the account's, given when it scrubs), or
 * undefined; refuses text that matches none where one is required (templateRequired): a
 * dlt_template_id given is checked on every route, never passed on unchecked.
 */
export function checkDltTemplate(
  templates: TemplateIndex<MatchedTemplate> | undefined,
  rules: Pick<AccountRules, "dltMatching">,
  send: TemplateCheck,
): TemplateMatch<MatchedTemplate> | undefined {
  if (!templates) return undefined;
  const { username, text, dltTemplateId } = send;
  const entity = send.entityId?.trim().toUpperCase() || undefined;
  const header = send.header?.toUpperCase();
  const matched = templates.matchWithLayout(
    text,
    (t) =>
      (!dltTemplateId || t.dltTemplateId === dltTemplateId) &&
      (!entity || !t.entityId || t.entityId === entity) &&
      (!header || !t.sender || t.sender === header),
  );
  const required = templateRequired(send);
  if (!required) return matched;
  const template = matched?.value;
  const fix = askOperatorSentence(registrationFixes.template(username));
  const named = dltTemplateId ? (t: MatchedTemplate) => t.dltTemplateId === dltTemplateId : undefined;
  if (!template) {
    if (named && !templates.some(named)) {
      throw aboutInput(
        new GatewayError(
          "dlt_template_mismatch",
          `The dlt_template_id ${dltTemplateId} is not an approved template of the account ${username}. ${fix}`,
          { dlt_template_id: dltTemplateId },
        ),
        "dltTemplateId",
      );
    }
    const mismatch = templates.explain(text, named);
    const rule =
      rules.dltMatching === "strict"
        ? "{#var#} stands for up to 30 characters; the rest, spaces and line breaks too, as registered"
        : "{#var#} stands for up to 30 characters";
    if (!mismatch) {
      throw new GatewayError("dlt_template_mismatch", `${required} must match an approved template (${rule}). ${fix}`);
    }
    // Nothing in common with any of several templates: naming one would send the client after an
    // unrelated template (the first of those tied at the first character).
    if (!named && mismatch.matched === 0 && mismatch.position === 0 && templates.size > 1) {
      throw new GatewayError(
        "dlt_template_mismatch",
        `${required} must match an approved template (${rule}): the text matches none of the account's ${templates.size} approved templates, not even at its first character. ${fix}`,
        { position: 0 },
      );
    }
    const closest = mismatch.value.dltTemplateId ? `template ${mismatch.value.dltTemplateId}` : "the closest template";
    const expected = mismatch.expected === "" ? "the end of the text" : JSON.stringify(mismatch.expected);
    throw new GatewayError(
      "dlt_template_mismatch",
      `${required} must match an approved template (${rule}): the text stops matching ${closest} at character ${mismatch.position}, where it expects ${expected}. ${fix}`,
      {
        position: mismatch.position,
        expected: mismatch.expected,
        ...(mismatch.value.dltTemplateId ? { dlt_template_id: mismatch.value.dltTemplateId } : {}),
      },
    );
  }
  // A template registered without its DLT id carries the one given, as it always has.
  if (dltTemplateId && template.dltTemplateId && dltTemplateId !== template.dltTemplateId) {
    throw aboutInput(
      new GatewayError(
        "dlt_template_mismatch",
        `The message matches template ${template.dltTemplateId}, not the dlt_template_id ${dltTemplateId} given.`,
      ),
      "dltTemplateId",
    );
  }
  return matched;
}

/**
 * The send's entity and header against the templates its texts matched (DLT scrubbing, Indian
 * routes, after both are white-listed): a template registered for another entity or header is
 * refused (dlt_template_mismatch, legacy -8), as operators drop the triple. A template with no
 * entity or no header fits any; the generic promotional header is the operator's, not checked.
 */
export function checkTemplatePairs(
  templates: Iterable<MatchedTemplate | undefined>,
  send: { entityId: string; header: string; anyHeader: boolean },
): void {
  const header = send.header.toUpperCase();
  for (const template of templates) {
    if (!template) continue;
    const name = template.dltTemplateId ? `template ${template.dltTemplateId}` : `template ${template.id}`;
    const ids = template.dltTemplateId ? { dlt_template_id: template.dltTemplateId } : {};
    if (template.entityId && template.entityId !== send.entityId) {
      throw new GatewayError(
        "dlt_template_mismatch",
        `The message matches ${name}, registered for DLT entity ${template.entityId}, not ${send.entityId} this send carries; operators drop a template sent under another entity. Send it with dlt_entity_id ${template.entityId} or none, or register the text as a template of entity ${send.entityId} for the operator to approve.`,
        { ...ids, template_entity_id: template.entityId, entity_id: send.entityId },
      );
    }
    if (template.sender && !send.anyHeader && template.sender !== header) {
      throw new GatewayError(
        "dlt_template_mismatch",
        `The message matches ${name}, registered for the header ${template.sender}, not ${header} it is sent from; operators drop a template sent from another header. Send it from ${template.sender}, or ask the operator to register the text as a template of header ${header}.`,
        { ...ids, template_header: template.sender, header },
      );
    }
  }
}
