// The SMS rule on DLT content (docs/api.md rule 12): with scrubbing on, every Indian-route
// message records the approved template it matches, and transactional text must match one —
// whitespace as registered when the account's matching is strict (issue 40, item 3). A refusal
// says where the text stopped matching the closest template (the one the send named, if any):
// `error.position` and `error.expected` on v2, the same words in the legacy families' message.
import { GatewayError } from "../../base/core/errors.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";
import type { AccountRules, AccountRulesCache, MatchedTemplate } from "./account-rules.js";

export interface TemplateCheck {
  accountId: number;
  username: string;
  text: string;
  route: TrafficClass;
  /** The send's dlt_template_id, if it named one. */
  dltTemplateId: string | undefined;
}

/** The approved template the text matches (scrubbing on), or undefined; refuses transactional text that matches none. */
export async function checkDltTemplate(
  accounts: AccountRulesCache,
  rules: AccountRules,
  send: TemplateCheck,
): Promise<MatchedTemplate | undefined> {
  if (!rules.dltScrubbing) return undefined;
  const { accountId, username, text, dltTemplateId } = send;
  const template = await accounts.matchTemplate(accountId, rules.dltMatching, text);
  if (send.route !== "transactional") return template;
  if (!template) {
    const fix = askOperatorSentence(registrationFixes.template(username));
    const mismatch = await accounts.explainMismatch(accountId, rules.dltMatching, text, dltTemplateId);
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
  return template;
}
