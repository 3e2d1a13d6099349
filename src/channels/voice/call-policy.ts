// The rules of a voice call, in a fixed order so the same bad request always gets the same
// answer: what is missing first (from, to, text), then whether the caller number is approved,
// the callee callable and the text speakable, and last (in the Acceptor) the voice wallet.

import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { VoiceConfig } from "../../base/runtime/config.js";
import type { Store } from "../../base/store/store.js";
import { internationalEnabled, PriceBook } from "../../domain/accounts/index.js";
import { inactiveAccount, type Principal } from "../../domain/auth/index.js";
import type { SendOrder } from "../../domain/messages/index.js";
import { callUnits, MAX_TEXT_CHARS, speechSeconds, textLength } from "./billing.js";
import type { CallMeta } from "./call-meta.js";
import { isApprovedCaller } from "./caller-ids.js";
import { parseCallNumber } from "./numbers.js";
import { MAX_TWIML_CHARS, sayDocument } from "./twiml.js";

export interface VoiceCallInput {
  from?: string | undefined;
  to?: string | undefined;
  text?: string | undefined;
}

/** Route and lane of every call: voice calls are transactional (OTPs, alerts). */
export const VOICE_ROUTE = "voice";
const VOICE_LANE = 0;

/** Characters no speech engine reads and XML cannot carry: C0/C1 controls other than tab and line breaks. */
function hasUnspeakable(text: string): boolean {
  for (const char of text) {
    const c = char.codePointAt(0)!;
    if (
      (c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) ||
      (c >= 0x7f && c <= 0x9f) ||
      c === 0xfffe ||
      c === 0xffff
    ) {
      return true;
    }
  }
  return false;
}

export class VoicePolicy {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly config: VoiceConfig,
    /** The account's price card prices each call unit (channel voice, route V). */
    private readonly prices: PriceBook = new PriceBook(store),
  ) {}

  async decide(principal: Principal, input: VoiceCallInput): Promise<SendOrder> {
    if (principal.status !== "active") throw inactiveAccount(principal, "place calls");
    const from = input.from?.trim();
    if (!from) throw new GatewayError("missing_sender_id", "Missing sender (from): give an approved caller number.");
    const to = input.to?.trim();
    if (!to) throw new GatewayError("invalid_recipient", "Missing number (to).");
    const text = input.text ?? "";
    if (text.trim() === "") throw new GatewayError("missing_message", "Missing message text (text).");

    const caller = parseCallNumber(from);
    if (!caller || !(await isApprovedCaller(this.store.db, principal.accountId, caller.e164))) {
      throw new GatewayError(
        "invalid_sender_id",
        `"${from.slice(0, 40)}" is not an approved caller number of this account.`,
      );
    }
    const callee = parseCallNumber(to);
    if (!callee) {
      throw new GatewayError(
        "invalid_recipient",
        `"${to.slice(0, 40)}" is not a phone number: give one Indian number, or one number with its country code (+…).`,
      );
    }
    if (callee.premium) throw new GatewayError("invalid_recipient", `${callee.e164} is a premium-rate number.`);
    if (callee.country !== "IN" && !(await internationalEnabled(this.store.db, principal.accountId))) {
      throw new GatewayError("international_disabled", "International calls are not enabled for this account.");
    }
    this.checkText(text);

    const seconds = speechSeconds(text);
    const units = callUnits(seconds, this.config.secondsPerUnit);
    const meta: CallMeta = { units, speech_seconds: seconds };
    const now = this.clock.now().getTime();
    const card = await this.prices.cardFor(principal.accountId);
    const digits = callee.e164.replace(/^\+/, "");
    const unitPrice = card.price("voice", "V", digits, now).price;
    const chained = card.upline.length > 0;
    return {
      accountId: principal.accountId,
      timeZone: principal.timeZone,
      channel: "voice",
      wallet: "voice",
      ...(chained ? { upline: card.upline } : {}),
      drafts: [
        {
          recipient: callee.recipient,
          sender: caller.e164,
          body: text.trim(),
          encoding: null,
          // The billed parts, as for SMS: here the call units.
          segments: units,
          flash: false,
          route: VOICE_ROUTE,
          lane: VOICE_LANE,
          credits: units * unitPrice,
          ...(chained ? { upline: card.uplinePrices("voice", "V", digits, now).map((price) => units * price) } : {}),
          dueAt: now,
          meta: { ...meta },
        },
      ],
    };
  }

  private checkText(text: string): void {
    if (hasUnspeakable(text) || !text.isWellFormed()) {
      throw new GatewayError("content_not_allowed", "The text contains control characters, which cannot be spoken.");
    }
    const length = textLength(text);
    if (length > MAX_TEXT_CHARS) {
      throw new GatewayError(
        "message_too_long",
        `The text has ${length} characters; a call speaks at most ${MAX_TEXT_CHARS}.`,
      );
    }
    const document = sayDocument(text, { language: this.config.sayLanguage, voice: this.config.sayVoice });
    if (document.length > MAX_TWIML_CHARS) {
      throw new GatewayError(
        "message_too_long",
        `The text is too long once &, < and > are escaped for the provider (${document.length} of ${MAX_TWIML_CHARS} characters).`,
      );
    }
  }
}
