// Warnings about something that repeats (a carrier refusing messages, a webhook endpoint
// failing, one address failing to authenticate) are logged once per episode, not once per
// occurrence: a flood of failures must not flood the log. An episode ends when its condition
// clears (a success) or after `quietMs` without an occurrence; the next occurrence opens a new one.
import type { Logger } from "pino";

export interface EpisodeOptions {
  /** An episode with no occurrence for this long is over. */
  quietMs: number;
  /** Occurrences within one episode before it is worth a warning (default 1: the first). */
  threshold?: number;
  now?: () => number;
}

interface Episode {
  count: number;
  first: number;
  last: number;
  warned: boolean;
}

/** Episodes open at once beyond which the quiet ones are forgotten (an address scan opens many). */
const MAX_OPEN = 10_000;

export class EpisodeLog {
  private readonly open = new Map<string, Episode>();
  private readonly now: () => number;

  constructor(
    private readonly logger: Pick<Logger, "warn" | "info">,
    private readonly options: EpisodeOptions,
  ) {
    this.now = options.now ?? Date.now;
  }

  /** One more occurrence of `key`; warns with `message` when it makes the episode's threshold. */
  occurred(key: string, message: string, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    let episode = this.open.get(key);
    if (episode && now - episode.last > this.options.quietMs) episode = undefined;
    if (!episode) {
      if (this.open.size >= MAX_OPEN) this.forgetQuiet(now);
      episode = { count: 0, first: now, last: now, warned: false };
      this.open.set(key, episode);
    }
    episode.count++;
    episode.last = now;
    if (!episode.warned && episode.count >= (this.options.threshold ?? 1)) {
      episode.warned = true;
      this.logger.warn({ ...fields, occurrences: episode.count }, message);
    }
  }

  /**
   * The condition of `key` cleared: an episode that was warned about says how long it lasted.
   * Answers whether it was (the condition had lasted past the threshold).
   */
  ended(key: string, message: string, fields: Record<string, unknown> = {}): boolean {
    const episode = this.open.get(key);
    if (!episode) return false;
    this.open.delete(key);
    if (!episode.warned) return false;
    this.logger.info(
      { ...fields, occurrences: episode.count, lasted_seconds: Math.round((this.now() - episode.first) / 1000) },
      message,
    );
    return true;
  }

  private forgetQuiet(now: number): void {
    for (const [key, episode] of this.open) {
      if (now - episode.last > this.options.quietMs) this.open.delete(key);
    }
    // Still full: a flood of distinct keys; the oldest are dropped (they may warn again later).
    for (const key of this.open.keys()) {
      if (this.open.size < MAX_OPEN) break;
      this.open.delete(key);
    }
  }
}
