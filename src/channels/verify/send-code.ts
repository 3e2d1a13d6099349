// Sends a code by one channel through that channel's own rules and send path, as any send of the
// channel goes (charged; transactional lane): SmsPolicy for SMS, VoicePolicy for a call, the email
// family's order for email (all three through the Acceptor and the dispatcher), and WhatsApp's
// synchronous template send. The message row holds the text with the code masked; the dispatcher
// puts the code back in the text it hands the carrier (reveal.ts), and WhatsApp's send keeps it
// only in the payload that goes upstream.
import { GatewayError } from "../../base/core/errors.js";
import { internationalDigits } from "../../base/core/indian-mobile.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { approvedTemplates, type PriceBook } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";
import type { AcceptService, SendOrder } from "../../domain/messages/index.js";
import { emailOrder, isApprovedSender } from "../email/index.js";
import type { SmsPolicy } from "../sms/index.js";
import type { VoicePolicy } from "../voice/index.js";
import type { WhatsApp } from "../whatsapp/index.js";
import { type CodeForm, type CodeText, textWithCode } from "./codes.js";
import type { VerifyChannel, VerifySettings } from "./settings.js";

export const DEFAULT_SMS_TEXT = "{#var#} is your verification code. Do not share it with anyone.";
/** The call says the code once, digit by digit; a text holds one code, so its mask has one place. */
export const VOICE_TEXT = "Your verification code is {#var#}.";
export const EMAIL_SUBJECT = "Your verification code";

export type CodeSendDeps = Pick<Runtime, "store" | "clock" | "config"> & {
  smsPolicy: SmsPolicy;
  voicePolicy: VoicePolicy;
  acceptor: AcceptService;
  whatsapp: Pick<WhatsApp["sends"], "sendSecret" | "ready">;
  prices: Pick<PriceBook, "cardFor">;
};

/** What the message's meta says of the code it carries (reveal.ts reads it). */
export interface CodeMeta {
  verification_id: string;
  code_offset: number;
  code_form: CodeForm;
}

/** An email address (codes by email) or a phone number (the other channels). */
export function isEmailAddress(recipient: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(recipient);
}

/** Why the account cannot send a code to `recipient` by `channel`, or undefined when it can. */
export async function cannotSendBy(
  deps: Pick<CodeSendDeps, "store" | "whatsapp">,
  accountId: number,
  channel: VerifyChannel,
  settings: VerifySettings,
  recipient: string,
): Promise<string | undefined> {
  if ((channel === "email") !== isEmailAddress(recipient)) {
    return channel === "email" ? `${recipient} is not an email address` : `${recipient} is not a phone number`;
  }
  if (channel === "sms")
    return settings.senderId === null ? "the account's verify settings name no verify_sender_id" : undefined;
  if (channel === "voice")
    return settings.callerId === null ? "the account's verify settings name no verify_caller_id" : undefined;
  if (channel === "whatsapp") {
    if (settings.whatsappTemplate === null) return "the account's verify settings name no verify_whatsapp_template";
    return (await deps.whatsapp.ready(accountId)) ? undefined : "WhatsApp is not enabled and connected for the account";
  }
  if (settings.emailFrom === null) return "the account's verify settings name no verify_email_from";
  return (await isApprovedSender(deps.store.db, accountId, settings.emailFrom))
    ? undefined
    : `${settings.emailFrom} is not on an approved sending domain of the account`;
}

/**
 * The channels of the account's escalation order it can send a code to `recipient` by, in order;
 * an email address, which only email reaches, is reached by email when the order omits it.
 */
export async function usableChannels(
  deps: Pick<CodeSendDeps, "store" | "whatsapp">,
  accountId: number,
  settings: VerifySettings,
  recipient: string,
): Promise<VerifyChannel[]> {
  const order =
    isEmailAddress(recipient) && !settings.channels.includes("email")
      ? [...settings.channels, "email" as const]
      : settings.channels;
  const usable: VerifyChannel[] = [];
  for (const channel of order) {
    if (!(await cannotSendBy(deps, accountId, channel, settings, recipient))) usable.push(channel);
  }
  return usable;
}

