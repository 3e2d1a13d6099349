// Sends a code by one channel through that channel's own rules and the Acceptor, as any send of
// the channel goes (charged, transactional lane): SmsPolicy for SMS, VoicePolicy for a call. The
// message row holds the text with the code masked; the dispatcher puts the code back in the text
// it hands the carrier (reveal.ts).
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { approvedTemplates } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";
import type { AcceptService, SendOrder } from "../../domain/messages/index.js";
import type { SmsPolicy } from "../sms/index.js";
import type { VoicePolicy } from "../voice/index.js";
import { type CodeForm, textWithCode } from "./codes.js";
import type { VerifyChannel, VerifySettings } from "./settings.js";

export const DEFAULT_SMS_TEXT = "{#var#} is your verification code. Do not share it with anyone.";
/** The call says the code once, digit by digit; a text holds one code, so its mask has one place. */
export const VOICE_TEXT = "Your verification code is {#var#}.";

export interface CodeSendDeps {
  store: Pick<Store, "db">;
  smsPolicy: SmsPolicy;
  voicePolicy: VoicePolicy;
  acceptor: AcceptService;
}

/** What the message's meta says of the code it carries (reveal.ts reads it). */
export interface CodeMeta {
  verification_id: string;
  code_offset: number;
  code_form: CodeForm;
}

/** Whether the account's settings let it send codes by `channel` (WhatsApp and email codes are not built yet). */
export function canSendBy(channel: VerifyChannel, settings: VerifySettings): boolean {
  if (channel === "sms") return settings.senderId !== null;
  if (channel === "voice") return settings.callerId !== null;
  return false;
}

export function unavailable(channel: VerifyChannel): GatewayError {
  const why =
    channel === "sms"
      ? "the account's verify settings name no verify_sender_id"
      : channel === "voice"
        ? "the account's verify settings name no verify_caller_id"
        : `codes by ${channel} are not sent by this gateway yet`;
  return new GatewayError(
    "verify_channel_unavailable",
    `Verification codes cannot go by ${channel}: ${why}. Ask the operator to set the account's verify settings (PUT /admin/api/accounts/{username}/verify).`,
    { channel },
  );
}

/** The account's SMS text for codes: its verify template's content, or the default. */
async function smsTemplate(deps: CodeSendDeps, accountId: number, settings: VerifySettings): Promise<string> {
  if (settings.templateId === null) return DEFAULT_SMS_TEXT;
  const template = (await approvedTemplates(deps.store.db, accountId)).find(
    (t) => t.dlt_template_id === settings.templateId,
  );
  if (template?.content.split("{#var#}").length !== 2) {
    throw new GatewayError(
      "verify_channel_unavailable",
      `The verify template ${settings.templateId} is not an approved template of the account with exactly one {#var#}.`,
      { channel: "sms" },
    );
  }
  return template.content;
}

/**
 * Sends `code` to `recipient` by `channel`: the channel's refusal as its own GatewayError
 * (nothing charged); otherwise the accepted message's id.
 */
export async function sendCode(
  deps: CodeSendDeps,
  principal: Principal,
  settings: VerifySettings,
  send: { verificationId: string; recipient: string; code: string; channel: VerifyChannel },
): Promise<{ messageId: string; recipient: string }> {
  if (!canSendBy(send.channel, settings)) throw unavailable(send.channel);
  let order: SendOrder;
  let text: ReturnType<typeof textWithCode>;
  let form: CodeForm;
  if (send.channel === "sms") {
    form = "plain";
    text = textWithCode(await smsTemplate(deps, principal.accountId, settings), send.code, form);
    const decision = await deps.smsPolicy.decide(principal, {
      senderId: settings.senderId ?? undefined,
      recipients: [send.recipient],
      message: text.clear,
      route: "T",
      dltTemplateId: settings.templateId ?? undefined,
    });
    order = decision.order;
  } else {
    form = "spaced";
    text = textWithCode(VOICE_TEXT, send.code, form);
    order = await deps.voicePolicy.decide(principal, {
      from: settings.callerId ?? undefined,
      to: send.recipient,
      text: text.clear,
    });
  }
  const meta: CodeMeta = { verification_id: send.verificationId, code_offset: text.offset, code_form: form };
  const drafts = order.drafts.map((draft) => ({ ...draft, body: text.masked, meta: { ...draft.meta, ...meta } }));
  const outcome = await deps.acceptor.accept({ ...order, drafts });
  if (outcome.kind !== "accepted") throw new GatewayError("internal_error", "The code's send was not accepted.");
  const message = outcome.send.messages[0]!;
  return { messageId: message.id, recipient: message.recipient };
}
