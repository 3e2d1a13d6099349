// The log of refusals as the serving process writes it: record() takes a refused send off the
// request's path in constant time (a few counters and one copy of bounded strings into a
// buffer), and the buffer is written in batches (FLUSH_MS, or at once past FLUSH_ROWS) by the
// writer handed in: on SQLite in `start`, the worker thread, the process's one writer; otherwise
// this store. Bounded three ways, each counted in switchboard_refusals_dropped_total when it
// drops: REFUSAL_LOG_PER_ACCOUNT_PER_MINUTE per account (per source address when the caller is
// unknown), UNAUTHENTICATED_PER_MINUTE_FACTOR × that for all unknown callers together (so
// rotating addresses cannot grow the table either), and MAX_BUFFERED rows waiting. The recipients
// an accepted send went on without (recordLeftOut, a row each) have their own bounds, sized for
// one campaign rather than for retries: LEFT_OUT_PER_ACCOUNT_PER_HOUR rows of an account an hour
// and MAX_BUFFERED_LEFT_OUT waiting.
import type { Insertable } from "kysely";
import type { Clock } from "../../base/core/clock.js";
import type { Metrics } from "../../base/runtime/metrics.js";
import type { RefusalsTable } from "../../base/store/schema.js";

export type NewRefusal = Insertable<RefusalsTable>;
export type RefusalWriter = (rows: NewRefusal[]) => Promise<void>;

/** Which door the send came in by. */
export type RefusalFamily = "v2" | "legacy" | "xml" | "email" | "voice" | "smpp";

/** Who was refused, known before anything else is read (the caps are checked on it alone). */
export interface RefusalHead {
  family: RefusalFamily;
  /** null: the caller was not authenticated (wrong or missing credentials). */
  accountId: number | null;
  /** The client's address; undefined once its connection is gone (a client that reset mid-body). */
  address: string | undefined;
}

/** The address stored, and the rate bucket, of a refusal whose client's address is no longer known. */
export const UNKNOWN_ADDRESS = "unknown";

/** What was asked and answered; built only when the refusal is to be written. */
export interface RefusalDetails {
  operation: string;
  /** The first recipients asked for (more are cut). */
  recipients: readonly string[];
  /** How many the send named, when more than `recipients` holds. */
  recipientCount?: number;
  sender?: string | undefined;
  text?: string | undefined;
  /**
   * The username the request logged in with (a password login; SMPP: the bind's system_id), so a
   * refused login is found by it.
   */
  username?: string | undefined;
  httpStatus: number | null;
  code: string;
  answer: string;
  reason: string;
  requestId: string;
  /** The short wallet's words and its level: 0 the account's own, 1 and up an ancestor's (decisions 0158, 0192). */
  upline?: { reason: string; level: number } | undefined;
}

/** A recipient an accepted send went on without: its number as asked, and why (the refusal it alone would get). */
export interface LeftOutRecipient {
  recipient: string;
  code: string;
  reason: string;
  /** What the family said of it: `dnd_blocked` in a bulk answer, `0x0000000B` in submit_multi_resp; else the send's answer. */
  answer?: string;
}

/** An accepted send's recipients left out (DND, opted out, invalid, twice), one refusal row each. */
export interface LeftOutSend {
  broadcastId: string;
  jobId?: number | undefined;
  operation: string;
  sender?: string | undefined;
  text?: string | undefined;
  /** The username the send logged in with, as RefusalDetails.username: each row keeps it. */
  username?: string | undefined;
  httpStatus: number | null;
  /** The send's answer as the family wrote it (the broadcast id; `200`, followed by each one's code when `answerNamesCode`). */
  answer: string;
  answerNamesCode?: boolean;
  requestId: string;
  recipients: readonly LeftOutRecipient[];
}

/** What record() takes: the log, or nothing (a process that serves no sends). */
export interface RefusalRecorder {
  record(head: RefusalHead, details: () => RefusalDetails): void;
  recordLeftOut(head: RefusalHead & { accountId: number }, send: LeftOutSend): void;
}

