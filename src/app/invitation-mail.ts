// An invitation's link mailed to the user (decision 0126): the gateway's own mail through its
// relay (SMTP_URL, as the operator's alerts), not an email message of the account. Shared by the
// users and staff routes and the CLI, for a first invitation and one sent again.
import { GatewayError } from "../base/core/errors.js";
import type { Config } from "../base/runtime/config.js";
import { operatorMailer } from "../channels/email/index.js";

/**
 * The console's address the links the gateway mails start with (decision 0175): PUBLIC_URL; unset,
 * the request's own scheme and Host only when the Host names a loopback address or HOST itself.
 * Any other Host is refused before anything changes: the client writes that header, and an
 * invitation mailed with a link to its host would hand the token to whoever forged it.
 */
export function consoleBaseFor(
  config: Pick<Config, "publicUrl" | "host">,
  request: { protocol: string; host: string },
): string {
  if (config.publicUrl !== undefined) return config.publicUrl;
  let hostname = "";
  try {
    hostname = new URL(`${request.protocol}://${request.host}`).hostname.toLowerCase();
  } catch {
    // refused below
  }
  const loopback =
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    /^127(\.\d{1,3}){3}$/.test(hostname) ||
    hostname === "[::1]";
  const listening = hostname !== "" && hostname.replace(/^\[|\]$/g, "") === config.host.toLowerCase();
  if (loopback || listening) return `${request.protocol}://${request.host}`;
  throw new GatewayError(
    "invalid_request",
    `The gateway mails invitation links only to its own address, and PUBLIC_URL is not set: this request's Host (${request.host.slice(0, 100)}) is neither a loopback address nor HOST. Set PUBLIC_URL to the console's public address (e.g. https://console.example.com), or make the request to the gateway's own address.`,
  );
}

/** The console's page an invitation's token opens. */
export function invitationUrl(consoleBase: string, token: string): string {
  return `${consoleBase.replace(/\/+$/, "")}/invitation?token=${token}`;
}

/**
 * Mails invitations; `send` answers whether the mail went (false without a relay or an email
 * address, or when the relay refused: the link is in the answer all the same).
 */
export function invitationMailer(
  config: Pick<Config, "email">,
  onFailure: (error: unknown, account: string, login: string) => void,
) {
  const mailer = operatorMailer(config);
  return {
    async send(to: string | null, account: string, login: string, url: string): Promise<boolean> {
      if (!mailer || !to) return false;
      try {
        await mailer.send({
          from: `Switchboard <accounts@${config.email.bounceDomain}>`,
          to,
          subject: `You are invited to ${account} on Switchboard`,
          text: `You have been added to the account ${account} as ${login}.\n\nSet your password and sign in here (the link works once, for 7 days):\n${url}\n`,
        });
        return true;
      } catch (error) {
        onFailure(error, account, login);
        return false;
      }
    },
    close: () => mailer?.close(),
  };
}
