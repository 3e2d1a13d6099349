// The SMS rules, in one place for every family: a family adapter parses its own request into
// an SmsSendInput, and this decides what is sent, how, at what price, or why not.
import type { Principal } from "../auth/authenticator.js";
import type { Clock } from "../core/clock.js";
import { GatewayError } from "../core/errors.js";
import { parseLocalDateTime } from "../core/time.js";
import type { MessageDraft, SendOrder } from "../messages/index.js";
import type { Db } from "../store/store.js";
import { normalizeIndianMobile } from "./recipients.js";
import { laneOf, parseRoute, pricePerSegment } from "./routes.js";
import { segmentInfo } from "./segments.js";
import { SenderApprovals } from "./sender-approvals.js";

/** Longest accepted text, in segments (GSM-7: 1,530 characters; UCS-2: 670). */
export const MAX_SEGMENTS = 10;

/** U+0000 is in no real SMS field, and PostgreSQL text cannot store it. */
const NUL = "\u0000";

export interface SmsSendInput {
  senderId?: string | undefined;
  recipients: string[];
  message?: string | undefined;
  route?: string | undefined;
  unicode?: boolean | undefined;
  flash?: boolean | undefined;
  dltEntityId?: string | undefined;
  dltTemplateId?: string | undefined;
  /** `YYYY-MM-DD HH:MM:SS` in the account's time zone. */
  scheduleAt?: string | undefined;
  /** Refuse a schedule more than a minute in the past (the dedicated schedule endpoint). */
  requireFutureSchedule?: boolean;
}

export interface SmsDecision {
  order: SendOrder;
  /** Recipients left out, with the reason (a bulk send goes on without them). */
  rejected: { recipient: string; error: GatewayError }[];
}

export class SmsPolicy {
  private readonly senders: SenderApprovals;

  constructor(
    db: Db,
    private readonly clock: Clock,
  ) {
    this.senders = new SenderApprovals(db);
  }

  async decide(principal: Principal, input: SmsSendInput): Promise<SmsDecision> {
    if (principal.status !== "active")
      throw new GatewayError("account_inactive", `The account is ${principal.status}.`);
    const sender = input.senderId?.trim();
    if (!sender) throw new GatewayError("missing_sender_id");
    if (sender.includes(NUL)) throw new GatewayError("invalid_sender_id", "A sender ID cannot contain U+0000.");
    const text = input.message ?? "";
    if (text.trim() === "") throw new GatewayError("missing_message");
    if (text.includes(NUL)) throw new GatewayError("content_not_allowed", "The message cannot contain U+0000.");
    for (const [name, value] of [
      ["DLT entity ID", input.dltEntityId],
      ["DLT template ID", input.dltTemplateId],
    ] as const) {
      if (value?.includes(NUL)) throw new GatewayError("invalid_request", `The ${name} cannot contain U+0000.`);
    }
    const route = parseRoute(input.route);

    const rejected: SmsDecision["rejected"] = [];
    const recipients: string[] = [];
    for (const raw of input.recipients) {
      const mobile = normalizeIndianMobile(raw);
      if (mobile) recipients.push(mobile);
      else
        rejected.push({
          recipient: raw,
          error: new GatewayError("invalid_recipient", `"${raw}" is not a 10-digit Indian mobile number.`),
        });
    }
    if (recipients.length === 0) {
      throw rejected[0]?.error ?? new GatewayError("invalid_recipient", "No recipient given.");
    }

    const approval = await this.senders.status(principal.accountId, sender);
    if (approval === undefined) {
      throw new GatewayError("invalid_sender_id", `Sender ID "${sender}" is not registered for this account.`);
    }
    if (approval !== "approved") {
      throw new GatewayError("route_not_approved", `Sender ID "${sender}" is ${approval}, not approved.`);
    }

    const info = segmentInfo(text, input.unicode === true);
    if (info.encoding === "ucs2" && input.unicode !== true) {
      throw new GatewayError(
        "unicode_not_allowed",
        `The message has characters outside GSM-7 (${info.nonGsm.slice(0, 5).join(" ")}); send it as Unicode.`,
      );
    }
    if (info.segments > MAX_SEGMENTS) {
      throw new GatewayError(
        "message_too_long",
        `The message needs ${info.segments} parts; at most ${MAX_SEGMENTS} are accepted.`,
      );
    }

    const now = this.clock.now().getTime();
    let dueAt = now;
    if (input.scheduleAt !== undefined && input.scheduleAt.trim() !== "") {
      const at = parseLocalDateTime(input.scheduleAt, principal.timeZone);
      if (!at) {
        throw new GatewayError(
          "invalid_schedule",
          `Schedule "${input.scheduleAt}" is not a date-time in the form YYYY-MM-DD HH:MM:SS (${principal.timeZone}).`,
        );
      }
      if (input.requireFutureSchedule && at.getTime() < now - 60_000) {
        throw new GatewayError("invalid_schedule", "The schedule time is in the past.");
      }
      dueAt = Math.max(now, at.getTime());
    }

    const credits = info.segments * pricePerSegment(route);
    const drafts: MessageDraft[] = recipients.map((recipient) => ({
      recipient,
      sender: sender.toUpperCase(),
      body: text,
      encoding: info.encoding,
      segments: info.segments,
      flash: input.flash === true,
      route,
      lane: laneOf(route),
      credits,
      dueAt,
      dltEntityId: input.dltEntityId ?? null,
      dltTemplateId: input.dltTemplateId ?? null,
    }));
    return {
      order: {
        accountId: principal.accountId,
        timeZone: principal.timeZone,
        channel: "sms",
        wallet: route === "international" ? "international" : "sms",
        drafts,
        status: dueAt > now + 1000 ? "scheduled" : "queued",
      },
      rejected,
    };
  }
}
