// The SMS rules, in one place for every family: a family adapter parses its own request into
// an SmsSendInput, and this decides what is sent, how, at what price, or why not. The checks
// run in a fixed order, so the same bad request gets the same code on v2, legacy and XML.

import type { Clock } from "../../base/core/clock.js";
import { accountPromoWindow, type DailyWindow } from "../../base/core/daily-window.js";
import { GatewayError } from "../../base/core/errors.js";
import { internationalDigits } from "../../base/core/indian-mobile.js";
import { releaseAt } from "../../base/core/promo-hours.js";
import { segmentInfo } from "../../base/core/segments.js";
import { parseLocalDateTime } from "../../base/core/time.js";
import { laneOf, parseTrafficClass, type TrafficClass, trafficClassCode } from "../../base/core/traffic-class.js";
import type { Store } from "../../base/store/store.js";
import { GENERIC_PROMOTIONAL_SENDER as PROMOTIONAL_SENDER } from "../../delivery/carriers/promotional-header.js";
import { askOperatorSentence, dndListed, PriceBook, registrationFixes } from "../../domain/accounts/index.js";
import { inactiveAccount, type Principal } from "../../domain/auth/index.js";
import type { MessageDraft, SendOrder } from "../../domain/messages/index.js";
import { SuppressionList } from "../inbound/index.js";
import { type AccountRules, AccountRulesCache, type DltSnapshot } from "./account-rules.js";
import { carriedChainOf, checkTmChain, scrubOutcome } from "./dlt-chain-check.js";
import { chosenDltEntity, namedDltEntity, requireDltEntity } from "./dlt-entity.js";
import { checkDltLinks } from "./dlt-link-check.js";
import { checkDltTemplate, checkTemplatePairs } from "./dlt-template-check.js";
import {
  invalidRecipient,
  leaveOut,
  namingItem,
  noRecipient,
  normalizeIndianMobile,
  normalizeInternational,
} from "./recipients.js";
import { checkRouteEnabled, numericSender } from "./route-gate.js";
import { SenderApprovals } from "./sender-approvals.js";
import { type PlannedContent, type ShortLinkSettings, shortenContents } from "./short-link-plan.js";

/** Longest accepted text, in segments (GSM-7: 1,530 characters; UCS-2: 670). */
export const MAX_SEGMENTS = 10;

/** The longest sender ID any family takes (v2's schema says the same). */
export const SENDER_ID_MAX_LENGTH = 20;

/** U+0000 is in no real SMS field, and PostgreSQL text cannot store it. */
const NUL = "\u0000";

export interface SmsSendInput {
  senderId?: string | undefined;
  recipients: string[];
  message?: string | undefined;
  /** Per-recipient texts (the XML API); when given, `recipients` and `message` are ignored. */
  items?: { recipient: string; message: string }[] | undefined;
  route?: string | undefined;
  /** Legacy families must name a route; v2 defaults to transactional. */
  requireRoute?: boolean;
  /** The client declared Unicode (v2 `unicode`, legacy `type=2`): always UCS-2. */
  unicode?: boolean | undefined;
  /** Encode as UCS-2 only if the text needs it (legacy `text`, hybrid mode). */
  unicodeIfNeeded?: boolean | undefined;
  /** How this family sends Unicode, told when a text outside GSM-7 is refused; else "send it as Unicode". */
  unicodeRemedy?: string | undefined;
  flash?: boolean | undefined;
  dltEntityId?: string | undefined;
  dltTemplateId?: string | undefined;
  /** The telemarketer chain the client sent (the SMPP server's TLV): checked against the entity's declared one. */
  dltTmChain?: string | undefined;
  /** `YYYY-MM-DD HH:MM:SS` in the account's time zone. */
  scheduleAt?: string | undefined;
  /** Refuse a schedule more than a minute in the past (the dedicated schedule endpoint). */
  requireFutureSchedule?: boolean;
  /** Tracked short links for the links of {#var#} values (short-link-plan.ts); "account": the account's default. */
  shortenUrls?: boolean | "account" | undefined;
}

export interface SmsDecision {
  order: SendOrder;
  /** Recipients left out, with the reason (a multi-recipient send goes on without them). */
  rejected: { recipient: string; error: GatewayError }[];
}

