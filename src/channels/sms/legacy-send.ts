// The legacy send's parameters, translated into the shared SmsSendInput: the adapter decides
// nothing itself. `message` must be GSM-7 unless `type=2` (then it is UTF-16BE hex); `text`
// (hybrid mode) takes URL-encoded Unicode as it is. Route V's parameters become a voice call's.
import { GatewayError } from "../../base/core/errors.js";
import type { SmsSendInput } from "./policy.js";
import { MAX_RECIPIENTS_PER_REQUEST } from "./recipients.js";
import { decodeUtf16BeHex } from "./ucs2-hex.js";

export function legacySendInput(params: Record<string, string>): SmsSendInput {
  const base = common(params);
  const message = params.message;
  if (message !== undefined && message !== "") {
    // `type= 2` or `type=2+` (a template's stray space) is type 2: the hex is never sent as the text.
    if (params.type?.trim() !== "2") return { ...base, message };
    const decoded = decodeUtf16BeHex(message);
    if (decoded === undefined) {
      throw new GatewayError(
        "unicode_not_allowed",
        "With type=2 the message must be UTF-16BE hex (4 hex digits a character).",
      );
    }
    return { ...base, message: decoded, unicode: true };
  }
  if (params.text !== undefined && params.text !== "") return { ...base, message: params.text, unicodeIfNeeded: true };
  return { ...base, message };
}

/**
 * The numbers of `phonenumber` (or `mobile`), comma-separated, blanks left out. More than
 * MAX_RECIPIENTS_PER_REQUEST (counted as given, repeats too) refuse the whole request, -5.
 */
function legacyNumbers(params: Record<string, string>): string[] {
  const numbers = (params.phonenumber ?? params.mobile ?? "")
    .split(",")
    .map((n) => n.trim())
    .filter((n) => n !== "");
  if (numbers.length > MAX_RECIPIENTS_PER_REQUEST) {
    throw new GatewayError(
      "invalid_recipient",
      `At most ${MAX_RECIPIENTS_PER_REQUEST} numbers per request (phonenumber has ${numbers.length}); send the rest in another request.`,
      { field: "phonenumber" },
    );
  }
  return numbers;
}

/**
 * Route V: the text-to-speech call of `message` (or `text`) to the one number, from the sender
 * ID (then an approved caller number). A call is placed now: several numbers or a schedule are
 * refused.
 */
export function legacyCallInput(params: Record<string, string>): { from?: string; to?: string; text?: string } {
  const numbers = legacyNumbers(params);
  if (numbers.length > 1) {
    throw new GatewayError("invalid_recipient", "Route V calls one number at a time; send one phonenumber.");
  }
  if (params.schedule) throw new GatewayError("invalid_schedule", "Route V places the call now; it takes no schedule.");
  return { from: params.sender_id ?? params.senderid, to: numbers[0], text: params.message || params.text };
}

function common(params: Record<string, string>): Omit<SmsSendInput, "message"> {
  return {
    senderId: params.sender_id ?? params.senderid,
    recipients: legacyNumbers(params),
    route: params.route ?? "",
    requireRoute: true,
    scheduleAt: params.schedule,
    dltEntityId: params.dlt_entity_id ?? params.entityid,
    dltTemplateId: params.dlt_template_id ?? params.templateid,
    shortenUrls: shortUrlParam(params.shorturl) ?? "account",
    unicodeRemedy: "send it in the text parameter (URL-encoded Unicode), or in message as UTF-16BE hex with type=2",
  };
}

/** `shorturl=1` shortens the message's links, `0` does not; absent: the account's default. */
function shortUrlParam(value: string | undefined): boolean | undefined {
  const given = value?.trim();
  if (given === undefined || given === "") return undefined;
  if (given === "1") return true;
  if (given === "0") return false;
  throw new GatewayError("invalid_request", `shorturl must be 1 or 0, not "${given.slice(0, 20)}".`, {
    field: "shorturl",
  });
}
