// Open and click tracking, and the one-click unsubscribe link. The pixel, every rewritten link
// and the List-Unsubscribe URL carry the recipient's message id and an HMAC of what they stand
// for, keyed by this installation's secret (kept in the `settings` table, made on first use): a
// click redirects only to the URL that was signed for that message, so the endpoint is no open
// redirect, and an event (or an unsubscribe) cannot be forged for another message.
import { createHmac } from "node:crypto";
import { sameBytes } from "../../base/core/same-bytes.js";
import { installationSecret } from "../../base/store/installation-secrets.js";
import type { Store } from "../../base/store/store.js";

const SECRET_KEY = "email_tracking_secret";
const MAC_BYTES = 16;
export const OPEN_PATH = "/e/o";
export const CLICK_PATH = "/e/c";
export const UNSUBSCRIBE_PATH = "/e/u";

/** The tracking secret of this installation; created once, shared by every process. */
export function trackingSecret(store: Store): Promise<Buffer> {
  return installationSecret(store, SECRET_KEY);
}

export class EmailTracker {
  private base: string;

  constructor(
    private readonly secret: Buffer,
    base: string,
  ) {
    this.base = base.replace(/\/+$/, "");
  }

  /** Where tracking links point (set after the server knows its address when no public URL is configured). */
  setBaseUrl(base: string): void {
    this.base = base.replace(/\/+$/, "");
  }

  openPixelUrl(messageId: string): string {
    return `${this.base}${OPEN_PATH}/${messageId}/${this.mac(`o\n${messageId}`)}.gif`;
  }

  clickUrl(messageId: string, url: string): string {
    return `${this.base}${CLICK_PATH}/${messageId}/${this.mac(`c\n${messageId}\n${url}`)}?u=${encodeURIComponent(url)}`;
  }

  /** The one-click unsubscribe URL of a recipient's message (RFC 8058): GET shows a page, POST unsubscribes. */
  unsubscribeUrl(messageId: string): string {
    return `${this.base}${UNSUBSCRIBE_PATH}/${messageId}/${this.mac(`u\n${messageId}`)}`;
  }

  verifyOpen(messageId: string, mac: string): boolean {
    return this.check(`o\n${messageId}`, mac);
  }

  verifyClick(messageId: string, url: string, mac: string): boolean {
    return this.check(`c\n${messageId}\n${url}`, mac);
  }

  verifyUnsubscribe(messageId: string, mac: string): boolean {
    return this.check(`u\n${messageId}`, mac);
  }

  private mac(data: string): string {
    return createHmac("sha256", this.secret).update(data).digest().subarray(0, MAC_BYTES).toString("base64url");
  }

  /**
   * The MAC as it was written, compared as text: decoding the given one first would take other
   * spellings of it (Node's base64url decoder skips characters outside the alphabet, `=` and
   * `%00` among them, reads `+` as `-`, and ignores the last character's spare bits); as UTF-8,
   * so no character outside ASCII stands for an ASCII one (latin1 read "š" as "a").
   */
  private check(data: string, given: string): boolean {
    return sameBytes(given, this.mac(data));
  }
}
