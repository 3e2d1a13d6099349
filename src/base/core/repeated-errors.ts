// The same error over and over (every request and every loop round while the database is down)
// is logged once in full, with its stack; the identical ones that follow within `everyMs` are
// counted, and one line says how many came since ("request failed: 120 more since …"). A key
// with no occurrence for a whole period is over: its next occurrence is logged in full again.
import type { Logger } from "pino";

export interface RepeatedErrorsOptions {
  /** How often a count of the held lines is written while they keep coming (default 30 s). */
  everyMs?: number;
  now?: () => number;
}

interface Held {
  /** When the period whose occurrences are being counted began. */
  since: number;
  count: number;
  /** The last occurrence's error and fields, for the count's line. */
  error: string;
  fields: Record<string, unknown>;
  timer: NodeJS.Timeout;
}

/** Keys held at once beyond which an error is logged in full (a flood of distinct errors is not one flood). */
const MAX_KEYS = 1_000;

type Level = "error" | "warn";

/** The message an error carries, short: what the count's line quotes. */
export function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export class RepeatedErrors {
  private readonly held = new Map<string, Held>();
  private readonly everyMs: number;
  private readonly now: () => number;

  constructor(
    private readonly logger: Pick<Logger, Level>,
    options: RepeatedErrorsOptions = {},
  ) {
    this.everyMs = options.everyMs ?? 30_000;
    this.now = options.now ?? Date.now;
  }

  /**
   * Logs `message` with `error` (its stack) the first time; an identical one (same message, same
   * error text) within the period is counted instead. `logger` overrides the one given at
   * construction for the full line (a request's own, with its request id).
   */
  log(
    level: Level,
    error: unknown,
    message: string,
    fields: Record<string, unknown> = {},
    logger: Pick<Logger, Level> = this.logger,
  ): void {
    const text = errorText(error);
    const key = `${level}\u0000${message}\u0000${text}`;
    const held = this.held.get(key);
    if (held) {
      held.count++;
      held.error = text;
      held.fields = fields;
      return;
    }
    logger[level]({ ...fields, err: error }, message);
    if (this.held.size >= MAX_KEYS) return;
    const entry: Held = { since: this.now(), count: 0, error: text, fields, timer: undefined as never };
    entry.timer = this.schedule(key, level, message, entry);
    this.held.set(key, entry);
  }

  /** Writes what is still held (a shutdown) and stops counting. */
  flush(): void {
    for (const [key, entry] of this.held) {
      clearTimeout(entry.timer);
      this.held.delete(key);
      const [level, message] = key.split("\u0000") as [Level, string];
      this.summarise(level, message, entry);
    }
  }

  private schedule(key: string, level: Level, message: string, entry: Held): NodeJS.Timeout {
    const timer = setTimeout(() => {
      if (entry.count === 0) {
        // A whole period without another: the flood, if there was one, is over.
        this.held.delete(key);
        return;
      }
      this.summarise(level, message, entry);
      entry.since = this.now();
      entry.count = 0;
      entry.timer = this.schedule(key, level, message, entry);
    }, this.everyMs);
    // A count never keeps a process alive that has nothing else to do.
    timer.unref();
    return timer;
  }

  private summarise(level: Level, message: string, entry: Held): void {
    if (entry.count === 0) return;
    const since = new Date(entry.since).toISOString();
    this.logger[level](
      { ...entry.fields, error: entry.error, repeated: entry.count, since },
      `${message}: ${entry.count} more since ${since} (${entry.error})`,
    );
  }
}