export function unavailable(channel: VerifyChannel, why: string): GatewayError {
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

interface CodeSend {
  verificationId: string;
  recipient: string;
  code: string;
  channel: VerifyChannel;
  locale?: string | null | undefined;
}

/** The channel's own order for a code, and the text it carries (clear for the policy, masked to store). */
async function orderFor(
  deps: CodeSendDeps,
  principal: Principal,
  settings: VerifySettings,
  send: CodeSend,
): Promise<{ order: SendOrder; text: CodeText; form: CodeForm }> {
  if (send.channel === "sms") {
    const text = textWithCode(await smsTemplate(deps, principal.accountId, settings), send.code, "plain");
    const decision = await deps.smsPolicy.decide(principal, {
      senderId: settings.senderId ?? undefined,
      recipients: [send.recipient],
      message: text.clear,
      route: "T",
      dltTemplateId: settings.templateId ?? undefined,
    });
    return { order: decision.order, text, form: "plain" };
  }
  if (send.channel === "voice") {
    const text = textWithCode(VOICE_TEXT, send.code, "spaced");
    const order = await deps.voicePolicy.decide(principal, {
      from: settings.callerId ?? undefined,
      to: send.recipient,
      text: text.clear,
    });
    return { order, text, form: "spaced" };
  }
  // Email: the content is stored masked; the connector fills it from the row the dispatcher revealed.
  const text = textWithCode(DEFAULT_SMS_TEXT, send.code, "plain");
  const order = await emailOrder(
    { ...deps, allowPrivateWebhooks: deps.config.allowPrivateWebhooks },
    principal,
    {
      from: settings.emailFrom ?? "",
      to: send.recipient,
      subject: EMAIL_SUBJECT,
      html: `<p>${text.masked}</p>`,
      text: text.masked,
      // A code is transactional: no List-Unsubscribe, and it reaches an address that unsubscribed from list mail.
      unsubscribe: "0",
    },
    [],
  );
  return { order, text, form: "plain" };
}

/**
 * Sends `code` to `recipient` by `channel`: the channel's refusal as its own GatewayError
 * (nothing charged); otherwise the accepted message's id.
 */
export async function sendCode(
  deps: CodeSendDeps,
  principal: Principal,
  settings: VerifySettings,
  send: CodeSend,
): Promise<{ messageId: string }> {
  try {
    return await sendBy(deps, principal, settings, send);
  } catch (error) {
    throw namingRecipient(error, send.recipient);
  }
}

/**
 * A refused number named as the Verify body names it, `recipient`: the SMS rules name no field,
 * WhatsApp's send names its own `to` (and says so in its words).
 */
function namingRecipient(error: unknown, recipient: string): unknown {
  if (!(error instanceof GatewayError) || error.code !== "invalid_recipient") return error;
  const message =
    error.details?.field === "to"
      ? `"recipient" must be a WhatsApp number in digits with its country code, e.g. 919876543210 (got "${recipient.slice(0, 32)}").`
      : error.message;
  return new GatewayError(error.code, message, { ...error.details, field: "recipient" });
}

async function sendBy(
  deps: CodeSendDeps,
  principal: Principal,
  settings: VerifySettings,
  send: CodeSend,
): Promise<{ messageId: string }> {
  const why = await cannotSendBy(deps, principal.accountId, send.channel, settings, send.recipient);
  if (why) throw unavailable(send.channel, why);
  if (send.channel === "whatsapp") {
    const sent = await deps.whatsapp.sendSecret(
      principal.accountId,
      {
        to: internationalDigits(send.recipient, "transactional"),
        template: settings.whatsappTemplate ?? "",
        params: [send.code],
        ...(send.locale ? { language: send.locale } : {}),
      },
      send.code,
    );
    return { messageId: sent.queueId };
  }
  const { order, text, form } = await orderFor(deps, principal, settings, send);
  const meta: CodeMeta = { verification_id: send.verificationId, code_offset: text.offset, code_form: form };
  const drafts = order.drafts.map((draft) => ({ ...draft, body: text.masked, meta: { ...draft.meta, ...meta } }));
  const outcome = await deps.acceptor.accept({ ...order, drafts });
  if (outcome.kind !== "accepted") throw new GatewayError("internal_error", "The code's send was not accepted.");
  return { messageId: outcome.send.messages[0]!.id };
}
