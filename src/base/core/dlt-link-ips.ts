// Links to a bare IPv4 address, without a scheme (`1.2.3.4/app.apk`, `45.67.89.10:8080/x`,
// `1.2.3.4` alone), which linkify does not find (its hosts need a TLD; with `http://` it finds
// them). A reader's phone makes them links all the same (Android's autolink pattern takes an IP
// address for a host, path optional), so they are links here too, and must be white-listed
// (docs/decisions/0133-bare-ip-links-and-refund-choices.md). Four decimal numbers of 0-255 joined by dots only:
// amounts (`Rs.1,499.00`), versions (`v1.2.3`, `v1.2.3.4`), dates (`12.05.2024`) and times
// (`10.30 a.m.`) never are.
//
// Links with a scheme whose authority linkify does not read are found here too: to an IPv6
// address (`http://[2001:db8::1]/app.apk`; without a scheme, `[2001:db8::1]/x`, they are not
// links), and with user info linkify stops at (`https://[::1]:80@evil.com/x`, where it sees
// only an e-mail address). A browser opens the host after the user info's last `@`.

/** One number of a dotted quad, 0-255, as Android's pattern writes it (a leading 0 allowed on three digits). */
const OCTET = "(?:25[0-5]|2[0-4]\\d|[01]\\d\\d|[1-9]?\\d)";
/** The quad, not part of a longer word or number (`v1.2.3.4`, `1.2.3.4.5`, `x.1.2.3.4`, `a@1.2.3.4`). */
const QUAD = `(?<![\\p{L}\\p{N}_.@-])${OCTET}(?:\\.${OCTET}){3}(?![\\p{L}\\p{N}_-]|\\.\\p{N})`;
/** Then a port, and a path, query or fragment up to the next space. */
const REST = "(?::\\d{1,5}(?!\\p{N}))?(?:[/?#]\\S*)?";

const BARE_IP = new RegExp(QUAD + REST, "gu");

/** An IPv6 address in brackets (RFC 3986's IP-literal, an IPv4 tail allowed), then a port. */
const V6 = "\\[[\\p{AHex}:.]*:[\\p{AHex}:.]*\\](?::\\d{1,5}(?!\\p{N}))?";
/** Where a browser ends the authority: the first `/`, `\\`, `?` or `#`. */
const AUTHORITY_CHAR = "[^\\s/\\\\?#]";
/**
 * A scheme, then user info up to its last `@` and any host, or an IPv6 host without user info
 * (brackets before an `@` are user info); then a path, query or fragment.
 */
const SCHEME_LINK = new RegExp(
  `((?<![\\p{L}\\p{N}+.-])[a-z][a-z0-9+.-]*://(?:${AUTHORITY_CHAR}*@(?:${V6}|[^\\s/\\\\?#@\\[\\]]+)|${V6}(?!${AUTHORITY_CHAR}*@)))([/\\\\?#]\\S*)?`,
  "giu",
);
const WHOLE_IP_LINK = new RegExp(`^(?:${QUAD}${REST}|(?:[a-z][a-z0-9+.-]*://)?${V6}(?:[/?#]\\S*)?)$`, "iu");
/** What every quad has: a cheap look before the regular expression. */
const MAYBE_IP = /\d\.\d{1,3}\.\d{1,3}\.\d/;
/** Punctuation that ends a sentence or a bracket, not the link (as linkify leaves it out). */
const TRAILING = /[.,;:!?'")\]}>]+$/;

export interface IpToken {
  type: "url";
  value: string;
  start: number;
  end: number;
}

/** Every bare-IP link of the (folded) text, with where it is. */
export function findBareIpLinks(text: string): IpToken[] {
  if (!MAYBE_IP.test(text)) return [];
  const found: IpToken[] = [];
  for (const match of text.matchAll(BARE_IP)) {
    const value = match[0].replace(TRAILING, "");
    found.push({ type: "url", value, start: match.index, end: match.index + value.length });
  }
  return found;
}

/** Every link of the (folded) text to an IPv6 address or with user info, with a scheme, with where it is. */
export function findSchemeLinks(text: string): IpToken[] {
  if (!text.includes("://") || !(text.includes("@") || text.includes("]"))) return [];
  const found: IpToken[] = [];
  for (const match of text.matchAll(SCHEME_LINK)) {
    const head = match[1]!;
    const path = match[2] ?? "";
    // Trailing punctuation is the sentence's, but an IPv6 host's closing bracket is its own.
    const value =
      path !== "" ? head + path.replace(TRAILING, "") : head.endsWith("]") ? head : head.replace(TRAILING, "");
    found.push({ type: "url", value, start: match.index, end: match.index + value.length });
  }
  return found;
}

/** Whether the whole (folded) value is a bare-IP link or an IPv6 link, as an approved URL may be written. */
export function isBareIpLink(value: string): boolean {
  return WHOLE_IP_LINK.test(value);
}

/**
 * linkify's tokens and the bare-IP links in one list by position: where two overlap, the one
 * that starts first is the link (`http://1.2.3.4/x` is linkify's; `1.2.3.4/app.ru` is the IP
 * link, not linkify's `app.ru` inside it).
 */
export function withBareIpLinks<T extends { start: number; end: number }>(
  tokens: T[],
  ips: IpToken[],
): (T | IpToken)[] {
  if (ips.length === 0) return tokens;
  const all = [...tokens, ...ips].sort((a, b) => a.start - b.start || b.end - a.end);
  const kept: (T | IpToken)[] = [];
  for (const token of all) {
    const last = kept[kept.length - 1];
    if (last && token.start < last.end) continue;
    kept.push(token);
  }
  return kept;
}
