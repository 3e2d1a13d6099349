// SSRF guard for account-supplied webhook URLs: checkWebhookUrl when a URL is set,
// resolveWebhookTarget at send time, after DNS, so a name cannot be re-pointed at an internal
// address between the two (the sender connects to the address returned, it does not resolve again).
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { GatewayError } from "../../base/core/errors.js";

export interface WebhookGuardOptions {
  /** SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: any address and plain http are allowed (tests, private networks). */
  allowPrivate: boolean;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

export type HostLookup = (host: string) => Promise<ResolvedAddress[]>;

export const MAX_WEBHOOK_URL_LENGTH = 2048;

const HOW_TO_ALLOW =
  "Webhooks must reach a public address; an operator can allow private targets with SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS=1.";

// The metadata services of clouds: AWS, GCP, Azure, OpenStack and others (169.254.169.254), AWS's
// IPv6 one (fd00:ec2::254), GCP's IPv6 one (fd20:ce::254), Alibaba's (100.100.100.200) and Azure's
// WireServer (168.63.129.16, which hands out VM extension settings and certificates). Most fall
// inside refused ranges anyway and are named so the error says what the URL was aiming at;
// 168.63.129.16 is public unicast and refused only by this list.
const METADATA_ADDRESSES = new Set([
  "169.254.169.254",
  "fd00:ec2::254",
  "fd20:ce::254",
  "100.100.100.200",
  "168.63.129.16",
]);

// ipaddr.js calls these "reserved" together with other special-purpose blocks.
const DOCUMENTATION_RANGES = ["192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24", "2001:db8::/32", "3fff::/20"].map(
  (cidr) => ipaddr.parseCIDR(cidr),
);

// ::a.b.c.d, the deprecated IPv4-compatible form, which ipaddr.js counts as ordinary unicast.
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
// The well-known NAT64 prefix: a DNS64 resolver answers 64:ff9b::a.b.c.d for an IPv4-only host.
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");

const RANGE_NAMES: Record<string, string> = {
  loopback: "a loopback address",
  private: "a private-network address",
  uniqueLocal: "a private-network (unique local) address",
  linkLocal: "a link-local address",
  unspecified: "an unspecified address",
  carrierGradeNat: "a carrier-grade NAT (shared) address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
};

/**
 * Checks a webhook URL when it is configured; returns it parsed. Throws GatewayError
 * `invalid_request` (field `url`) naming the reason. WHATWG parsing turns decimal, octal and hex
 * IPv4 hosts (`2130706433`, `0177.0.0.1`, `0x7f.1`) into dotted decimal, so they are judged as such.
 */
export function checkWebhookUrl(raw: string, options: WebhookGuardOptions): URL {
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) refuse(`is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  // The URL parser silently drops tabs and newlines inside a URL; refuse rather than guess.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  if (/[\u0000-\u0020\u007f]/.test(raw)) refuse("contains spaces or control characters");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    refuse("is not an absolute URL such as https://example.com/hooks");
  }
  if (url.href.length > MAX_WEBHOOK_URL_LENGTH) refuse(`is longer than ${MAX_WEBHOOK_URL_LENGTH} characters`);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && options.allowPrivate)) {
    refuse(
      url.protocol === "http:"
        ? "uses http; use https (plain http needs SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS=1)"
        : `uses ${url.protocol.replace(/:$/, "")}; use https`,
    );
  }
  if (url.username !== "" || url.password !== "") refuse("contains a user name or password (user:pass@)");
  if (url.hostname === "") refuse("has no host");
  if (url.port !== "" && Number(url.port) < 1) refuse(`has port ${url.port}; use a port from 1 to 65535`);
  if (options.allowPrivate) return url;
  const problem = publicHostProblem(url);
  if (problem !== undefined) refuse(`${problem}. ${HOW_TO_ALLOW}`);
  return url;
}

/**
 * Why a URL's host, as written, is not a public internet host ("points at 10.0.0.1, a
 * private-network address"), or undefined. Names are judged without resolving them.
 */
export function publicHostProblem(url: URL): string | undefined {
  const literal = ipLiteral(url.hostname);
  if (literal !== undefined) {
    const reason = forbiddenReason(literal);
    return reason === undefined ? undefined : `points at ${literal.toString()}, ${reason}`;
  }
  const nameReason = forbiddenNameReason(url.hostname);
  return nameReason === undefined ? undefined : `points at ${url.hostname}, ${nameReason}`;
}

/**
 * The send-time check: re-checks the URL (the setting may have changed since it was stored),
 * resolves its host to every address, refuses if any address is forbidden, and returns the address
 * the sender must connect to. A failed lookup throws `upstream_error` with `retryable: true`.
 */
export async function resolveWebhookTarget(
  url: URL,
  options: WebhookGuardOptions & { lookup?: HostLookup },
): Promise<ResolvedAddress> {
  checkWebhookUrl(url.href, options);
  const literal = ipLiteral(url.hostname);
  if (literal !== undefined) return pinned(literal);

  const lookup = options.lookup ?? ((host: string) => dnsLookup(host, { all: true, verbatim: true }));
  let answers: ResolvedAddress[];
  try {
    answers = await lookup(url.hostname);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? String(error);
    throw new GatewayError("upstream_error", `Webhook host ${url.hostname} could not be resolved (${code}).`, {
      field: "url",
      retryable: true,
    });
  }
  if (answers.length === 0) {
    throw new GatewayError("upstream_error", `Webhook host ${url.hostname} resolved to no address.`, {
      field: "url",
      retryable: true,
    });
  }

  const addresses = answers.map((answer) => {
    if (!ipaddr.isValid(answer.address)) refuse(`resolved to "${answer.address}", which is not an IP address`);
    return ipaddr.parse(answer.address);
  });
  if (!options.allowPrivate) {
    for (const address of addresses) {
      const reason = forbiddenReason(address);
      if (reason !== undefined) {
        refuse(`host ${url.hostname} resolves to ${address.toString()}, ${reason}. ${HOW_TO_ALLOW}`);
      }
    }
  }
  return pinned(addresses[0] as ipaddr.IPv4 | ipaddr.IPv6);
}

/** Why an address may not receive webhooks, or undefined when it is public unicast. */
export function forbiddenReason(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (METADATA_ADDRESSES.has(address.toString())) return "a cloud metadata service address";
  if (DOCUMENTATION_RANGES.some((range) => address.kind() === range[0].kind() && address.match(range))) {
    return "a documentation address";
  }
  if (address.kind() === "ipv6") {
    const v6 = address as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return forbiddenReason(v6.toIPv4Address());
    if (v6.match(NAT64_WELL_KNOWN)) return forbiddenReason(embeddedIPv4(v6));
    if (v6.match(IPV4_COMPATIBLE) && v6.range() === "unicast") return "an IPv4-compatible (deprecated) address";
  }
  const range = address.range();
  if (range === "unicast") return undefined;
  return RANGE_NAMES[range] ?? `a reserved or special-purpose address (${range})`;
}

function forbiddenNameReason(hostname: string): string | undefined {
  const name = hostname.toLowerCase().replace(/\.+$/, "");
  if (name === "localhost" || name.endsWith(".localhost")) return "a loopback name";
  if (name === "metadata.google.internal" || name === "metadata.goog") return "a cloud metadata service name";
  if (name.endsWith(".internal") || name.endsWith(".local")) return "a private-network name";
  if (!name.includes(".")) return "a name without a domain (resolved through local search domains)";
  return undefined;
}

/** The IP address a URL host spells, or undefined for a name. */
function ipLiteral(hostname: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (hostname.startsWith("[") && hostname.endsWith("]")) return ipaddr.IPv6.parse(hostname.slice(1, -1));
  // After WHATWG parsing every IPv4 host is in dotted decimal.
  if (ipaddr.IPv4.isValidFourPartDecimal(hostname)) return ipaddr.IPv4.parse(hostname);
  return undefined;
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 {
  return ipaddr.fromByteArray(address.toByteArray().slice(12)) as ipaddr.IPv4;
}

function pinned(address: ipaddr.IPv4 | ipaddr.IPv6): ResolvedAddress {
  return { address: address.toString(), family: address.kind() === "ipv4" ? 4 : 6 };
}

function refuse(reason: string): never {
  const sentence = reason.endsWith(".") ? reason : `${reason}.`;
  throw new GatewayError("invalid_request", `The webhook URL ${sentence}`, { field: "url" });
}
