// Tracked short links on the SMS rules' side (issue 40, item 6): which links of a text are
// shortened (those inside a {#var#} value: the template's fixed text is sent as registered),
// the text's segments and price counted with the short links in place, and on Indian routes
// with scrubbing the short links' own domain checked against the entity's white-list. The
// codes themselves are made per message by the Acceptor (domain/messages/short-links.ts).
import * as linkify from "linkifyjs";
import { findUnlistedLink } from "../../base/core/dlt-links.js";
import { GatewayError } from "../../base/core/errors.js";
import { type SegmentInfo, segmentInfo } from "../../base/core/segments.js";
import type { TrafficClass } from "../../base/core/traffic-class.js";
import { askOperatorSentence, registrationFixes } from "../../domain/accounts/index.js";
import type { Principal } from "../../domain/auth/index.js";
import { type ShortLinkPlan, shortLinkPlaceholder } from "../../domain/messages/index.js";
import type { AccountRules, AccountRulesCache, MatchedTemplate } from "./account-rules.js";
import type { TemplateMatch } from "./dlt-matcher.js";

/** SHORT_LINK_BASE (undefined: not offered) and SHORT_LINK_DAYS. */
export interface ShortLinkSettings {
  base: { url: string } | undefined;
  days: number;
  /** The longest text accepted, in segments (policy.ts's MAX_SEGMENTS). */
  maxSegments: number;
}

/** A distinct text of a send as the SMS rules plan it: its segments (as sent), template and short links. */
export interface PlannedContent {
  info: SegmentInfo;
  template: MatchedTemplate | undefined;
  /** Where the template's fixed pieces are in the text, for the link check (dlt-link-check.ts). */
  layout?: TemplateMatch<MatchedTemplate>["layout"] | undefined;
  shortLinks?: ShortLinkPlan;
}

export interface ShortenedContent {
  plan: ShortLinkPlan;
  /** The text as it will be sent, each short link's code written as a placeholder of its length. */
  sent: string;
}

/**
 * The http(s) links of `text` where they are written (linkifyjs; schemes and `www.` optional).
 * A host right after a `/` is left alone: linkify finds `example.com/x` inside a scheme-relative
 * `//example.com/x` (or `a//b.com`, `https:/x.com`), and shortening that part alone would send
 * `//` and the short link run together.
 */
function linkSpans(text: string): { start: number; end: number }[] {
  if (!/[.:]/.test(text)) return [];
  return linkify
    .find(text)
    .filter((token) => token.type === "url" && /^(https?:\/\/)?[^\s@]+$/i.test(token.value))
    .filter((token) => text[token.start - 1] !== "/")
    .map((token) => ({ start: token.start, end: token.end }));
}

function replaced(text: string, spans: readonly { start: number; end: number }[], by: string): string {
  let out = "";
  let from = 0;
  for (const span of spans) {
    out += `${text.slice(from, span.start)}${by}`;
    from = span.end;
  }
  return out + text.slice(from);
}

/**
 * The plan of `text`'s links to shorten, or undefined when it has none. Without a template every
 * link is a value's; with one, a link is a value's when the text still matches the same template
 * with the link taken out, and the text with every short link in place must still match it.
 */
export async function planShortLinks(
  text: string,
  template: MatchedTemplate | undefined,
  matchTemplate: (text: string) => Promise<MatchedTemplate | undefined>,
  settings: ShortLinkSettings,
): Promise<ShortenedContent | undefined> {
  const found = linkSpans(text);
  if (found.length === 0) return undefined;
  if (!settings.base) {
    throw new GatewayError(
      "short_links_unavailable",
      "This gateway does not shorten links: its operator has not set SHORT_LINK_BASE. Send without shorten_urls (legacy: shorturl).",
    );
  }
  const placeholder = shortLinkPlaceholder(settings.base.url);
  const spans: { start: number; end: number }[] = [];
  for (const span of found) {
    if (text.slice(span.start, span.end).startsWith(settings.base.url)) continue;
    if (template && (await matchTemplate(replaced(text, [span], "x")))?.id !== template.id) continue;
    spans.push(span);
  }
  if (spans.length === 0) return undefined;
  const sent = replaced(text, spans, placeholder);
  if (template && (await matchTemplate(sent))?.id !== template.id) {
    throw new GatewayError(
      "dlt_template_mismatch",
      `With its links shortened (${placeholder.length} characters each, such as ${placeholder}) the message no longer matches its DLT template ${template.dltTemplateId ?? template.id}: a {#var#} value holds at most 30 characters. Send without shorten_urls, or register a template whose value fits the short link.`,
    );
  }
  return { plan: { base: settings.base.url, days: settings.days, spans }, sent };
}

/** The segments of the text as sent (short links in place), refused past `maxSegments`. */
export function shortenedSegments(sent: string, unicode: boolean, maxSegments: number) {
  const info = segmentInfo(sent, unicode);
  if (info.segments > maxSegments) {
    throw new GatewayError(
      "message_too_long",
      `With its links shortened the message needs ${info.segments} parts; at most ${maxSegments} are accepted.`,
    );
  }
  return info;
}

/**
 * Each distinct text of a send with its links to shorten planned, and its segments counted as
 * it will be sent (the price follows them). On Indian routes with scrubbing (`dltEntity`) the
 * short links' domain must itself be white-listed for the entity.
 */
export async function shortenContents(
  contents: Map<string, PlannedContent>,
  settings: ShortLinkSettings,
  accounts: Pick<AccountRulesCache, "matchTemplate" | "linksFor">,
  send: {
    principal: Principal;
    entityId: string | undefined;
    route: TrafficClass;
    rules: Pick<AccountRules, "dltScrubbing" | "dltMatching">;
    input: { unicode?: boolean | undefined };
  },
): Promise<void> {
  const { accountId, username } = send.principal;
  const entityId = send.rules.dltScrubbing && send.route !== "international" ? send.entityId : undefined;
  for (const [text, content] of contents) {
    // Of templates with the same text (one per entity or header), the send's own is kept.
    const own = content.template?.id;
    const matchTemplate = (candidate: string) =>
      accounts.matchTemplate(accountId, send.rules.dltMatching, candidate, (template) => template.id === own);
    const shortened = await planShortLinks(text, content.template, matchTemplate, settings);
    if (!shortened) continue;
    if (entityId !== undefined) {
      const short = shortLinkPlaceholder(shortened.plan.base);
      if (findUnlistedLink(short, await accounts.linksFor(accountId, entityId))) {
        throw new GatewayError(
          "dlt_url_not_whitelisted",
          `The short links' domain ${shortened.plan.base} (SHORT_LINK_BASE) is not white-listed for DLT entity ${entityId} of the account ${username}, so operators would drop the shortened SMS. ${askOperatorSentence(registrationFixes.dltUrl(username, entityId, `${shortened.plan.base}/`))}`,
          { url: `${shortened.plan.base}/` },
        );
      }
    }
    contents.set(text, {
      ...content,
      info: shortenedSegments(shortened.sent, send.input.unicode === true, settings.maxSegments),
      shortLinks: shortened.plan,
    });
  }
}
