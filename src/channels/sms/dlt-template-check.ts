// The SMS rule on DLT content (docs/api.md rule 12): with scrubbing on, every Indian-route
// message records the approved template it matches, and transactional text must match one —
// whitespace as registered when the account's matching is strict (issue 40, item 3). A refusal
// says where the text stopped matching the closest template (the one the send named, if any):
// `error.position` and `error.expected` on v2, the same words in the legacy families' message.
import { GatewayError } from "../../base/core/errors.js";
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
}

/**
 * The approved template the text matches (`templates`: the account's, given when it scrubs), or
 * undefined; refuses transactional text that matches none.
 */
export function checkDltTemplate(
  templates: TemplateIndex<MatchedTemplate> | undefined,
  rules: Pick<AccountRules, "dltMatching">,
  send: TemplateCheck,
): TemplateMatch<MatchedTemplate> | undefined {
  if (!templates) return undefined;
  const { username, text, dltTemplateId } = send;
  const matched = templates.matchWithLayout(text);
  if (send.route !== "transactional") return matched;
  const template = matched?.value;
  if (!template) {
    const fix = askOperatorSentence(registrationFixes.template(username));
    const mismatch = templates.explain(text, dltTemplateId ? (t) => t.dltTemplateId === dltTemplateId : undefined);
    const rule =
      rules.dltMatching === "strict"
        ? "{#var#} stands for up to 30 characters; the rest, spaces and line breaks too, as registered"
        : "{#var#} stands for up to 30 characters";
    if (!mismatch) {
      throw new GatewayError(
        "dlt_template_mismatch",
        `Transactional content must match an approved template (${rule}). ${fix}`,
      );
    }
    const closest = mismatch.value.dltTemplateId ? `template ${mismatch.value.dltTemplateId}` : "the closest template";
    const expected = mismatch.expected === "" ? "the end of the text" : JSON.stringify(mismatch.expected);
    throw new GatewayError(
      "dlt_template_mismatch",
      `Transactional content must match an approved template (${rule}): the text stops matching ${closest} at character ${mismatch.position}, where it expects ${expected}. ${fix}`,
      {
        position: mismatch.position,
        expected: mismatch.expected,
        ...(mismatch.value.dltTemplateId ? { dlt_template_id: mismatch.value.dltTemplateId } : {}),
      },
    );
  }
  if (dltTemplateId && template.dltTemplateId && dltTemplateId !== template.dltTemplateId) {
    throw new GatewayError(
      "dlt_template_mismatch",
      `The message matches template ${template.dltTemplateId}, not the dlt_template_id ${dltTemplateId} given.`,
    );
  }
  return matched;
}