/** The first recipients kept of a send to many (all are counted). */
export const REFUSAL_RECIPIENTS = 10;
/** Characters of the message text kept. */
export const REFUSAL_TEXT_CHARS = 160;
const MAX_BUFFERED = 10_000;
const FLUSH_MS = 250;
const FLUSH_ROWS = 500;
const UNAUTHENTICATED_PER_MINUTE_FACTOR = 10;
/** Left-out recipients written an hour per account: two bulk calls of 100,000 left out whole. */
export const LEFT_OUT_PER_ACCOUNT_PER_HOUR = 200_000;
const MAX_BUFFERED_LEFT_OUT = 200_000;

export interface RefusalLogDeps {
  clock: Clock;
  metrics: Pick<Metrics, "refusalsRecorded" | "refusalsDropped">;
  logger: { warn(details: object, message: string): void };
  config: { refusalLogDays: number; refusalLogPerAccountPerMinute: number };
}

const cut = (value: string | undefined, chars: number): string | null =>
  value === undefined || value === "" ? null : value.length > chars ? value.slice(0, chars) : value;

export class RefusalLog implements RefusalRecorder {
  private buffer: NewRefusal[] = [];
  /** Rows of the buffer that are left-out recipients (bounded apart from the refusals). */
  private leftOutBuffered = 0;
  private hour = -1;
  private readonly leftOutCounts = new Map<number, number>();
  private minute = -1;
  /** Refusals taken this minute per account (`a<id>`) or unknown caller's address (`ip<address>`). */
  private readonly counts = new Map<string, number>();
  private unauthenticated = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private soon = false;

  constructor(
    private readonly deps: RefusalLogDeps,
    private readonly writer: RefusalWriter,
  ) {}

  record(head: RefusalHead, details: () => RefusalDetails): void {
    const { config, metrics } = this.deps;
    if (config.refusalLogDays === 0) return;
    const now = this.deps.clock.now().getTime();
    const minute = Math.floor(now / 60_000);
    if (minute !== this.minute) {
      this.minute = minute;
      this.counts.clear();
      this.unauthenticated = 0;
    }
    const cap = config.refusalLogPerAccountPerMinute;
    const key = head.accountId === null ? `ip${head.address ?? UNKNOWN_ADDRESS}` : `a${head.accountId}`;
    const taken = this.counts.get(key) ?? 0;
    if (taken >= cap) {
      this.drop("per_minute");
      return;
    }
    if (head.accountId === null && this.unauthenticated >= cap * UNAUTHENTICATED_PER_MINUTE_FACTOR) {
      this.drop("unauthenticated");
      return;
    }
    if (this.buffer.length - this.leftOutBuffered >= MAX_BUFFERED) {
      this.drop("buffer_full");
      return;
    }
    this.counts.set(key, taken + 1);
    if (head.accountId === null) this.unauthenticated++;
    let asked: RefusalDetails;
    try {
      asked = details();
    } catch (error) {
      this.deps.logger.warn({ err: error }, "a refusal could not be described; not logged");
      this.drop("write_failed");
      return;
    }
    const recipients = asked.recipients
      .slice(0, REFUSAL_RECIPIENTS)
      .map((r) => r.slice(0, 320).replaceAll(",", " "))
      .filter((r) => r !== "");
    this.buffer.push({
      account_id: head.accountId,
      family: head.family,
      operation: asked.operation.slice(0, 200),
      recipients: recipients.length > 0 ? recipients.join(",") : null,
      recipient_count: Math.max(asked.recipientCount ?? 0, asked.recipients.length),
      sender: cut(asked.sender, 64),
      text: cut(asked.text, REFUSAL_TEXT_CHARS),
      username: cut(asked.username, 64),
      http_status: asked.httpStatus,
      code: asked.code.slice(0, 64),
      answer: asked.answer.slice(0, 100),
      reason: asked.reason.slice(0, 500),
      request_id: asked.requestId.slice(0, 100),
      address: (head.address ?? UNKNOWN_ADDRESS).slice(0, 100),
      created_at: now,
      recipient_key: null,
      broadcast_id: null,
      job_id: null,
      upline_reason: asked.upline ? asked.upline.reason.slice(0, 500) : null,
      upline_level: asked.upline?.level ?? null,
    });
    metrics.refusalsRecorded.inc({ family: head.family });
    this.schedule();
  }

