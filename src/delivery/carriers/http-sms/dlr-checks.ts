// Whether an http-sms connector's delivery-report check protects anything (security audit, low):
// a secret carried in a header every client sends or sets as a matter of course (Host,
// Content-Type, …) is known to anyone who reaches the URL, and an allowed range of all or most of
// the Internet (0.0.0.0/0, ::/0) lets anyone in. Checked when a connector is stored (the
// operator API, the carriers file); a connector stored before keeps working as it was.

import { parseAddressRange } from "../../../base/core/address-ranges.js";
import type { HttpSmsConfig } from "./config.js";

/** Headers a client sends or controls as a matter of course, lower-case: no secret can ride in them. */
const EVERYDAY_HEADERS = new Set([
  "host",
  "content-type",
  "content-length",
  "content-encoding",
  "user-agent",
  "accept",
  "accept-encoding",
  "accept-language",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "expect",
  "origin",
  "referer",
  "cookie",
  "date",
  "forwarded",
  "via",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-real-ip",
]);

/** The widest allowed range: an IPv4 /8 (16.7 million addresses), an IPv6 /16. */
export const WIDEST_IPV4_PREFIX = 8;
export const WIDEST_IPV6_PREFIX = 16;
/** ::ffff:0:0/96, where IPv4 clients are matched in an IPv6 range. */
const MAPPED_IPV4_BITS = 96;

/**
 * The first way `config`'s dlr check would protect nothing, naming its field; undefined when none,
 * or when `stored` (the connector as stored, if any) has that same check: a connector saved again
 * as it was, or applied from an unchanged carriers file at a start, keeps working.
 */
export function weakCallbackCheck(
  config: Pick<HttpSmsConfig, "dlr">,
  stored?: { type: string; dlr?: HttpSmsConfig["dlr"] },
): string | undefined {
  const weak = firstWeakness(config);
  if (weak === undefined || (stored?.type === "http-sms" && firstWeakness(stored) === weak)) return undefined;
  return weak;
}

function firstWeakness(config: Pick<HttpSmsConfig, "dlr">): string | undefined {
  const secret = config.dlr?.secret;
  if (secret && EVERYDAY_HEADERS.has(secret.header.toLowerCase())) {
    return `dlr.secret.header: ${secret.header} is a header every client sends or sets itself, so it keeps no secret; name a header of its own (X-Dlr-Secret).`;
  }
  for (const entry of config.dlr?.allowed_ips ?? []) {
    const range = parseAddressRange(entry);
    if (range && tooWide(range)) {
      return `dlr.allowed_ips: "${entry}" takes in all or most of the Internet; a range is at most an IPv4 /${WIDEST_IPV4_PREFIX} or an IPv6 /${WIDEST_IPV6_PREFIX} (the aggregator's addresses).`;
    }
  }
  return undefined;
}

function tooWide([base, bits]: NonNullable<ReturnType<typeof parseAddressRange>>): boolean {
  if (base.kind() === "ipv4") return bits < WIDEST_IPV4_PREFIX;
  if (bits < WIDEST_IPV6_PREFIX) return true;
  // IPv4 clients are matched as ::ffff:a.b.c.d: a range over that block is judged as IPv4.
  const mapped = parseAddressRange(`::ffff:0.0.0.0/${MAPPED_IPV4_BITS}`);
  if (!mapped) return false;
  const [mappedBase] = mapped;
  if (bits <= MAPPED_IPV4_BITS) return mappedBase.match(base, bits);
  return base.match(mappedBase, MAPPED_IPV4_BITS) && bits - MAPPED_IPV4_BITS < WIDEST_IPV4_PREFIX;
}
