// The simulated relay, email's default connector: every message is composed exactly as the
// smtp connector would send it (MIME, DKIM, tracking) and kept in `email_captured`, an inbox
// the operator reads, then reported delivered. Magic recipients make tests deterministic:
//   local part ending in +bounce (user+bounce@example.com) → refused with a 550 (failed, refunded)
//   local part ending in +defer  → the first attempt gets a 451 (retried), the next is taken
import type { Transporter } from "nodemailer";
import type { Logger } from "pino";
import type { EmailCapturedTable, MessageRow } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import type { Connector, SubmitResult } from "../../delivery/dispatch/index.js";
import type { DeliveryReport } from "../../domain/messages/index.js";
import { contentsOfRows, type EmailContentCache } from "./content.js";
import { buildMessage, type Tracker } from "./mime.js";

export const EMAIL_SIMULATOR_CONNECTOR = "email-simulator";

export interface EmailSimulatorOptions {
  db: Db;
  contents: EmailContentCache;
  bounceDomain: string;
  tracker: Tracker | undefined;
  logger: Logger;
  now?: () => number;
}

type Captured = Omit<EmailCapturedTable, "id">;

function localPartOf(address: string): string {
  return address.slice(0, address.lastIndexOf("@")).toLowerCase();
}

export class EmailSimulator implements Connector {
  readonly name = EMAIL_SIMULATOR_CONNECTOR;
  readonly channel = "email";
  private sink: ((reports: DeliveryReport[]) => void) | undefined;
  // Made at the first email, and nodemailer loaded then: a gateway that sends none never loads it
  // (about 3 MB of each thread's heap; issue 43).
  private composer: Promise<Transporter> | undefined;
  private readonly now: () => number;

  constructor(private readonly options: EmailSimulatorOptions) {
    this.now = options.now ?? Date.now;
  }

  onReports(sink: (reports: DeliveryReport[]) => void): void {
    this.sink = sink;
  }

  async submit(rows: MessageRow[]): Promise<SubmitResult[]> {
    const contents = await contentsOfRows(this.options.contents, rows);
    const results: SubmitResult[] = new Array(rows.length);
    const captured: { index: number; row: Captured }[] = [];
    await Promise.all(
      rows.map(async (row, index) => {
        const item = contents[index]!;
        if ("failure" in item) {
          results[index] = item.failure;
          return;
        }
        const refusal = this.refusal(row);
        if (refusal) {
          results[index] = refusal;
          return;
        }
        const { bounceDomain, tracker } = this.options;
        const message = await buildMessage(item.content, row.id, row.recipient, {
          bounceDomain,
          tracker,
          date: new Date(this.now()),
        });
        try {
          this.composer ??= import("nodemailer").then(({ default: nodemailer }) =>
            nodemailer.createTransport({ streamTransport: true, buffer: true, newline: "windows" }),
          );
          const info = (await (await this.composer).sendMail(message)) as {
            message: Buffer;
            envelope: { from: string };
          };
          captured.push({
            index,
            row: {
              message_id: row.id,
              account_id: row.account_id,
              envelope_from: info.envelope.from,
              recipient: row.recipient,
              subject: item.content.subject,
              raw: info.message.toString("utf8"),
              created_at: this.now(),
            },
          });
        } catch (error) {
          this.options.logger.error({ err: error, message: row.id }, "composing a simulated email failed");
          results[index] = { ok: false, retryable: true, code: "compose_failed", message: String(error) };
        }
      }),
    );
    await this.store(captured, rows, results);
    return results;
  }

  private refusal(row: MessageRow): SubmitResult | undefined {
    const local = localPartOf(row.recipient);
    if (local.endsWith("+bounce")) {
      return {
        ok: false,
        retryable: false,
        code: "bounced",
        message: `550 5.1.1 <${row.recipient}>: Recipient address rejected (simulated)`,
      };
    }
    if (local.endsWith("+defer") && row.attempts <= 1) {
      return {
        ok: false,
        retryable: true,
        code: "smtp_temporary",
        message: `451 4.7.1 <${row.recipient}>: Try again later (simulated)`,
      };
    }
    return undefined;
  }

  private async store(
    captured: { index: number; row: Captured }[],
    rows: MessageRow[],
    results: SubmitResult[],
  ): Promise<void> {
    if (captured.length === 0) return;
    try {
      for (let i = 0; i < captured.length; i += 200) {
        await this.options.db
          .insertInto("email_captured")
          .values(captured.slice(i, i + 200).map((c) => c.row))
          .execute();
      }
    } catch (error) {
      const failure: SubmitResult = {
        ok: false,
        retryable: true,
        code: "capture_failed",
        message: `Could not store the simulated email: ${error instanceof Error ? error.message : String(error)}`,
      };
      for (const { index } of captured) results[index] = failure;
      return;
    }
    const at = this.now();
    const reports: DeliveryReport[] = [];
    for (const { index } of captured) {
      const upstreamId = `${rows[index]!.id}@${this.options.bounceDomain}`;
      results[index] = { ok: true, upstreamId };
      reports.push({ connector: this.name, upstreamId, status: "delivered", at });
    }
    this.sink?.(reports);
  }
}

export interface CapturedSummary {
  id: number;
  message_id: string;
  account_id: number;
  envelope_from: string;
  recipient: string;
  subject: string;
  created_at: number;
}

export type CapturedEmail = CapturedSummary & { raw: string };

/**
 * The simulator's inbox, newest first, without the raw source: of one account or of all.
 * `beforeId` pages back; `afterId` asks for what arrived since.
 */
export async function listCaptured(
  db: Db,
  accountId: number | undefined,
  options: { limit?: number; beforeId?: number | undefined; afterId?: number | undefined } = {},
): Promise<CapturedSummary[]> {
  let query = db
    .selectFrom("email_captured")
    .select(["id", "message_id", "account_id", "envelope_from", "recipient", "subject", "created_at"])
    .orderBy("id", "desc")
    .limit(Math.min(Math.max(options.limit ?? 50, 1), 500));
  if (accountId !== undefined) query = query.where("account_id", "=", accountId);
  if (options.beforeId !== undefined) query = query.where("id", "<", options.beforeId);
  if (options.afterId !== undefined) query = query.where("id", ">", options.afterId);
  return query.execute();
}

/** One captured message with its raw source (RFC 5322), or undefined. */
export async function getCaptured(db: Db, id: number): Promise<CapturedEmail | undefined> {
  return db.selectFrom("email_captured").selectAll().where("id", "=", id).executeTakeFirst();
}
