// The environment variables Switchboard reads: for each, where loadConfig puts it in Config, what
// it means, its default (as written in the environment, here only) and its parser. The README's
// table and every configuration error quote describeSetting; test/app/config.test.ts holds the
// README to it.
import os from "node:os";
import {
  bearerToken,
  dailyWindow,
  databaseUrl,
  flag,
  httpUrl,
  map,
  oneOf,
  optOutWords,
  proxyAddresses,
  ratio,
  redisUrl,
  refundReasons,
  type SettingSpec,
  shortLinkBase,
  text,
  timeZone,
  wholeNumber,
} from "./config-values.js";
import { CHANNEL_SETTINGS } from "./settings-channels.js";
import { DLT_SETTINGS } from "./settings-dlt.js";
import { HTTP_SETTINGS } from "./settings-http.js";

const MiB = 1024 * 1024;

export const SETTINGS = {
  PORT: {
    field: "port",
    description: "HTTP port to listen on; 0 picks a free port.",
    default: "8080",
    parser: wholeNumber(0, 65535),
  },
  HOST: {
    field: "host",
    description: "Address to bind; use 0.0.0.0 to serve other machines.",
    default: "127.0.0.1",
    parser: text,
  },
  TRUST_PROXY: {
    field: "trustProxy",
    description:
      "Optional comma-separated addresses or CIDR ranges of the reverse proxies in front of the HTTP port (e.g. 127.0.0.1,10.0.0.0/8; or loopback, linklocal, uniquelocal). A request from one of them is taken to come from the client that X-Forwarded-For names (login locks, logs) over the scheme X-Forwarded-Proto names (https: the console's cookie is Secure); from any other address those headers are ignored. Unset: no proxy is trusted. SMPP is not affected. See docs/deployment.md.",
    parser: proxyAddresses,
  },
  ...HTTP_SETTINGS,
  DATABASE_URL: {
    field: "database",
    description:
      "Where data lives. `sqlite:/path/file.db` picks a SQLite file (a relative path is resolved against the directory the process starts in); `postgres://user@host:5432/db` selects PostgreSQL.",
    default: "sqlite:./data/switchboard.db",
    parser: databaseUrl,
  },
  REDIS_URL: {
    field: "redisUrl",
    description:
      "Optional redis://host:6379. When set, rate-limit counters are shared between processes; unset, each process counts in its own memory.",
    parser: redisUrl,
  },
  REDIS_REQUIRED: {
    field: "redisRequired",
    description:
      "1 or true: /readyz answers 503 while Redis does not answer. Otherwise, while Redis is away, each API process counts rate limits in its own memory and stays ready (docs/api.md, Rate limits).",
    default: "0",
    parser: flag,
  },
  SHUTDOWN_TIMEOUT_SECONDS: {
    field: "shutdownTimeoutSeconds",
    description:
      "Seconds a SIGTERM (or SIGINT, or SIGHUP) waits for requests in flight, the dispatcher's batch in hand, webhook posts and carrier answers before the process exits anyway with code 1 (what it had claimed is claimable again when its connection closes); keep a supervisor's stop timeout above it.",
    default: "30",
    parser: wholeNumber(1, 3600),
  },
  LOG_LEVEL: {
    field: "logLevel",
    description: "fatal, error, warn, info (one line per request, and what the workers do), debug, trace or silent.",
    default: "info",
    parser: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"]),
  },
  LOG_FORMAT: {
    field: "logFormat",
    description: "auto (readable colour lines when stdout is a terminal, JSON lines otherwise), json or pretty.",
    default: "auto",
    parser: oneOf(["auto", "json", "pretty"]),
  },
  METRICS_TOKEN: {
    field: "metricsToken",
    description:
      "Optional token that /metrics then requires as Authorization: Bearer <token> (401 without it); unset, whoever reaches the HTTP port reads /metrics.",
    parser: bearerToken,
  },
  SQLITE_SYNCHRONOUS: {
    field: "sqliteSynchronous",
    description: "FULL (durable across power loss) or NORMAL (durable across process crashes only).",
    default: "FULL",
    parser: oneOf(["FULL", "NORMAL"], { anyCase: true }),
  },
  SQLITE_CACHE_MB: {
    field: "sqliteCacheMb",
    description:
      "SQLite: the page cache of each connection to the file, in MiB (a start opens two). The pages a send touches stay in 8; more keeps more of a large file's indexes in the process instead of the OS's cache, at that much memory each.",
    default: "8",
    parser: wholeNumber(1, 4096),
  },
  PG_PREPARED_STATEMENTS: {
    field: "pgPreparedStatements",
    description:
      "PostgreSQL: 1 or true runs the hot statements as named prepared statements (parsed once per connection, generic plans where PostgreSQL finds them cheaper; each connection plans them again every 10 s). 0 behind a connection pooler that cannot keep prepared statements (PgBouncer's transaction pooling before 1.21, without max_prepared_statements).",
    default: "1",
    parser: flag,
  },
  PG_PIPELINE: {
    field: "pgPipeline",
    description:
      "PostgreSQL: 1 or true writes a transaction's BEGIN, and the inserts whose answer is not read, without waiting for their answers, so the statement after each shares its round trip (their errors still fail the transaction). 0 waits for every answer (a pooler or proxy that cannot take pipelined queries).",
    default: "1",
    parser: flag,
  },
  SWITCHBOARD_THREADS: {
    field: "threads",
    description:
      "Most threads a start process uses, 1 or 2. 2: HTTP is served on one; dispatch, delivery reports, webhooks and (SQLite) the commits of accepted sends run on the other, so an fsync never stops the loop that answers requests. 1: everything on one event loop.",
    default: {
      shown: "2 on a machine with 2 or more cores, else 1",
      raw: () => String(Math.min(2, os.availableParallelism())),
    },
    parser: map(oneOf(["1", "2"]), Number),
  },
  SWITCHBOARD_SQL_PROFILE: {
    // The SQLite store reads it when it opens (store/sqlite-store.ts); a diagnostic, compared with "1" only.
    field: null,
    description:
      "Diagnostics: 1 makes a SQLite gateway print its 15 most expensive statements (total time, calls) on exit.",
  },
  SWITCHBOARD_FAULT_WORKER_THREAD_EXIT: {
    // The worker thread reads it (app/worker-thread.ts); fault injection for the crash tests only.
    field: null,
    description:
      "Fault injection (tests): N > 0 makes the worker thread of a start process end right after the commit that accepted its Nth send, before that group is answered; the process then exits with 70, as when the thread dies of a fault.",
  },
  PASSWORD_CACHE_SECONDS: {
    field: "passwordCacheSeconds",
    description: "How long a verified username+password pair is remembered in memory; 0 disables.",
    default: "300",
    parser: wholeNumber(0, 86400),
  },
  LOGIN_LOCK_THRESHOLD: {
    field: "loginLockThreshold",
    description:
      "Failed password logins in a row from one source address that lock that address out of the account (others still log in); 0 never locks.",
    default: "10",
    parser: wholeNumber(0, 1000),
  },
  LOGIN_LOCK_MINUTES: {
    field: "loginLockMinutes",
    description: "How long a locked address or account stays locked.",
    default: "15",
    parser: wholeNumber(1, 10080),
  },
  LOGIN_LOCK_ADDRESSES: {
    field: "loginLockAddresses",
    description:
      "Source addresses locked out of one account at the same time that lock the whole account (a guess spread over many machines), which is also locked after LOGIN_LOCK_THRESHOLD × this many failed logins from any addresses in a lock period; 0 never locks the whole account.",
    default: "10",
    parser: wholeNumber(0, 100000),
  },
  MESSAGE_RETENTION_DAYS: {
    field: "messageRetentionDays",
    description:
      "Messages accepted this many days ago or more whose life is over (delivered, failed, cancelled, read) are removed by housekeeping in small batches, with their parts, email events and contents, and finished webhook deliveries; the ledger and the delivery rollups keep their entries and counts. 0 keeps everything.",
    default: "0",
    parser: wholeNumber(0, 36500),
  },
  REFUSAL_LOG_DAYS: {
    field: "refusalLogDays",
    description:
      "Days the log of refused sends (GET /api/v2/refusals, /admin/api/refusals) keeps a refusal; housekeeping removes older ones in small batches. 0 turns the log off (nothing is written).",
    default: "30",
    parser: wholeNumber(0, 3650),
  },
  REFUSAL_LOG_PER_ACCOUNT_PER_MINUTE: {
    field: "refusalLogPerAccountPerMinute",
    description:
      "Refusals written to the log per account (and per source address for unauthenticated requests) in a clock minute; the rest are counted in switchboard_refusals_dropped_total and not written, so a flood of bad requests cannot grow the table or the process without bound.",
    default: "60",
    parser: wholeNumber(1, 100000),
  },
  ALERT_CHECK_SECONDS: {
    field: "alertCheckSeconds",
    description:
      "How often the worker role evaluates the operator's alerts (low balance, connector down, webhook endpoint failing, delivery rate; GET|PUT /admin/api/alerts): an alert is raised or cleared at most this long after its condition starts or ends.",
    default: "15",
    parser: wholeNumber(1, 3600),
  },
  PROMO_HOURS: {
    field: "promoHours",
    description:
      "Promotional SMS (routes P and PS) are delivered only inside this daily window of the recipients' time (PROMO_HOURS_TIME_ZONE), as Indian operators require: a send outside it is accepted, charged and held (status queued, estimated_delivery at the opening) until the window opens, and can be cancelled like a scheduled send. An account's own promo_hours (operator API, CLI, console) narrows it (one not inside it is refused); 00:00-24:00 never holds. Routes T and I are never held.",
    default: "09:00-21:00",
    parser: dailyWindow,
  },
  PROMO_HOURS_TIME_ZONE: {
    field: "promoHoursTimeZone",
    description: "The recipients' time zone in which PROMO_HOURS (and an account's promo_hours) are read.",
    default: "Asia/Kolkata",
    parser: timeZone,
  },
  SHORT_LINK_BASE: {
    field: "shortLinkBase",
    description:
      "Tracked short links (`shorten_urls` on v2 sends, `shorturl=1` on legacy, or an account's default): each white-listed link inside a template's {#var#} value is replaced per recipient by this URL, `/` and an unguessable code, which the gateway serves (GET <path>/<code>: 302 to the link, the click recorded and sent as the link_clicked webhook). Your own domain pointing at the gateway, with a path of its own that is not one of the API's or the console's (`https://go.example.in/l`); on Indian routes with DLT scrubbing it must itself be white-listed for the send's entity. Unset: sends that ask to shorten are refused.",
    parser: shortLinkBase,
  },
  SHORT_LINK_DAYS: {
    field: "shortLinkDays",
    description: "Days a short link redirects after its message was accepted; then it answers 404.",
    default: "30",
    parser: wholeNumber(1, 3650),
  },
  ANALYTICS_PREFIX_DIGITS: {
    field: "analyticsPrefixDigits",
    description:
      "Delivery analytics: how many leading digits of a recipient (with its country code, as routing rules write them: 9198…) its prefix keeps. A change applies to messages accepted after the next start; a message keeps the length of its accept time.",
    default: "4",
    parser: wholeNumber(1, 15),
  },
  MESSAGE_VALIDITY_HOURS: {
    field: "messageValidityHours",
    description:
      "Hours a message handed to a carrier waits for its delivery report; then it is failed with error code expired (not refunded: the carrier took it) and reported by webhook. Also how long a message is held while every connector of its route is down or disabled (`connectors_down`); then it fails, refunded. Messages of a connector that never reports delivery (an http-sms connector without dlr, SMPP with registered_delivery 0) stay submitted.",
    default: "48",
    parser: wholeNumber(1, 720),
  },
  SESSION_IDLE_MINUTES: {
    field: "sessionIdleMinutes",
    description:
      "A console session unused for this long ends (sign in again), counted from its last use in any API process; it ends at most 1/60 of this (a minute at most) later, never sooner.",
    default: "60",
    parser: wholeNumber(1, 10080),
  },
  SESSION_MAX_HOURS: {
    field: "sessionMaxHours",
    description: "A console session ends this long after its sign-in, however much it is used.",
    default: "12",
    parser: wholeNumber(1, 8760),
  },
  TWO_FACTOR_OPERATORS: {
    field: "twoFactorOperators",
    description:
      "required: every console login of an operator account needs a second factor (TOTP); one without is asked to enrol at its next sign-in. optional: only where the account requires it. The operator API's keys are not asked.",
    default: "required",
    parser: oneOf(["required", "optional"]),
  },
  LEGACY_THROTTLE_PER_SECOND: {
    field: "legacyThrottlePerSecond",
    description:
      "Requests per second one account may make to the legacy and XML APIs (over it: HTTP 429, body -13); 0 = unlimited.",
    default: "100",
    parser: wholeNumber(0, 1000000),
  },
  CONTACTS_UPLOAD_MAX_MB: {
    field: "contactsUploadMaxBytes",
    description:
      "Largest contacts CSV upload, in MiB (a line of number and name is ~30 bytes: 64 MiB is about 2 million contacts).",
    default: "64",
    parser: map(wholeNumber(1, 1024), (mebibytes) => mebibytes * MiB),
  },
  DND_IMPORT_MAX_MB: {
    field: "dndImportMaxBytes",
    description:
      "Largest DND registry CSV import over the operator API, in MiB (a bare number is 11 bytes a line: 128 MiB is about 12 million numbers); the CLI's import has no limit. An import is written in one transaction, which on SQLite holds other writes for its length (decision 0185).",
    default: "128",
    parser: map(wholeNumber(1, 16384), (mebibytes) => mebibytes * MiB),
  },
  SIMULATOR_SEED: {
    field: "simulatorSeed",
    description: "Seed of the simulated carriers; the same seed replays the same outcomes.",
    default: "42",
    parser: wholeNumber(0, 2 ** 31 - 1),
  },
  SIMULATOR_LATENCY_MS: {
    field: "simulatorLatencyMs",
    description:
      "Typical delay before the simulated SMS carrier reports delivery; each report takes 0.5 to 1.5 times this.",
    default: "200",
    parser: wholeNumber(0, 600000),
  },
  SIMULATOR_FAILURE_RATE: {
    field: "simulatorFailureRate",
    description: "Share of simulated SMS that fail.",
    default: "0.02",
    parser: ratio,
  },
  SIMULATOR_CAPTURE_FILE: {
    field: "simulatorCaptureFile",
    description:
      "Optional file path: the simulated SMS carrier and the simulated WhatsApp upstream append every message they receive as one JSON line (what a real carrier would have been sent).",
    parser: text,
  },
  REFUND_CARRIER_REASONS: {
    field: "refundCarrierReasons",
    description:
      "Comma-separated reasons of the error catalogue (dlt_* for every DLT reason) whose carrier failures are refunded: a message its carrier failed with a code that its connector's error_codes map to one of them is refunded when the delivery report comes, at every level of a reseller's tree. none refunds no carrier failure (a failure whose code maps to no reason never is). The default: the operator's choice for a reason (operator API /admin/api/refund-policy, the console's Carrier refunds page, carriers set-refund) wins over it. See docs/decisions/0123-operators-error-codes.md and 0133.",
    default: "none",
    parser: refundReasons,
  },
  OPT_OUT_WORDS: {
    field: "optOutWords",
    description:
      "Comma-separated words that, as the first word of an inbound SMS (any case), put the sender on the account's suppression list, which promotional sends refuse. START (the whole message) takes the sender off again.",
    default: "STOP,STOPALL,UNSUBSCRIBE,CANCEL,END,QUIT",
    parser: optOutWords,
  },
  SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: {
    field: "allowPrivateWebhooks",
    description:
      "1 or true lets webhook URLs use plain http and reach loopback, private, link-local and cloud metadata addresses; otherwise only https to public addresses. For tests and closed networks.",
    default: "0",
    parser: flag,
  },
  SWITCHBOARD_CARRIERS_FILE: {
    field: "carriersFile",
    description:
      "Optional path of a JSON or YAML file with SMS connectors (smpp, http-sms) and routes, applied at every start: its connectors are added or replaced by name, and its routes, when given, replace all routes. The operator API and CLI change the same configuration. See docs/carriers.md.",
    parser: text,
  },
  CARRIER_CALLBACK_URL: {
    field: "carrierCallbackUrl",
    description:
      "Public base URL of this gateway as SMS aggregators reach it, e.g. https://sms.example.com: an http-sms connector's {callback_url} is {CARRIER_CALLBACK_URL}/carriers/http-sms/<name>/dlr. Unset: the address the process that sends listens on; set it when api and worker run apart (the API role serves the callback) or behind a proxy.",
    parser: httpUrl,
  },
  EARLY_REPORTS_MAX_PER_CONNECTOR: {
    field: "earlyReportsMaxPerConnector",
    description:
      "Delivery reports kept per connector while no message carries their id yet (an aggregator that calls back before it answers the send); past it the oldest are dropped. Each is kept at most 48 hours.",
    default: "10000",
    parser: wholeNumber(100, 10_000_000),
  },
  ...DLT_SETTINGS,
  ...CHANNEL_SETTINGS,
} as const satisfies Record<string, SettingSpec>;

