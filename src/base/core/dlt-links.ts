// DLT link and callback-number white-lists (issue 40, item 1): since 1 October 2024 Indian
// operators drop SMS whose URLs, APK or OTT links, or callback numbers the sender has not
// white-listed for its DLT entity. This finds every link and phone number in a message's text
// (fixed text and {#var#} values alike: it reads the whole text) and matches each against the
// entity's lists, so the gateway refuses before charging what an operator would drop.
//
// Links are found by linkifyjs (its TLD list, TLDs in punycode too, schemes optional, `www.` optional), after the text
// is normalised so that it cannot be fooled cheaply: NFKC (full-width letters and dots), other
// dot look-alikes, zero-width characters, `hxxp`, `[.]`, spaces inside `http://`, a space
// after `www.`, and a host split by spaces around its dot (dlt-link-fold.ts, dlt-link-spaces.ts).
// Links to a bare IP address without a scheme, and those with a scheme to an IPv6 address or with
// user info linkify stops at, which linkify leaves, are found beside it (dlt-link-ips.ts). A link's host is the one a browser opens: after
// the user info's last `@`, before the first `/`, `\`, `?` or `#` (`https://shop.example.in@evil.com`
// and `https://evil.com\@shop.example.in` go to evil.com); a link whose host cannot be read is refused.
// E-mail addresses are not links: DLT's URL white-list is for URLs, APK and OTT links.
// A phone number is a 10-digit Indian number (mobile 6-9…, or landline with its STD code
// written with `0` or `+91`), or a toll-free 1800/1860 number; shorter digit runs never are.
import { domainToASCII, domainToUnicode } from "node:url";
import * as linkify from "linkifyjs";
import { BoundedMap } from "./bounded-map.js";
import { foldForLinks, writtenSpans } from "./dlt-link-fold.js";
import { findBareIpLinks, findSchemeLinks, isBareIpLink, withBareIpLinks } from "./dlt-link-ips.js";
import { findPunycodeTlds } from "./dlt-link-punycode.js";
import { GatewayError } from "./errors.js";

findPunycodeTlds();

/** Longest approved URL accepted in a list. */
export const MAX_URL_LENGTH = 500;

/** One entity's approved links and numbers, indexed for the send path. */
export interface EntityLinks {
  /** Exact links: canonical key (host + path, bare host as `host/`). */
  exact: Set<string>;
  /** Prefix links: canonical key ending in `/` or `?`. */
  prefixes: Set<string>;
  /** Callback numbers, canonical (see canonicalNumber). */
  callbacks: Set<string>;
}

export function emptyEntityLinks(): EntityLinks {
  return { exact: new Set(), prefixes: new Set(), callbacks: new Set() };
}

export interface FoundLink {
  /** As read: in the folded text (`http://evil.com`). */
  text: string;
  /** As written in the text (`hxxp://evil[.]com`): what a refusal names. */
  written: string;
  key: string;
}

/** Enough for the links of the campaigns and OTP templates a gateway sends at once. */
const WORD_MEMO_SIZE = 1024;

/** Hosts as written, and as the URL parser gives them without `www.` (null: no host): a link's host repeats. */
const urlHosts = new BoundedMap<string, string | null>(WORD_MEMO_SIZE);

/**
 * The canonical key of a link or list entry: lower-case host without `www.`, then the path as
 * written. The host is the one a browser opens (WHATWG URL): the authority ends at the first `/`,
 * `\` (read as `/`), `?` or `#`, and the host follows its last `@` (`userinfo`: there was one).
 */