  /**
   * Buffers a row per recipient left out of an accepted send, as many as the account's hourly
   * budget and the buffer take (the rest counted as dropped); the rows share the send's strings.
   */
  recordLeftOut(head: RefusalHead & { accountId: number }, send: LeftOutSend): void {
    const { config, metrics } = this.deps;
    if (config.refusalLogDays === 0 || send.recipients.length === 0) return;
    const now = this.deps.clock.now().getTime();
    const hour = Math.floor(now / 3_600_000);
    if (hour !== this.hour) {
      this.hour = hour;
      this.leftOutCounts.clear();
    }
    const taken = this.leftOutCounts.get(head.accountId) ?? 0;
    const room = Math.min(LEFT_OUT_PER_ACCOUNT_PER_HOUR - taken, MAX_BUFFERED_LEFT_OUT - this.leftOutBuffered);
    const take = Math.max(0, Math.min(room, send.recipients.length));
    if (take < send.recipients.length) {
      const reason =
        LEFT_OUT_PER_ACCOUNT_PER_HOUR - taken < send.recipients.length ? "left_out_per_hour" : "buffer_full";
      metrics.refusalsDropped.inc({ reason }, send.recipients.length - take);
    }
    if (take === 0) return;
    this.leftOutCounts.set(head.accountId, taken + take);
    const operation = send.operation.slice(0, 200);
    const sender = cut(send.sender, 64);
    const text = cut(send.text, REFUSAL_TEXT_CHARS);
    const username = cut(send.username, 64);
    const answer = send.answer.slice(0, 100);
    const requestId = send.requestId.slice(0, 100);
    const address = (head.address ?? UNKNOWN_ADDRESS).slice(0, 100);
    const broadcastId = send.broadcastId.slice(0, 100);
    const jobId = send.jobId ?? null;
    // One literal of the same shape per row: a campaign's 30,000 cost milliseconds, not a spread each.
    for (let i = 0; i < take; i++) {
      const left = send.recipients[i]!;
      const recipient = left.recipient.length > 320 ? left.recipient.slice(0, 320) : left.recipient;
      this.buffer.push({
        account_id: head.accountId,
        family: head.family,
        operation,
        recipients: recipient.includes(",") ? recipient.replaceAll(",", " ") : recipient || null,
        recipient_count: 1,
        sender,
        text,
        // The login name too, as a refused send's row keeps it: the operator's username= finds both.
        username,
        http_status: send.httpStatus,
        code: left.code.length > 64 ? left.code.slice(0, 64) : left.code,
        answer:
          left.answer !== undefined
            ? left.answer.slice(0, 100)
            : send.answerNamesCode
              ? `${answer} ${left.code}`.slice(0, 100)
              : answer,
        reason: left.reason.length > 500 ? left.reason.slice(0, 500) : left.reason,
        request_id: requestId,
        address,
        created_at: now,
        recipient_key: null,
        broadcast_id: broadcastId,
        job_id: jobId,
        // Every row has every column: SQLite's batch insert names the first row's.
        upline_reason: null,
        upline_level: null,
      });
    }
    this.leftOutBuffered += take;
    metrics.refusalsRecorded.inc({ family: head.family }, take);
    this.schedule();
  }

  private schedule(): void {
    if (this.buffer.length >= FLUSH_ROWS && !this.soon) {
      // Once per full batch, not once per refusal past it.
      this.soon = true;
      setImmediate(() => {
        this.soon = false;
        void this.flush();
      });
    } else this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes what is buffered (after the write in progress); resolves once it is written or dropped. */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.writing) await this.writing;
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.leftOutBuffered = 0;
    this.writing = this.writer(rows)
      .catch((error: unknown) => {
        this.deps.logger.warn({ err: error, rows: rows.length }, "refusals could not be written; dropped");
        this.deps.metrics.refusalsDropped.inc({ reason: "write_failed" }, rows.length);
      })
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
    if (this.buffer.length > 0 && !this.timer) this.timer = setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  private drop(reason: string): void {
    this.deps.metrics.refusalsDropped.inc({ reason });
  }
}