type Content = PlannedContent;
type Item = { recipient: string; message: string };

export interface OperatorSmsSettings {
  hours: DailyWindow;
  timeZone: string;
  chainRequired?: boolean;
  tmId?: string;
  templatesAllRoutes?: boolean;
}

export class SmsPolicy {
  /** Also read by legacy template creation, which takes only an approved sender ID. */
  readonly senders: SenderApprovals;
  private readonly accounts: AccountRulesCache;
  private readonly suppressions: SuppressionList;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** The account's price card prices each recipient's segments (one PriceBook per process). */
    private readonly prices: PriceBook = new PriceBook(store),
    /**
     * The operator's settings: promotional hours (PROMO_HOURS, read in the recipients' zone; an
     * account's own replace them), DLT_CHAIN_REQUIRED (an entity without a declared telemarketer
     * chain is refused), DLT_TM_ID (last of every chain a client's is checked against) and
     * DLT_TEMPLATES_ALL_ROUTES (promotional text must match a template too).
     */
    private readonly operator: OperatorSmsSettings = {
      hours: { start: 9 * 60, end: 21 * 60 },
      timeZone: "Asia/Kolkata",
    },
    private readonly shortLinks: ShortLinkSettings = { base: undefined, days: 30, maxSegments: MAX_SEGMENTS },
  ) {
    this.senders = new SenderApprovals(store.db);
    this.accounts = new AccountRulesCache(store);
    this.suppressions = new SuppressionList(store);
  }

  async decide(principal: Principal, input: SmsSendInput): Promise<SmsDecision> {
    if (principal.status !== "active") throw inactiveAccount(principal, "send");
    const sender = input.senderId?.trim();
    if (!sender) throw new GatewayError("missing_sender_id");
    if (sender.includes(NUL)) throw new GatewayError("invalid_sender_id", "A sender ID cannot contain U+0000.");
    // Before its look-up, whose answer is remembered per sender: a header is 6 letters, a number 15 digits.
    if (sender.length > SENDER_ID_MAX_LENGTH) {
      throw new GatewayError("invalid_sender_id", `A sender ID has at most ${SENDER_ID_MAX_LENGTH} characters.`);
    }
    const items = input.items ?? input.recipients.map((recipient) => ({ recipient, message: input.message ?? "" }));
    // No number at all is a missing parameter, checked in the spec's table order: -4, -5, -6 (decision
    // 0186). Whether a number is valid waits for the route (rule 6).
    if (items.every((item) => item.recipient.trim() === "")) throw noRecipient();
    for (const item of items) {
      if (item.message.trim() === "") throw new GatewayError("missing_message");
      if (item.message.includes(NUL))
        throw new GatewayError("content_not_allowed", "The message cannot contain U+0000.");
    }
    for (const [name, value] of [
      ["DLT entity ID", input.dltEntityId],
      ["DLT template ID", input.dltTemplateId],
    ] as const) {
      if (value?.includes(NUL)) throw new GatewayError("invalid_request", `The ${name} cannot contain U+0000.`);
    }
    if (input.requireRoute && !input.route?.trim()) {
      throw new GatewayError("invalid_route", "Missing route: use T, P, PS or I.");
    }
    const route = parseTrafficClass(input.route);
    const rules = await this.accounts.rulesFor(principal.accountId);
    checkRouteEnabled(route, rules, sender);

    const rejected: SmsDecision["rejected"] = [];
    const valid: { recipient: string; message: string }[] = [];
    for (const item of items) {
      if (item.recipient.trim() === "") {
        rejected.push({ recipient: item.recipient, error: noRecipient() });
        continue;
      }
      const normalized =
        route === "international" ? normalizeInternational(item.recipient) : normalizeIndianMobile(item.recipient);
      if (normalized) valid.push({ recipient: normalized, message: item.message });
      else rejected.push({ recipient: item.recipient, error: invalidRecipient(item.recipient, route) });
    }
    if (valid.length === 0) throw rejected[0]?.error ?? noRecipient();

    const header = await this.checkSender(principal, sender, route);
    const deliverable = await this.withoutOptedOut(
      principal.accountId,
      await this.withoutDnd(valid, route, rejected),
      route,
      rejected,
    );

    // One look-up per send for the DLT checks; none at all while the account's snapshot is fresh.
    const { accountId } = principal;
    const dlt = rules.dltScrubbing
      ? (this.accounts.dltSnapshotNow(accountId, rules.dltMatching) ??
        (await this.accounts.dltSnapshot(accountId, rules.dltMatching)))
      : undefined;
    const contents = new Map<string, Content>();
    for (const { message } of deliverable) {
      if (contents.has(message)) continue;
      try {
        contents.set(message, this.checkContent(principal, message, input, { route, header }, dlt, rules));
      } catch (error) {
        throw namingItem(error, input.items, message, rejected);
      }
    }
    const entityId = this.checkDlt(principal.username, header, route, rules, input, [...contents.values()]);
    if (dlt && route !== "international" && entityId !== undefined) {
      for (const entry of contents) {
        try {
          checkDltLinks([entry], dlt.links.get(entityId), principal.username, entityId);
        } catch (error) {
          throw namingItem(error, input.items, entry[0], rejected);
        }
      }
      checkTmChain(rules.chains.get(entityId), input.dltTmChain, {
        entityId,
        username: principal.username,
        required: this.operator.chainRequired === true,
        tmId: this.operator.tmId,
      });
    }
    if (input.shortenUrls === true || (input.shortenUrls === "account" && rules.shortenUrls)) {
      await shortenContents(contents, this.shortLinks, this.accounts, { principal, entityId, route, rules, input });
    }
    const now = this.clock.now().getTime();
    // Promotional routes wait for the promotional hours: accepted and charged now, held till the opening.
    const asked = this.dueAt(principal, input);
    const promotional = route === "promotional" || route === "promotional_sender";
    const dueAt = promotional
      ? releaseAt(accountPromoWindow(rules.promoHours, this.operator.hours), this.operator.timeZone, asked)
      : asked;
    const card = await this.prices.cardFor(principal.accountId);
    const code = trafficClassCode(route);

    const chained = card.upline.length > 0;
    const dltTmChain = carriedChainOf(rules.chains, entityId, this.operator.tmId);
    const drafts: MessageDraft[] = deliverable.map(({ recipient, message }) => {
      const { info, template, shortLinks } = contents.get(message)!;
      const digits = internationalDigits(recipient, route);
      return {
        recipient,
        sender: header,
        body: message,
        encoding: info.encoding,
        segments: info.segments,
        flash: input.flash === true,
        route,
        lane: laneOf(route),
        credits: info.segments * card.price("sms", code, digits, now).price,
        ...(chained
          ? { upline: card.uplinePrices("sms", code, digits, now).map((price) => info.segments * price) }
          : {}),
        dueAt,
        dltEntityId: entityId ?? null,
        dltTemplateId: template?.dltTemplateId ?? input.dltTemplateId ?? null,
        templateId: template?.id ?? null,
        dltTmChain,
        dltScrub: scrubOutcome(rules.dltScrubbing, route, template !== undefined),
        ...(shortLinks ? { shortLinks } : {}),
      };
    });
    return {
      order: {
        accountId: principal.accountId,
        timeZone: principal.timeZone,
        channel: "sms",
        wallet: route === "international" ? "international" : "sms",
        drafts,
        ...(chained ? { upline: card.upline } : {}),
        status: dueAt > now + 1000 ? "scheduled" : "queued",
        floodLimit: rules.floodLimit,
      },
      rejected,
    };
  }

  /** Returns the header to send from. */
  private async checkSender(principal: Principal, sender: string, route: TrafficClass): Promise<string> {
    const upper = sender.toUpperCase();
    if (upper === PROMOTIONAL_SENDER) {
      if (route !== "promotional") {
        throw new GatewayError("route_sender_mismatch", `Sender ID ${PROMOTIONAL_SENDER} is only for route P.`);
      }
      return PROMOTIONAL_SENDER;
    }
    if ((route === "transactional" || route === "promotional_sender") && numericSender(sender)) {
      throw new GatewayError(
        "route_sender_mismatch",
        `Route ${trafficClassCode(route)} needs an alphabetic sender ID (header), not the number ${sender}.`,
      );
    }
    return this.senders.requireApproved(principal, sender);
  }

  /** Promotional routes skip numbers on the DND registry; the send fails only when none is left. */
  private async withoutDnd(items: Item[], route: TrafficClass, rejected: SmsDecision["rejected"]): Promise<Item[]> {
    if (route !== "promotional" && route !== "promotional_sender") return items;
    const listed = await dndListed(
      this.store.db,
      items.map((i) => i.recipient),
    );
    return leaveOut(items, listed, rejected, (recipient) => {
      return new GatewayError("dnd_blocked", `${recipient} is on the DND registry; promotional SMS is not allowed.`);
    });
  }

  /** Promotional routes skip numbers that sent the account STOP; the send fails only when none is left. */
  private async withoutOptedOut(
    accountId: number,
    items: Item[],
    route: TrafficClass,
    rejected: SmsDecision["rejected"],
  ): Promise<Item[]> {
    if (route !== "promotional" && route !== "promotional_sender") return items;
    const listed = await this.suppressions.among(
      accountId,
      items.map((i) => i.recipient),
    );
    return leaveOut(items, listed, rejected, (recipient) => {
      const why = `${recipient} opted out (STOP) of this account's promotional SMS.`;
      return new GatewayError("recipient_opted_out", why);
    });
  }

  private checkContent(
    principal: Principal,
    text: string,
    input: SmsSendInput,
    { route, header }: { route: TrafficClass; header: string },
    dlt: DltSnapshot | undefined,
    rules: AccountRules,
  ): Content {
    const info = segmentInfo(text, input.unicode === true);
    if (info.encoding === "ucs2" && input.unicode !== true && input.unicodeIfNeeded !== true) {
      throw new GatewayError(
        "unicode_not_allowed",
        `The message has characters outside GSM-7 (${info.nonGsm.slice(0, 5).join(" ")}); ${input.unicodeRemedy ?? "send it as Unicode"}.`,
      );
    }
    if (info.segments > MAX_SEGMENTS) {
      throw new GatewayError(
        "message_too_long",
        `The message needs ${info.segments} parts; at most ${MAX_SEGMENTS} are accepted.`,
      );
    }
    const matched = checkDltTemplate(dlt?.templates, rules, {
      username: principal.username,
      text,
      route,
      dltTemplateId: input.dltTemplateId,
      header,
      entityId: input.dltEntityId,
      allRoutes: this.operator.templatesAllRoutes,
    });
    return { info, template: matched?.value, layout: matched?.layout };
  }

  /** DLT on Indian routes when the account scrubs: the header and the entity must be white-listed. */
  private checkDlt(
    username: string,
    header: string,
    route: TrafficClass,
    rules: AccountRules,
    input: SmsSendInput,
    contents: Content[],
  ): string | undefined {
    const choice = {
      named: input.dltEntityId,
      fromTemplate: contents.find((c) => c.template?.entityId)?.template?.entityId,
      whitelisted: rules.entities,
      defaultEntity: rules.defaultEntity,
      username,
    };
    // DLT is India's: an international SMS carries only an entity its send or template names.
    if (route === "international") return namedDltEntity(choice);
    if (!rules.dltScrubbing) return chosenDltEntity(choice);
    if (header !== PROMOTIONAL_SENDER && !rules.headers.has(header)) {
      throw new GatewayError(
        "dlt_header_not_whitelisted",
        `Header ${header} is not white-listed for DLT on the account ${username}. ${askOperatorSentence(registrationFixes.dltHeader(username, header))}`,
      );
    }
    const entityId = requireDltEntity(choice);
    const anyHeader = header === PROMOTIONAL_SENDER;
    checkTemplatePairs(
      contents.map((c) => c.template),
      { entityId, header, anyHeader },
    );
    return entityId;
  }

  private dueAt(principal: Principal, input: SmsSendInput): number {
    const now = this.clock.now().getTime();
    if (input.scheduleAt === undefined || input.scheduleAt.trim() === "") return now;
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
    return Math.max(now, at.getTime());
  }
}
