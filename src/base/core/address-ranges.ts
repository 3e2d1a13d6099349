// Addresses and CIDR ranges an operator allows (`203.0.113.7`, `198.51.100.0/24`, `2001:db8::/32`),
// and whether a client's address, as the socket or a trusted proxy gives it, is among them.
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
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // ::ffff:203.0.113.7 (a dual-stack socket's IPv4 client) is 203.0.113.7.
    parsed = ipaddr.process(address);
  } catch {
    return false;
  }
  for (const entry of ranges) {
    const range = parseAddressRange(entry);
    if (!range) continue;
    const [base, bits] = range;
    const candidate =
      parsed.kind() === base.kind()
        ? parsed
        : parsed.kind() === "ipv4"
          ? (parsed as ipaddr.IPv4).toIPv4MappedAddress()
          : undefined;
    if (candidate?.match(base, bits)) return true;
  }
  return false;
}
