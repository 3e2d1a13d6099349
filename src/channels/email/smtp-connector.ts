// The smtp connector: each recipient's message goes to the relay in SMTP_URL in its own
// transaction (one RCPT TO), over a pool of kept-open connections, with STARTTLS when the
// relay offers it. The relay's 250 is the end of our part: the message is reported delivered
// at once, and a later bounce comes back to the bounce listener.
//
// A 5xx to the recipient or to the message is final (failed, refunded); a 4xx, a connection
// that fails or stalls, and a broken login are tried again by the dispatcher.
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { MessageRow } from "../../base/store/schema.js";
import { type Connector, DEFERRED, type SubmitResult } from "../../delivery/dispatch/index.js";
import type { DeliveryReport } from "../../domain/messages/index.js";
import { contentsOfRows, type EmailContent, type EmailContentCache } from "./content.js";
import { buildMessage, type Tracker } from "./mime.js";

export const SMTP_CONNECTOR = "smtp";

/**
 * New messages start only this long into a batch, so a batch returns well inside the
 * dispatcher's lease (another worker would otherwise claim and send it again); the rest go
 * back to the queue.
 */
const START_WINDOW_MS = 4_000;

export interface SmtpConnectorOptions {
  /** smtp://user:password@host:587 or smtps://user:password@host:465. */
  url: string;
  poolSize: number;
  /** Connection, greeting and inactivity time-out of the SMTP conversation. */
  timeoutMs: number;
  bounceDomain: string;
  contents: EmailContentCache;
  tracker: Tracker | undefined;
  logger: Logger;
  /** False accepts any certificate from the relay: tests against a relay with a self-signed one. */
  tlsRejectUnauthorized?: boolean;
  /** How long into a batch new messages may start (default START_WINDOW_MS). */
  startWindowMs?: number;
  now?: () => number;
}

interface SmtpError {
  code?: string;
  response?: string;
  responseCode?: number;
  command?: string;
  message?: string;
}

export class SmtpConnector implements Connector {
  readonly name = SMTP_CONNECTOR;
  readonly channel = "email";
  // nodemailer is loaded by the thread that makes an smtp connector, not by every thread at start.
  private readonly transport: Promise<Transporter>;
  private sink: ((reports: DeliveryReport[]) => void) | undefined;
  private readonly now: () => number;

  constructor(private readonly options: SmtpConnectorOptions) {
    this.now = options.now ?? Date.now;
    this.transport = import("nodemailer").then(({ default: nodemailer }) =>
      nodemailer.createTransport({
        url: options.url,
        pool: true,
        maxConnections: options.poolSize,
        connectionTimeout: options.timeoutMs,
        greetingTimeout: options.timeoutMs,
        socketTimeout: options.timeoutMs,
        tls: { rejectUnauthorized: options.tlsRejectUnauthorized ?? true },
        disableFileAccess: true,
        disableUrlAccess: true,
        logger: false,
      }),
    );
  }

  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.sink = sink;
  }

  /** Checks the relay in the background: a relay that is down or refuses the login is logged, not fatal. */
  async start(): Promise<void> {
    (await this.transport).verify().then(
      () => this.options.logger.info("the SMTP relay answered and accepted the login"),
      (error: unknown) =>
        this.options.logger.warn(
          { err: error },
          "the SMTP relay could not be reached or refused the login; email waits in the queue until it can (check SMTP_URL)",
        ),
    );
  }

  async stop(): Promise<void> {
    (await this.transport).close();
  }

  async submit(rows: MessageRow[]): Promise<SubmitResult[]> {
    const started = this.now();
    const contents = await contentsOfRows(this.options.contents, rows);
    const results: SubmitResult[] = new Array(rows.length);
    const reports: DeliveryReport[] = [];
    let next = 0;
    const lane = async () => {
      while (next < rows.length) {
        const index = next++;
        const item = contents[index]!;
        if ("failure" in item) {
          results[index] = item.failure;
        } else if (this.now() - started > (this.options.startWindowMs ?? START_WINDOW_MS)) {
          results[index] = DEFERRED;
        } else {
          const result = await this.send(rows[index]!, item.content);
          results[index] = result;
          if (result.ok)
            reports.push({ connector: this.name, upstreamId: result.upstreamId, status: "delivered", at: this.now() });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.options.poolSize, rows.length) }, lane));
    if (reports.length > 0) this.sink?.(reports);
    return results;
  }

  private async send(row: MessageRow, content: EmailContent): Promise<SubmitResult> {
    const { bounceDomain, tracker } = this.options;
    try {
      const message = await buildMessage(content, row.id, row.recipient, { bounceDomain, tracker });
      const info = (await (await this.transport).sendMail(message)) as { response?: string };
      return { ok: true, upstreamId: relayQueueId(info.response) ?? `${row.id}@${bounceDomain}` };
    } catch (error) {
      return this.failure(error as SmtpError);
    }
  }

  private failure(error: SmtpError): SubmitResult {
    const reply = (error.response ?? error.message ?? String(error)).replace(/\s+/g, " ").slice(0, 500);
    const code = error.responseCode;
    if (error.code === "EAUTH") {
      this.options.logger.error({ reply }, "the SMTP relay refused the login; check the user and password in SMTP_URL");
      return { ok: false, retryable: true, code: "smtp_temporary", message: `Login refused: ${reply}` };
    }
    if (code !== undefined && code >= 500) return { ok: false, retryable: false, code: "bounced", message: reply };
    if (code === undefined && error.command === "API" && (error.code === "EENVELOPE" || error.code === "EMESSAGE")) {
      // nodemailer refused before sending: an address it cannot use, or a message over the relay's SIZE.
      return { ok: false, retryable: false, code: "rejected", message: reply };
    }
    const what = code === undefined ? `${error.code ?? "error"}: ${reply}` : reply;
    return { ok: false, retryable: true, code: "smtp_temporary", message: what.slice(0, 500) };
  }
}

/**
 * The relay's id for the message from its 250 answer: Postfix and smtp-server's "queued as X",
 * Exim's "id=X". Others (or none) fall back to our Message-ID.
 */
export function relayQueueId(response: string | undefined): string | undefined {
  if (!response) return undefined;
  const match =
    /\bqueued as ([A-Za-z0-9][A-Za-z0-9._-]{2,})/i.exec(response) ??
    /\bid=([A-Za-z0-9][A-Za-z0-9._-]{2,})/.exec(response);
  return match?.[1];
}
