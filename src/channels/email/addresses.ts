// Email addresses as the email API takes them: `Name <user@example.com>` or a bare address,
// lists comma-separated (RFC 5322 quoting understood, via nodemailer's address parser).
import addressparser from "nodemailer/lib/addressparser/index.js";
import { GatewayError } from "../../base/core/errors.js";

export interface Mailbox {
  /** The address, domain in lower case. */
  address: string;
  name: string | null;
}

const LOCAL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}(?<!\.)$/;
const DOMAIN = /^(?=.{3,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** The address normalised (domain lower-cased), or undefined when it is not a deliverable address. */
export function normalizeAddress(raw: string): string | undefined {
  const at = raw.lastIndexOf("@");
  if (at <= 0) return undefined;
  const local = raw.slice(0, at);
  const domain = raw.slice(at + 1).toLowerCase();
  if (!LOCAL.test(local) || !DOMAIN.test(domain)) return undefined;
  return `${local}@${domain}`;
}

/**
 * C0 and C1 controls and DEL. A line break in an address field would start a header of its own
 * (`to=a@x.org\r\nBcc: b@evil.example`), and the address parser reads it as a separator, so the
 * whole field is refused rather than cleaned.
 */
const CONTROL = /\p{Cc}/u;

/** Parses a comma-separated list; throws `invalid_request` naming the first bad entry. */
export function parseMailboxes(raw: string, field: string): Mailbox[] {
  if (raw.length > 100_000) {
    throw new GatewayError("invalid_request", `${field} is too long.`, { field });
  }
  if (CONTROL.test(raw)) {
    throw new GatewayError("invalid_request", `${field} contains a control character (a line break, NUL, …).`, {
      field,
    });
  }
  const out: Mailbox[] = [];
  for (const entry of flatten(addressparser(raw))) {
    const address = normalizeAddress(entry.address ?? "");
    if (!address) {
      const shown = (entry.address || entry.name || "").slice(0, 80);
      throw new GatewayError("invalid_request", `${field}: "${shown}" is not a valid email address.`, { field });
    }
    out.push({ address, name: entry.name ? entry.name : null });
  }
  return out;
}

/** Exactly one mailbox (from, replyto). */
export function parseMailbox(raw: string, field: string): Mailbox {
  const list = parseMailboxes(raw, field);
  if (list.length !== 1) {
    throw new GatewayError("invalid_request", `${field} must be one address, e.g. "Shop <news@shop.example.com>".`, {
      field,
    });
  }
  return list[0] as Mailbox;
}

interface Parsed {
  name: string;
  address?: string;
  group?: Parsed[];
}

/** Group syntax (`Team: a@x.com, b@x.com;`) becomes its members. */
function flatten(list: Parsed[]): Parsed[] {
  return list.flatMap((entry) => (entry.group ? flatten(entry.group) : [entry]));
}
