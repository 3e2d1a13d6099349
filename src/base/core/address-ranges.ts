// Addresses and CIDR ranges an operator allows (`203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`),
// and whether a client's address, as the socket or a trusted proxy gives it, is among them.
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** The range `entry` names (a bare address is a range of one), or undefined when it names none. */
export function parseAddressRange(entry: string): Range | undefined {
  const text = entry.trim();
  try {
    if (text.includes("/")) return ipaddr.parseCIDR(text);
    const address = ipaddr.parse(text);
    return [address, address.kind() === "ipv6" ? 128 : 32];
  } catch {
    return undefined;
  }
}

/** Whether `address` (IPv4, IPv6, or IPv4 mapped into IPv6) is in one of `ranges`; false when it is no address. */
export function addressInRanges(ranges: readonly string[], address: string): boolean {
  return addressMatcher(ranges)(address);
}

/** At most this many entries in one allow-list (an SMPP bind's, an API key's, an account's password logins'). */
export const MAX_ALLOWED_ADDRESSES = 100;

/**
 * An allow-list as given (`203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`), checked and written
 * the one way it is stored; `invalid` names the first entry that is no address or range, or the
 * list's excess.
 */
export function normalizeAddressRanges(
  list: readonly string[],
): { ranges: string[]; invalid?: undefined } | { invalid: string } {
  const ranges: string[] = [];
  for (const raw of list) {
    const entry = raw.trim();
    if (entry === "") continue;
    const range = parseAddressRange(entry);
    if (!range) return { invalid: `"${entry.slice(0, 60)}" is not an IP address or CIDR range.` };
    const [address, bits] = range;
    const full = address.kind() === "ipv6" ? 128 : 32;
    ranges.push(entry.includes("/") || bits !== full ? `${address.toString()}/${bits}` : address.toString());
  }
  if (ranges.length > MAX_ALLOWED_ADDRESSES) {
    return { invalid: `At most ${MAX_ALLOWED_ADDRESSES} allowed addresses or ranges.` };
  }
  return { ranges };
}

/**
 * `addressInRanges` with the ranges parsed once: what a request's path checks (an API key's
 * allow-list, remembered with the key), paying only the parse of the client's address.
 */
export function addressMatcher(ranges: readonly string[]): (address: string) => boolean {
  const parsed = ranges.map(parseAddressRange).filter((range): range is Range => range !== undefined);
  return (address) => {
    let client: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      client = ipaddr.process(address);
    } catch {
      return false;
    }
    for (const [base, bits] of parsed) {
      const candidate =
        client.kind() === base.kind()
          ? client
          : client.kind() === "ipv4"
            ? (client as ipaddr.IPv4).toIPv4MappedAddress()
            : undefined;
      if (candidate?.match(base, bits)) return true;
    }
    return false;
  };
}

/**
 * The key an end user's address is counted under (a per-address limit): an IPv4 address as
 * written (`::ffff:203.0.113.7` is `203.0.113.7`); an IPv6 address by its /64, the block one
 * subscriber holds, so rotating within it does not escape the count. Undefined when `text` is no
 * address.
 */
export function addressLimitKey(text: string): string | undefined {
  const written = text.trim();
  // isIP takes an address as written today: not inet_aton's `1.2.3` or `0x7f.1`, which ipaddr.js reads.
  if (isIP(written) === 0) return undefined;
  const address = ipaddr.process(written);
  if (address.kind() === "ipv4") return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
