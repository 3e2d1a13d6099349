// Recipient numbers of an SMS send: Indian mobiles (from core/) and international numbers for route I,
// the refusals of a number that is missing or not one, and of one given twice.
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";

export { normalizeIndianMobile } from "../../base/core/indian-mobile.js";

/**
 * Recipients one request may name: the v2 bulk call's `recipients` (a larger campaign is sent in
 * several calls into one job) and the legacy send's numbers, alike (the v2 send takes one).
 */
export const MAX_RECIPIENTS_PER_REQUEST = 100_000;

/**
 * An international number for route I: digits with the country code (a leading + or 00 is
 * fine), valid for its country by libphonenumber's full metadata, and not Indian (Indian
 * numbers go on the domestic routes). Answered in E.164 without the +.
 */
export function normalizeInternational(raw: string): string | undefined {
  const parsed = parseE164(raw);
  return parsed === undefined || parsed.country === "IN" ? undefined : parsed.digits;
}

/** A number that is not one: 422 on v2, as WhatsApp's invalid_recipient is; -5 on the legacy families. */
export function invalidRecipient(raw: string, route: TrafficClass): GatewayError {
  return new GatewayError(
    "invalid_recipient",
    route === "international"
      ? `"${raw}" is not a valid international number with its country code (Indian numbers use routes T, P, PS).`
      : `"${raw}" is not a 10-digit Indian mobile number.`,
  );
}

/**
 * No number at all (left out, or blank): a missing required field, so 400 on v2 as a missing
 * sender ID or message is (the same code and -5 elsewhere).
 */
export function noRecipient(field: "recipient" | "recipients" = "recipient"): GatewayError {
  return new GatewayError("invalid_recipient", "No recipient given.", { http: 400, field });
}

/**
 * A number given twice in one send is sent once (v2 bulk, the legacy comma list, the XML API):
 * each later message with the number and text of an earlier one is left out, refused
 * `duplicate_recipient`, never charged. Numbers compare as the policy normalised them, so
 * `+91 98765 43210` repeats `9876543210`; the XML API's same number with another text is another message.
 */
export function withoutRepeats<D extends { recipient: string; body: string }>(
  drafts: readonly D[],
): { kept: D[]; repeats: { recipient: string; error: GatewayError }[] } {
  const seen = new Set<string>();
  const kept: D[] = [];
  const repeats: { recipient: string; error: GatewayError }[] = [];
  for (const draft of drafts) {
    // A normalised number holds no line break, so the pair is told apart unambiguously.
    const key = `${draft.recipient}\n${draft.body}`;
    if (!seen.has(key)) {
      seen.add(key);
      kept.push(draft);
      continue;
    }
    repeats.push({
      recipient: draft.recipient,
      error: new GatewayError("duplicate_recipient", `${draft.recipient} is already in this request.`),
    });
  }
  return { kept, repeats };
}

/** Leaves the listed recipients out, each refused with `why`'s error; the send fails only when none is left. */
export function leaveOut<I extends { recipient: string }>(
  items: I[],
  listed: ReadonlySet<string>,
  rejected: { recipient: string; error: GatewayError }[],
  why: (recipient: string) => GatewayError,
): I[] {
  if (listed.size === 0) return items;
  const kept = items.filter((item) => {
    if (!listed.has(item.recipient)) return true;
    rejected.push({ recipient: item.recipient, error: why(item.recipient) });
    return false;
  });
  if (kept.length === 0) throw rejected[rejected.length - 1]!.error;
  return kept;
}

/**
 * A refusal of one text of a document of several messages (XML), naming the first message that
 * holds it and was not left out: its position (1-based) and number, in the message and in
 * GatewayError.item, the only number the log of refusals keeps. Any other error as it is.
 */
export function namingItem(
  error: unknown,
  items: { recipient: string; message: string }[] | undefined,
  text: string,
  leftOut: { recipient: string }[],
): unknown {
  if (!(error instanceof GatewayError) || !items || items.length < 2) return error;
  const out = new Set(leftOut.map((r) => r.recipient));
  const index = items.findIndex((item) => item.message === text && !out.has(item.recipient));
  const item = items[index];
  if (!item) return error;
  const named = new GatewayError(
    error.code,
    `Message ${index + 1} (pno ${item.recipient}): ${error.message}`,
    error.details,
  );
  named.item = { position: index + 1, recipient: item.recipient };
  if (error.upline) named.upline = error.upline;
  return named;
}