function linkKey(raw: string): { display: string; key: string; userinfo: boolean } | undefined {
  const value = raw.trim();
  const withoutScheme = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
  const cut = withoutScheme.search(/[/\\?#]/);
  const authority = cut === -1 ? withoutScheme : withoutScheme.slice(0, cut);
  const hostPart = authority.slice(authority.lastIndexOf("@") + 1);
  let rest = cut === -1 ? "" : withoutScheme.slice(cut).replace(/#.*$/, "");
  if (rest.includes("\\")) rest = rest.replace(/^[^?]*/, (path) => path.replaceAll("\\", "/"));
  if (hostPart === "" || /\s/.test(hostPart)) return undefined;
  let host = urlHosts.get(hostPart);
  if (host === undefined) {
    try {
      // Lower-case, IDN to punycode (a look-alike host is another host), port kept. A host is
      // compared in one form: to Unicode and back, so `пример.рф` and `xn--e1afmkfd.xn--p1ai`
      // are one host however written (in the text or the lists); "" is a host neither reads.
      const url = new URL(`http://${hostPart}`);
      const ascii = url.hostname.startsWith("[") ? url.hostname : domainToASCII(domainToUnicode(url.hostname));
      host = ascii === "" ? null : `${ascii}${url.port === "" ? "" : `:${url.port}`}`.replace(/^www\./, "");
    } catch {
      host = null;
    }
    urlHosts.set(hostPart, host);
  }
  if (host === null) return undefined;
  const display = `${host}${rest}`;
  return { display, key: rest === "" ? `${host}/` : display, userinfo: hostPart.length < authority.length };
}

function isPrefix(display: string): boolean {
  return display.endsWith("/") || display.endsWith("?");
}

/**
 * An approved URL as the lists store it: host lower-case without scheme or `www.`, path as given.
 * Ends in `/` or `?`: a prefix (every link under it); else exact.
 */
export function normalizeApprovedUrl(raw: string): string {
  const value = raw.trim();
  const bad = (why: string) =>
    new GatewayError(
      "invalid_request",
      `"${value.slice(0, 100)}" is not a URL DLT can white-list: ${why}. Give a link such as https://example.com/app or a prefix ending in / or ?.`,
    );
  if (value === "") throw bad("it is empty");
  if (value.length > MAX_URL_LENGTH) throw bad(`it is longer than ${MAX_URL_LENGTH} characters`);
  if (/\s/.test(value)) throw bad("it contains a space");
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1]?.toLowerCase();
  if (scheme !== undefined && scheme !== "http" && scheme !== "https") throw bad(`the scheme ${scheme} is not http(s)`);
  const folded = foldForLinks(value);
  // linkify leaves a trailing `?` out of a link (as punctuation); a prefix may end with one.
  if (!linkify.test(folded.replace(/\?$/, ""), "url") && !isBareIpLink(folded)) {
    throw bad("it is not a link to a host with a known top-level domain");
  }
  const parsed = linkKey(folded);
  if (parsed?.userinfo) throw bad("it has user info before an @ (the host a browser opens follows the @)");
  const host = parsed?.display.split("/")[0] ?? "";
  if (!parsed || !(host.includes(".") || host.startsWith("["))) throw bad("it has no host with a domain");
  return parsed.display;
}

/** Adds an approved URL (as normalizeApprovedUrl stored it) to an entity's index. */
export function indexUrl(links: EntityLinks, stored: string): void {
  const parsed = linkKey(stored);
  if (!parsed) return;
  if (isPrefix(parsed.display)) links.prefixes.add(parsed.display);
  else links.exact.add(parsed.key);
}

/** Whether a found link's key is white-listed: exactly, or under a prefix. */
export function urlApproved(links: EntityLinks, key: string): boolean {
  if (links.exact.has(key)) return true;
  if (links.prefixes.size === 0) return false;
  for (let i = key.indexOf("/"); i !== -1 && i < key.length; i++) {
    const c = key.charCodeAt(i);
    if ((c === 47 || c === 63) && links.prefixes.has(key.slice(0, i + 1))) return true;
  }
  return false;
}

/** A text read once: folded, and linkify's tokens (links and e-mail addresses) in it. */
interface Scan {
  text: string;
  goesOn: boolean;
  folded: string;
  tokens: WordToken[];
}

/**
 * What every link and e-mail address linkify finds has: a host's dot between a label character
 * and two letters of its TLD (`a.co`, `пример.рф`), a scheme's `://`, or the host `localhost`. A
 * text without one (most OTPs: `4821. Do`, `Rs.1,499.00`, `10 a.m.`) is not handed to linkify.
 */
const MAYBE_LINK = /[\p{L}\p{N}_-]\.\p{L}{2}|:\/\/|localhost/iu;

/** A run of characters without white space: no link or e-mail address spans one. */
const WORD = /\S+/g;

type WordToken = { type: string; value: string; start: number; end: number };

/** Words linkify read lately, and what it found in each (offsets within the word). */
const wordTokens = new BoundedMap<string, readonly WordToken[]>(WORD_MEMO_SIZE);

/**
 * What linkify finds in one word: its links and e-mail addresses, as `linkify.find` gives them
 * with its default options (the value as written), without building options and hrefs per call.
 * A word is read once while it stays among the last WORD_MEMO_SIZE read: a link repeats across
 * a campaign's messages and an OTP template's sends, and linkify costs several µs per link.
 */
function linksInWord(word: string): readonly WordToken[] {
  const known = wordTokens.get(word);
  if (known) return known;
  const found: WordToken[] = [];
  for (const token of linkify.tokenize(word)) {
    if (!token.isLink) continue;
    found.push({ type: token.t, value: token.toString(), start: token.startIndex(), end: token.endIndex() });
  }
  wordTokens.set(word, found);
  return found;
}

/**
 * linkify reads only the words that may hold a link (a link never spans white space once the text
 * is folded), so its cost follows the links' length, not the message's: an OTP with a link costs
 * a third of what reading the whole text did (bench/dlt-links.mjs).
 */
function scan(text: string, goesOn = false): Scan {
  const folded = foldForLinks(text, goesOn);
  const tokens: WordToken[] = [];
  if (MAYBE_LINK.test(folded)) {
    for (const word of folded.matchAll(WORD)) {
      if (!MAYBE_LINK.test(word[0])) continue;
      for (const token of linksInWord(word[0])) {
        tokens.push({ ...token, start: token.start + word.index, end: token.end + word.index });
      }
    }
  }
  const ips = findBareIpLinks(folded);
  const schemed = findSchemeLinks(folded);
  return { text, goesOn, folded, tokens: withBareIpLinks(tokens, schemed.length ? [...ips, ...schemed] : ips) };
}

/** A key no list holds: a link whose host cannot be read is refused, not left out. */
const UNREADABLE = "\u0000";

function linksIn({ text, goesOn, folded, tokens }: Scan): FoundLink[] {
  const found: FoundLink[] = [];
  let written: ((start: number, end: number) => string) | undefined;
  for (const token of tokens) {
    if (token.type !== "url") continue;
    if (folded !== text) written ??= writtenSpans(text, goesOn);
    found.push({
      text: token.value,
      written: written ? written(token.start, token.end) : token.value,
      key: linkKey(token.value)?.key ?? `${UNREADABLE}${token.value}`,
    });
  }
  return found;
}

/** Every link in the text (not e-mail addresses), with its key. */
export function findLinks(text: string): FoundLink[] {
  return linksIn(scan(text));
}

/**
 * The text with its links and e-mail addresses blanked, so their digits are not read as numbers:
 * each character a space, so that offsets stay those of the folded text and no number is joined
 * across a link.
 */
function withoutLinks({ folded, tokens }: Scan): string {
  let out = folded;
  for (let i = tokens.length - 1; i >= 0; i--) {
    const token = tokens[i]!;
    out = `${out.slice(0, token.start)}${" ".repeat(token.end - token.start)}${out.slice(token.end)}`;
  }
  return out;
}

/**
 * The canonical form of a phone number's digits, or undefined when they are not a number:
 * a mobile or landline as its 10-digit national number, a toll-free number as written (1800…).
 */
export function canonicalNumber(written: string): string | undefined {
  const plus = /^[\s(]*\+/.test(written);
  const digits = written.replace(/\D/g, "");
  if (/^18[06]0\d{6,7}$/.test(digits)) return digits;
  if (digits.length === 10) return /^[6-9]/.test(digits) ? digits : undefined;
  if (digits.length === 11 && digits.startsWith("0")) {
    const national = digits.slice(1);
    return /^18[06]0/.test(national) ? undefined : national;
  }
  if (digits.length === 12 && digits.startsWith("91")) {
    const national = digits.slice(2);
    // Without `+`, 91 and 10 digits is a number only as a mobile (else a 12-digit reference).
    return plus || /^[6-9]/.test(national) ? national : undefined;
  }
  if (digits.length === 13 && digits.startsWith("091")) return digits.slice(3);
  return undefined;
}

/** A callback number as the lists store it; refuses what is not one. */
export function normalizeCallbackNumber(raw: string): string {
  const value = raw.trim();
  if (!CALLBACK_LIST_ENTRY.test(value)) {
    throw new GatewayError(
      "invalid_request",
      `"${value.slice(0, 40)}" is not a callback number: give a 10-digit Indian number (+91…, 0…) or a toll-free 1800/1860 number.`,
    );
  }
  const canonical = canonicalNumber(value);
  if (canonical === undefined) {
    throw new GatewayError(
      "invalid_request",
      `"${value}" is not a callback number: give a 10-digit Indian mobile, a landline with its STD code (0…, +91…) or a toll-free 1800/1860 number.`,
    );
  }
  return canonical;
}

/**
 * What may stand between the digits of a written number (docs/api.md rule 14b): spaces (any
 * Unicode space, the non-breaking ones too) and tabs, hyphens and dashes (`-`, U+2010 to U+2015,
 * the minus sign U+2212, the small and full-width hyphen-minus), dots, slashes and round brackets.
 * NFKC (dlt-link-fold.ts) has already made most look-alikes of these (and full-width digits) ASCII.
 */
const SEPARATOR = String.raw`[\p{Zs}\t./()\-\u2010-\u2015\u2212\uFE58\uFE63\uFF0D]`;

/**
 * Runs of digits, each piece joined to the next by one to three separators (`) `, ` - `, ` (`),
 * `+` and `(` allowed before a piece: `+91 (98765) 43210`, `(+91) 98765.43210`, `98765/43210`.
 */
const NUMBER_RUN = new RegExp(String.raw`[+(]{0,2}\d+(?:${SEPARATOR}{1,3}\+?\d+)*`, "gu");

/**
 * Dates (`9.6.2024`, `12/05/24`, `2024-05-12`): never part of a number, so that a date beside a
 * time or another number (`on 9.6.2024 10.30`) is not read as one.
 */
const DATE =
  /(?<![\d./-])(?:(?:0?[1-9]|[12]\d|3[01])([./-])(?:0?[1-9]|1[0-2])\1(?:\d{4}|\d{2})|\d{4}([./-])(?:0?[1-9]|1[0-2])\2(?:0?[1-9]|[12]\d|3[01]))(?![\d./-]?\d)/g;

/** An approved callback number as given to the lists: digits and the same separators. */
const CALLBACK_LIST_ENTRY = new RegExp(String.raw`^(?:\+|\d|${SEPARATOR}){6,24}$`, "u");

export interface FoundNumber {
  text: string;
  number: string;
}

/** Every phone number in the text (outside links and e-mail addresses). */
export function findNumbers(text: string): FoundNumber[] {
  return numbersIn(scan(text));
}

/** At least 10 digits close together: the least any number has. */
const TEN_DIGITS = new RegExp(String.raw`(?:\d(?:\+|${SEPARATOR}){0,4}){10}`, "u");

function numbersIn(scanned: Scan): FoundNumber[] {
  if (!TEN_DIGITS.test(scanned.folded)) return [];
  const plain = withoutLinks(scanned).replace(DATE, (date) => " ".repeat(date.length));
  const found: FoundNumber[] = [];
  let written: ((start: number, end: number) => string) | undefined;
  for (const match of plain.matchAll(NUMBER_RUN)) {
    const run = match[0];
    const whole = canonicalNumber(run);
    if (whole !== undefined) {
      // Named as written (a non-breaking hyphen stays one), as a link is.
      if (scanned.folded !== scanned.text) written ??= writtenSpans(scanned.text, scanned.goesOn);
      found.push({ text: written ? written(match.index, match.index + run.length) : run, number: whole });
      continue;
    }
    // Numbers side by side ("Rs 500 9876543210", "98765 43210 1234"): adjacent pieces joined.
    const pieces = run.match(/\+?\d+/g) ?? [];
    for (let i = 0; i < pieces.length; i++) {
      let joined = "";
      for (let j = i; j < pieces.length && joined.length <= 14; j++) {
        joined += pieces[j];
        const number = canonicalNumber(joined);
        if (number !== undefined) {
          found.push({ text: joined, number });
          i = j;
          break;
        }
      }
    }
  }
  return found;
}

/** What a text holds: its links, then its phone numbers, each in the order written. */
export interface Findings {
  readonly links: readonly FoundLink[];
  readonly numbers: readonly FoundNumber[];
}

/** What most texts hold: one answer, not a new one per text. */
export const NOTHING_FOUND: Findings = Object.freeze({ links: Object.freeze([]), numbers: Object.freeze([]) });

/** Every link and number of `text` (`goesOn`: a part of a longer text, see foldForLinks). */
export function findingsIn(text: string, goesOn = false): Findings {
  const scanned = scan(text, goesOn);
  const links = linksIn(scanned);
  const numbers = numbersIn(scanned);
  return links.length === 0 && numbers.length === 0 ? NOTHING_FOUND : { links, numbers };
}

/** An offending link or number, as written in the text: the first link not on the lists, else the first number. */
export type Unlisted = { kind: "url" | "callback"; text: string };

/** The first of `parts`' links, then of their numbers, that is not on the entity's lists. */
export function firstUnlisted(parts: readonly Findings[], links: EntityLinks | undefined): Unlisted | undefined {
  const lists = links ?? emptyEntityLinks();
  for (const part of parts) {
    for (const link of part.links) if (!urlApproved(lists, link.key)) return { kind: "url", text: link.written };
  }
  for (const part of parts) {
    for (const found of part.numbers)
      if (!lists.callbacks.has(found.number)) return { kind: "callback", text: found.text };
  }
  return undefined;
}

/** The first link or number in the text that is not on the entity's lists (links first). */
export function findUnlistedLink(text: string, links: EntityLinks | undefined): Unlisted | undefined {
  return firstUnlisted([findingsIn(text)], links);
}
