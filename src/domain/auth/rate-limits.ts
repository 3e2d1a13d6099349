// Requests per minute per API key. Counters live in memory, or in Redis when REDIS_URL is set
// so that several API processes share them. A key's limit is read from its Principal on
// every request; one limiter exists per distinct limit value, all writing the same Redis
// counter for a key, so a changed limit applies to what the key has already used.
// Redis trouble never fails a request: an in-process insurance limiter answers instead, and
// a warning is logged.
import type { Logger } from "pino";
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from "rate-limiter-flexible";
import type { createClient } from "redis";

/** The window of every limit: `rate_limit` requests per this many seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;
const REDIS_WARNING_INTERVAL_MS = 30_000;
const REDIS_CONNECT_WAIT_MS = 2_000;

/**
 * Loaded only when REDIS_URL is set: node-redis takes ~250 ms to load on a slow machine, in every
 * start and CLI command that would otherwise never use it.
 */
async function newRedisClient(url: string): Promise<RedisClient> {
  const { createClient } = await import("redis");
  return createClient({
    url,
    socket: {
      connectTimeout: REDIS_CONNECT_WAIT_MS,
      reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 5_000),
    },
  });
}

export type RedisClient = ReturnType<typeof createClient>;

export interface RateLimitOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets (and, when refused, until a retry can succeed). */
  resetSeconds: number;
}

export interface RateLimitsOptions {
  logger: Logger;
  /** Counters shared through this client; in memory when absent. */
  redis?: RedisClient;
  /** Prefix of the Redis keys (one deployment, or one test file, per prefix). */
  keyPrefix?: string;
}

export class RateLimits {
  private readonly limiters = new Map<number, RateLimiterAbstract>();
  private readonly keyPrefix: string;
  private lastWarning = 0;

  constructor(private readonly options: RateLimitsOptions) {
    this.keyPrefix = options.keyPrefix ?? "switchboard:rl";
  }

  get shared(): boolean {
    return this.options.redis !== undefined;
  }

  /**
   * Whether Redis answers a PING within `timeoutMs`: `undefined` when the counters live in
   * memory (no REDIS_URL). A client that is reconnecting is down without waiting.
   */
  async redisState(timeoutMs = 1_000): Promise<"ok" | "down" | undefined> {
    const redis = this.options.redis;
    if (!redis) return undefined;
    if (!redis.isReady) return "down";
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"down">((resolve) => {
      timer = setTimeout(() => resolve("down"), timeoutMs);
    });
    try {
      return await Promise.race([redis.ping().then((): "ok" => "ok"), late]);
    } catch {
      return "down";
    } finally {
      clearTimeout(timer);
    }
  }

  /** Counts one request for the key; `undefined` when the key is unlimited (limit 0). */
  async consume(keyId: number, limit: number): Promise<RateLimitOutcome | undefined> {
    if (!Number.isInteger(limit) || limit <= 0) return undefined;
    try {
      const res = await this.limiter(limit).consume(String(keyId));
      return outcome(true, limit, res);
    } catch (error) {
      if (error instanceof RateLimiterRes) return outcome(false, limit, error);
      // Neither Redis nor the insurance limiter answered: let the request through.
      this.warn(error);
      return undefined;
    }
  }

  private limiter(limit: number): RateLimiterAbstract {
    let limiter = this.limiters.get(limit);
    if (limiter) return limiter;
    const common = { points: limit, duration: RATE_LIMIT_WINDOW_SECONDS, keyPrefix: this.keyPrefix };
    const redis = this.options.redis;
    if (redis) {
      limiter = new RateLimiterRedis({
        ...common,
        storeClient: redis,
        useRedisPackage: true,
        // Not connected: count in memory at once rather than queue behind a reconnect.
        rejectIfRedisNotReady: true,
        insuranceLimiter: new WarningMemoryLimiter(common, (error) => this.warn(error)),
      });
    } else {
      limiter = new RateLimiterMemory(common);
    }
    this.limiters.set(limit, limiter);
    return limiter;
  }

  private warn(error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning < REDIS_WARNING_INTERVAL_MS) return;
    this.lastWarning = now;
    this.options.logger.warn(
      { err: error },
      "rate limits: Redis unavailable, counting in this process only until it is back",
    );
  }
}

/** The in-memory stand-in for Redis; says so (at most every 30 s) each time it is used. */
class WarningMemoryLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: (error: unknown) => void,
  ) {
    super(options);
  }

  override consume(key: string | number, points?: number, options?: { [key: string]: unknown }) {
    this.onUse(new Error("Redis connection is not ready or a Redis command failed"));
    return super.consume(key, points, options);
  }
}

function outcome(allowed: boolean, limit: number, res: RateLimiterRes): RateLimitOutcome {
  return {
    allowed,
    limit,
    remaining: Math.max(0, Math.min(limit, res.remainingPoints)),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
  };
}

/**
 * A node-redis client for the counters. Never throws: errors are logged, the client keeps
 * reconnecting, and the limiters count in memory while it is down. Waits briefly for the
 * first connection so a healthy Redis is used from the first request.
 */
export async function connectRateLimitRedis(url: string, logger: Logger): Promise<RedisClient> {
  const client = await newRedisClient(url);
  let lastError = 0;
  client.on("error", (error: unknown) => {
    const now = Date.now();
    if (now - lastError < REDIS_WARNING_INTERVAL_MS) return;
    lastError = now;
    logger.warn({ err: error }, "rate limits: Redis connection error");
  });
  const connecting = client.connect().then(
    () => true,
    (error: unknown) => {
      logger.warn({ err: error }, "rate limits: could not connect to Redis; counting in memory");
      return false;
    },
  );
  let timer: NodeJS.Timeout | undefined;
  const waited = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), REDIS_CONNECT_WAIT_MS);
  });
  await Promise.race([connecting, waited]);
  clearTimeout(timer);
  return client;
}

/** Closes the client whatever its state. */
export async function closeRateLimitRedis(client: RedisClient): Promise<void> {
  try {
    if (client.isReady) await client.quit();
    else if (client.isOpen) client.destroy();
  } catch {
    // Already closed, or the connection broke while quitting: nothing is left to release.
  }
}
