// An invitation's link mailed to the user (decision 0126): the gateway's own mail through its
// relay (SMTP_URL, as the operator's alerts), not an email message of the account. Shared by the
// users and staff routes and the CLI, for a first invitation and one sent again.
import type { Config } from "../base/runtime/config.js";
import { operatorMailer } from "../channels/email/index.js";

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
