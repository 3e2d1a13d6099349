// The gateway's own mail (the operator's alerts, users' invitations): a plain-text message through the same relay the smtp connector
// sends with (SMTP_URL, its TLS setting and time-out), from alerts@ the bounce domain. Without
// SMTP_URL there is no relay and no operator mail.
import type { Config } from "../../base/runtime/config.js";

export interface OperatorMail {
  /** The sender; alerts@ the bounce domain when left out. */
  from?: string;
  to: string;
  subject: string;
  text: string;
}

/** A sender of operator mail, with close(); undefined when SMTP_URL is not set. */
export function operatorMailer(
  config: Pick<Config, "email">,
): { send(mail: OperatorMail): Promise<void>; close(): void } | undefined {
  const { smtpUrl, smtpTimeoutMs, smtpTlsRejectUnauthorized, bounceDomain } = config.email;
  if (!smtpUrl) return undefined;
  // nodemailer is loaded only where there is a relay (issue 43: not by every thread at start).
  const transport = import("nodemailer").then(({ default: nodemailer }) =>
    nodemailer.createTransport({
      url: smtpUrl,
      connectionTimeout: smtpTimeoutMs,
      greetingTimeout: smtpTimeoutMs,
      socketTimeout: smtpTimeoutMs,
      tls: { rejectUnauthorized: smtpTlsRejectUnauthorized },
      disableFileAccess: true,
      disableUrlAccess: true,
      logger: false,
    }),
  );
  return {
    async send(mail) {
      await (await transport).sendMail({
        from: mail.from ?? `Switchboard alerts <alerts@${bounceDomain}>`,
        to: mail.to,
        subject: mail.subject,
        text: mail.text,
      });
    },
    close: () => void transport.then((made) => made.close()),
  };
}
