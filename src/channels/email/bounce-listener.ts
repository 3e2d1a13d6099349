// The SMTP listener that takes bounces back: mail for the bounce domain (EMAIL_BOUNCE_DOMAIN,
// whose MX points here) is read as a DSN, and each failed recipient of ours goes to onBounce.
// The sending server gets its 250 only once every bounce is stored, a 451 (try later) when one
// could not be. Delayed, relayed and delivered reports and mail that is no DSN are taken and
// dropped: answering them with an error would only make the sender retry them.
import type { Logger } from "pino";
import type { SMTPServerDataStream } from "smtp-server";
import { type Bounce, parseDsn } from "./bounces.js";
import { domainOf } from "./content.js";

export interface BounceListenerOptions {
  port: number;
  host?: string;
  bounceDomain: string;
  onBounce: (bounce: Bounce) => Promise<void>;
  logger: Logger;
  /** Largest message taken, advertised with SIZE (default 10 MiB). */
  maxBytes?: number;
}

export interface BounceListener {
  port: number;
  close(): Promise<void>;
}

function smtpError(responseCode: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode });
}

/** The message, or as much of it as `maxBytes` allows (the rest is read and dropped). */
async function readAtMost(stream: SMTPServerDataStream, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = chunk as Buffer;
    if (size + bytes.length <= maxBytes) chunks.push(bytes);
    size += bytes.length;
  }
  return Buffer.concat(chunks);
}

export async function startBounceListener(options: BounceListenerOptions): Promise<BounceListener> {
  const { bounceDomain, logger } = options;
  const maxBytes = options.maxBytes ?? 10 * 1024 * 1024;
  // Loaded when a bounce listener starts (BOUNCE_SMTP_PORT), not by every start and CLI command.
  const { SMTPServer } = await import("smtp-server");
  const server = new SMTPServer({
    banner: "Switchboard bounce listener",
    authOptional: true,
    // No certificate of our own to offer: STARTTLS would present smtp-server's public test key.
    disabledCommands: ["AUTH", "STARTTLS"],
    size: maxBytes,
    maxClients: 100,
    logger: false,
    onRcptTo(address, _session, callback) {
      if (domainOf(address.address) === bounceDomain.toLowerCase()) return callback();
      callback(smtpError(550, `5.7.1 <${address.address}>: only mail for ${bounceDomain} is taken here`));
    },
    onData(stream, session, callback) {
      const envelopeTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      readAtMost(stream, maxBytes)
        .then(async (raw) => {
          if (stream.sizeExceeded) return callback(smtpError(552, `5.3.4 Message larger than ${maxBytes} bytes`));
          let bounces: Bounce[];
          try {
            bounces = await parseDsn(raw, { bounceDomain, envelopeTo });
          } catch (error) {
            logger.warn({ err: error, envelopeTo }, "mail to the bounce domain could not be read as a DSN; dropped");
            return callback();
          }
          const failed = bounces.filter((bounce) => bounce.action === "failed");
          if (failed.length === 0) logger.info({ envelopeTo }, "mail to the bounce domain reports no failure of ours");
          for (const bounce of failed) await options.onBounce(bounce);
          callback();
        })
        .catch((error: unknown) => {
          logger.error({ err: error, envelopeTo }, "a bounce could not be stored; the sender will retry it");
          callback(smtpError(451, "4.3.0 Bounce not stored, try again later"));
        });
    },
  });
  server.on("error", (error) => logger.warn({ err: error }, "bounce listener connection error"));
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(options.port, options.host ?? "0.0.0.0", () => {
      server.server.off("error", reject);
      resolve();
    });
  });
  const address = server.server.address();
  return {
    port: typeof address === "object" && address ? address.port : options.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