export type SettingName = keyof typeof SETTINGS;

/** The setting's description with its default (and the range it accepts) from the table. */
export function describeSetting(name: SettingName): string {
  const setting: SettingSpec = SETTINGS[name];
  if (setting.field === null || setting.default === undefined) return setting.description;
  const shown =
    typeof setting.default === "string"
      ? (setting.parser.show?.(setting.default) ?? setting.default)
      : setting.default.shown;
  const range = setting.parser.range === undefined ? "" : ` (${setting.parser.range})`;
  return `${setting.description} Default ${shown}${range}.`;
}

/**
 * `.env.example`: every setting with its description as a comment and its default as the value
 * (empty where it has none or depends on the machine). test/app/config.test.ts holds the file to it.
 */
export function envExample(): string {
  const wrap = (text: string): string[] => {
    const lines: string[] = [];
    let line = "#";
    for (const word of text.split(/\s+/)) {
      if (line.length + 1 + word.length > 95 && line !== "#") {
        lines.push(line);
        line = "#";
      }
      line += ` ${word}`;
    }
    return [...lines, line];
  };
  const head = [
    "# Switchboard settings, each with its default. Switchboard reads the process environment",
    "# and does not load this file itself: copy it to .env, change what you need, and load it",
    "# with your process manager, or in a shell with `set -a; . ./.env; set +a`.",
    '# An empty value means "use the default". Made from SETTINGS in src/runtime/settings.ts,',
    "# as is the README's table.",
  ];
  const entries = (Object.keys(SETTINGS) as SettingName[]).map((name) => {
    const setting: SettingSpec = SETTINGS[name];
    const value = setting.field !== null && typeof setting.default === "string" ? setting.default : "";
    return [...wrap(describeSetting(name)), `${name}=${value}`].join("\n");
  });
  return `${[head.join("\n"), ...entries].join("\n\n")}\n`;
}
