// Every setting Switchboard reads from the environment, declared, validated and documented once.
import os from "node:os";
import path from "node:path";
import type { DatabaseTarget } from "../store/store.js";

export type LogLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
const LOG_LEVELS: readonly LogLevel[] = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

export type { DatabaseTarget };

export interface Config {
  port: number;
  host: string;
  database: DatabaseTarget;
  redisUrl: string | undefined;
  /** Redis must answer for the process to be ready (/readyz) and for `doctor` to pass. */
  redisRequired: boolean;
  /** Seconds a SIGTERM/SIGINT waits for in-flight requests and work before the process exits anyway. */
  shutdownTimeoutSeconds: number;
  logLevel: LogLevel;
  /** json lines, pretty (coloured on a terminal), or auto: pretty when stdout is a terminal. */
  logFormat: "auto" | "json" | "pretty";
  /** SQLite `synchronous` pragma: FULL makes an answered send survive a power cut. */
  sqliteSynchronous: "FULL" | "NORMAL";
  /**
   * Threads of a `start` process: 2 serves HTTP on one and runs the worker role (and, on SQLite,
   * the commits of accepted sends) on the other; 1 runs everything on one event loop.
   */
  threads: number;
  /** Seconds a verified username+password pair is remembered (0 turns the cache off). */
  passwordCacheSeconds: number;
  /** Failed logins in a row from one address that lock it out of an account, and for how long. */
  loginLockThreshold: number;
  loginLockMinutes: number;
  /** Addresses locked out of one account at the same time that lock the whole account. */
  loginLockAddresses: number;
  /** A console session unused for this long ends. */
  sessionIdleMinutes: number;
  /** A console session ends this long after its sign-in. */
  sessionMaxHours: number;
  /** Seed of the simulated carriers; the same seed replays the same outcomes. */
  simulatorSeed: number;
  /** Milliseconds the simulated SMS carrier takes to report delivery. */
  simulatorLatencyMs: number;
  /** Share of simulated SMS that fail, 0 to 1. */
  simulatorFailureRate: number;
  /** When set, the simulated carrier appends every submitted message to this JSON-lines file. */
  simulatorCaptureFile: string | undefined;
  /** Hours a submitted message waits for its delivery report before it fails as `expired`. */
  messageValidityHours: number;
  /** Legacy/XML requests per second per account (0 = unlimited); separate from the v2 key rate. */
  legacyThrottlePerSecond: number;
  /** Bytes a contacts CSV upload may have; a larger one is refused (413). */
  contactsUploadMaxBytes: number;
  /** Upper-case first words of an inbound SMS that put its sender on the account's suppression list. */
  optOutWords: ReadonlySet<string>;
  /** Webhooks may target loopback, private and link-local addresses, and plain http (tests, private networks). */
  allowPrivateWebhooks: boolean;
  /** A JSON or YAML file of SMS connectors and routes applied at start (see carriers/config-file.ts). */
  carriersFile: string | undefined;
  /** Public base URL of this gateway as SMS aggregators reach it, for their delivery-report callbacks. */
  carrierCallbackUrl: string | undefined;
  whatsapp: WhatsAppConfig;
  voice: VoiceConfig;
  email: EmailConfig;
  smppServer: SmppServerConfig;
}

/** The SMPP server account holders bind to (smpp-server/); runs in the `api` role. */
export interface SmppServerConfig {
  /** Plain SMPP port; 0: off; "auto": a free port (tests). */
  port: number | "auto";
  /** SMPP over TLS; 0: off. */
  tlsPort: number | "auto";
  tlsCertFile: string | undefined;
  tlsKeyFile: string | undefined;
  /** Requests a bind may have outstanding each way (its submits being handled; our deliver_sm unanswered). */
  window: number;
  /** Seconds without traffic before the server sends enquire_link. */
  enquireLinkSeconds: number;
  /** Seconds without any PDU from the client before the bind is closed. */
  idleSeconds: number;
  /** How long the server waits for a response to its own requests. */
  responseTimeoutMs: number;
  /** How long a deliver_sm the client refused or left unanswered waits before it goes again. */
  deliverRetryMs: number;
  /** TLV tags of the DLT entity and template ids a client may send. */
  dltEntityTag: number;
  dltTemplateTag: number;
}

export interface EmailConfig {
  /** Where email goes: `simulator` (a captured inbox) or `smtp` (a relay). */
  connector: "simulator" | "smtp";
  /** smtp://user:pass@host:587 or smtps://…:465 (the relay). */
  smtpUrl: string | undefined;
  /** Connections kept open to the relay. */
  smtpPoolSize: number;
  /** Milliseconds an SMTP conversation may stall before the send is retried. */
  smtpTimeoutMs: number;
  /** False accepts a relay's self-signed certificate (private networks, tests). */
  smtpTlsRejectUnauthorized: boolean;
  /** Domain of the envelope sender (VERP: bounces+<message id>@this domain); bounces come back to it. */
  bounceDomain: string;
  /** Public base URL of this gateway for tracking pixels and click links; http://localhost:PORT when unset. */
  trackingUrl: string | undefined;
  /** Port of the SMTP listener that takes bounces back (0: off). */
  bouncePort: number;
}

export interface VoiceConfig {
  /** Where calls go: `simulator` (offline) or `voice-http` (a Twilio-compatible call API). */
  connector: "simulator" | "voice-http";
  /** Base URL of the call API (a local fake in tests); no trailing slash. */
  httpUrl: string;
  accountSid: string | undefined;
  /** Signs our requests (HTTP Basic with the account SID) and the provider's status callbacks. */
  authToken: string | undefined;
  /** The gateway's public base URL as the provider reaches it; status callbacks go to a path under it. */
  callbackUrl: string | undefined;
  /** Milliseconds a create-call request may take. */
  timeoutMs: number;
  /** Create-call requests in flight at once (the keep-alive pool's size). */
  concurrency: number;
  /** Seconds of estimated speech one call unit covers. */
  secondsPerUnit: number;
  /** `language` of the spoken text (Devanagari text is spoken as hi-IN). */
  sayLanguage: string;
  /** `voice` of the spoken text; the provider's default when undefined. */
  sayVoice: string | undefined;
  /** Typical milliseconds between the simulated call's steps (ringing, answered, hung up). */
  simulatorLatencyMs: number;
  /** Share of simulated calls that end busy, unanswered or failed, 0 to 1. */
  simulatorFailureRate: number;
}

export interface WhatsAppConfig {
  /** Connector of accounts that do not name one: `simulator` (offline) or `whatsapp-cloud`. */
  connector: "simulator" | "whatsapp-cloud";
  /** Base URL of Meta's Graph API (a local fake in tests). */
  graphUrl: string;
  graphVersion: string;
  /** Meta app secret: callbacks must carry X-Hub-Signature-256 made with it. */
  appSecret: string | undefined;
  /** The token Meta echoes when the callback URL is verified. */
  verifyToken: string | undefined;
  /** Milliseconds a Graph API call may take before the send answers 502. */
  timeoutMs: number;
  /** Seconds a synced template list is used before the listing syncs again. */
  templateSyncSeconds: number;
  /** Milliseconds the simulated WhatsApp upstream takes between sent, delivered and read. */
  simulatorLatencyMs: number;
}

/** Each variable: its description (README lists these) and how to read it. */
export const SETTINGS = {
  PORT: "HTTP port to listen on. Default 8080; 0 picks a free port.",
  HOST: "Address to bind. Default 127.0.0.1; use 0.0.0.0 to serve other machines.",
  DATABASE_URL:
    "Where data lives. Default sqlite:./data/switchboard.db. `sqlite:/path/file.db` picks another SQLite file; `postgres://user@host:5432/db` selects PostgreSQL.",
  REDIS_URL: "Optional redis://host:6379. When set, rate-limit counters are shared between processes.",
  REDIS_REQUIRED:
    "1 or true: /readyz answers 503 while Redis does not answer. Default off: while Redis is away each API process counts rate limits in its own memory and stays ready (docs/api.md, Rate limits).",
  SHUTDOWN_TIMEOUT_SECONDS:
    "Seconds a SIGTERM (or SIGINT) waits for requests in flight, the dispatcher's batch in hand, webhook posts and carrier answers before the process exits anyway with code 1 (what it had claimed returns to the queue when its lease runs out). Default 30; keep a supervisor's stop timeout above it.",
  LOG_LEVEL:
    "fatal, error, warn, info (default: one line per request, and what the workers do), debug, trace or silent.",
  LOG_FORMAT: "auto (default: readable colour lines when stdout is a terminal, JSON lines otherwise), json or pretty.",
  SQLITE_SYNCHRONOUS: "FULL (default: durable across power loss) or NORMAL (durable across process crashes only).",
  SWITCHBOARD_THREADS:
    "Most threads a start process uses, 1 or 2. Default 2 where the machine has 2 or more cores: HTTP on one; dispatch, delivery reports, webhooks and (SQLite) the commits of accepted sends on the other. 1: everything on one event loop.",
  PASSWORD_CACHE_SECONDS:
    "How long a verified username+password pair is remembered in memory. Default 300; 0 disables.",
  LOGIN_LOCK_THRESHOLD:
    "Failed password logins in a row from one source address that lock that address out of the account (others still log in). Default 10; 0 never locks.",
  LOGIN_LOCK_MINUTES: "How long a locked address or account stays locked. Default 15.",
  LOGIN_LOCK_ADDRESSES:
    "Source addresses locked out of one account at the same time that lock the whole account (a guess spread over many machines). Default 10; 0 never locks the whole account.",
  SESSION_IDLE_MINUTES: "A console session unused for this long ends (sign in again). Default 60.",
  SESSION_MAX_HOURS: "A console session ends this long after its sign-in, however much it is used. Default 12.",
  SIMULATOR_SEED: "Seed of the simulated carriers. Default 42.",
  SIMULATOR_LATENCY_MS:
    "Typical delay before the simulated SMS carrier reports delivery; each report takes 0.5 to 1.5 times this. Default 200.",
  SWITCHBOARD_SQL_PROFILE:
    "Diagnostics: 1 makes a SQLite gateway print its 15 most expensive statements (total time, calls) on exit.",
  SIMULATOR_FAILURE_RATE: "Share of simulated SMS that fail, 0 to 1. Default 0.02.",
  MESSAGE_VALIDITY_HOURS:
    "Hours a message handed to a carrier waits for its delivery report; then it is failed with error code expired (not refunded: the carrier took it) and reported by webhook. Messages of a connector that never reports delivery (an http-sms connector without dlr, SMPP with registered_delivery 0) stay submitted. Default 48, 1 to 720.",
  LEGACY_THROTTLE_PER_SECOND:
    "Requests per second one account may make to the legacy and XML APIs (over it: HTTP 429, body -13). Default 100; 0 = unlimited.",
  CONTACTS_UPLOAD_MAX_MB:
    "Largest contacts CSV upload, in MiB (a line of number and name is ~30 bytes: 64 MiB is about 2 million contacts). Default 64; at most 1024.",
  SIMULATOR_CAPTURE_FILE:
    "Optional file path: the simulated SMS carrier appends every message it receives as one JSON line (what a real carrier would have been sent).",
  OPT_OUT_WORDS:
    "Comma-separated words that, as the first word of an inbound SMS (any case), put the sender on the account's suppression list, which promotional sends refuse. Default STOP,STOPALL,UNSUBSCRIBE,CANCEL,END,QUIT. START (the whole message) takes the sender off again.",
  SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS:
    "1 or true lets webhook URLs use plain http and reach loopback, private, link-local and cloud metadata addresses. Default off: https to public addresses only. For tests and closed networks.",
  SWITCHBOARD_CARRIERS_FILE:
    "Optional path of a JSON or YAML file with SMS connectors (smpp, http-sms) and routes, applied at every start: its connectors are added or replaced by name, and its routes, when given, replace all routes. The operator API and CLI change the same configuration. See docs/carriers.md.",
  CARRIER_CALLBACK_URL:
    "Public base URL of this gateway as SMS aggregators reach it, e.g. https://sms.example.com: an http-sms connector's {callback_url} is {CARRIER_CALLBACK_URL}/carriers/http-sms/<name>/dlr. Default: the address the process that sends listens on; set it when api and worker run apart (the API role serves the callback) or behind a proxy.",
  WHATSAPP_CONNECTOR:
    "Connector of accounts that do not name their own: simulator (default; offline, simulated statuses) or whatsapp-cloud (Meta's Graph API).",
  WHATSAPP_GRAPH_URL: "Base URL of Meta's Graph API. Default https://graph.facebook.com.",
  WHATSAPP_GRAPH_VERSION: "Graph API version in request paths. Default v21.0.",
  WHATSAPP_APP_SECRET:
    "Secret of the Meta app whose webhook points at /webhooks/whatsapp; callbacks without a valid X-Hub-Signature-256 made with it are refused. Unset: every callback is refused.",
  WHATSAPP_VERIFY_TOKEN:
    "Token you type into Meta's webhook settings; GET /webhooks/whatsapp answers Meta's challenge only when it matches. Unset: verification is refused.",
  WHATSAPP_TIMEOUT_MS:
    "Milliseconds a Graph API call may take before the send answers 502 (nothing charged). Default 15000.",
  WHATSAPP_TEMPLATE_SYNC_SECONDS:
    "Seconds a synced WhatsApp template list is reused before GET /api/v2/whatsapp/templates syncs it again from the business account. Default 300.",
  WHATSAPP_SIMULATOR_LATENCY_MS:
    "Milliseconds the simulated WhatsApp upstream waits between sent, delivered and read. Default 500.",
  VOICE_CONNECTOR:
    "Where voice calls go: simulator (default; offline, simulated call progress) or voice-http (a Twilio-compatible call API; needs VOICE_HTTP_ACCOUNT_SID, VOICE_HTTP_AUTH_TOKEN and VOICE_CALLBACK_URL).",
  VOICE_HTTP_URL: "Base URL of the Twilio-compatible call API. Default https://api.twilio.com.",
  VOICE_HTTP_ACCOUNT_SID: "Account SID at the call provider: the user of HTTP Basic and part of every request path.",
  VOICE_HTTP_AUTH_TOKEN:
    "Auth token at the call provider: the password of HTTP Basic and the key of the X-Twilio-Signature every status callback must carry. Unset: every callback is refused.",
  VOICE_CALLBACK_URL:
    "Public base URL of this gateway as the call provider reaches it, e.g. https://sms.example.com; status callbacks go to {VOICE_CALLBACK_URL}/voicecall/v1/status-callback, and their signature is checked against exactly that URL.",
  VOICE_HTTP_TIMEOUT_MS:
    "Milliseconds a create-call request may take (100 to 10000). A call whose request timed out is failed and refunded, never sent again: the provider may have placed it. Default 8000.",
  VOICE_HTTP_CONCURRENCY: "Create-call requests in flight at once, over one keep-alive pool. Default 16.",
  VOICE_SECONDS_PER_UNIT:
    "Seconds of estimated speech (15 characters a second) one voice credit pays for; a call costs one credit per started period, at least one. Default 30.",
  VOICE_SAY_LANGUAGE: "language of <Say>. Default en-IN; text with Devanagari letters is spoken as hi-IN.",
  VOICE_SAY_VOICE: "Optional voice of <Say>, e.g. Polly.Aditi. Unset: the provider's default voice for the language.",
  VOICE_SIMULATOR_LATENCY_MS:
    "Typical milliseconds between the simulated call's steps (ringing, answered, hung up); each takes 0.5 to 1.5 times this. Default 1500.",
  VOICE_SIMULATOR_FAILURE_RATE:
    "Share of simulated calls, 0 to 1, that end busy (30 %), unanswered (60 %) or failed (10 %) instead of completed. Default 0.1.",
  EMAIL_CONNECTOR:
    "Where email goes: simulator (default; every message is captured in an inbox the operator reads) or smtp (the relay in SMTP_URL).",
  SMTP_URL:
    "The relay for EMAIL_CONNECTOR=smtp: smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465.",
  SMTP_POOL_SIZE: "Connections kept open to the relay. Default 5.",
  SMTP_TIMEOUT_MS:
    "Milliseconds an SMTP conversation may stall before the message is retried. Default 10000 (inside the dispatcher's 15 s lease).",
  SMTP_TLS_INSECURE:
    "1 or true accepts a relay certificate that does not verify (self-signed, private networks, tests). Default off.",
  EMAIL_BOUNCE_DOMAIN:
    "Domain of the envelope sender: each message goes out from bounces+<message id>@this domain, so a bounce names its message. Point its MX at EMAIL_BOUNCE_PORT. Default bounces.switchboard.local.",
  EMAIL_TRACKING_URL:
    "Public base URL of this gateway, used in tracking pixels and click links (e.g. https://mail.example.com). Default: the address the process that composes the mail listens on; set it when api and worker run apart or behind a proxy.",
  SMPP_SERVER_PORT:
    "Port of the SMPP 3.4 server account holders bind to (system_id: the username; password: the account's SMPP password), in `start` and the api role, at HOST. Default 2775; 0 turns it off; auto picks a free port.",
  SMPP_SERVER_TLS_PORT:
    "Port of the same SMPP server over TLS, with SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY. Default 0: off; auto picks a free port.",
  SMPP_SERVER_TLS_CERT: "PEM certificate (chain) file of the SMPP TLS port.",
  SMPP_SERVER_TLS_KEY: "PEM private key file of the SMPP TLS port.",
  SMPP_SERVER_WINDOW:
    "Requests one SMPP bind may have outstanding each way: its submits being handled (more wait unread in the socket) and deliver_sm it has not answered. Default 50, 1 to 1000.",
  SMPP_SERVER_ENQUIRE_LINK_SECONDS:
    "Seconds of silence on an SMPP bind before the server sends enquire_link; a client that does not answer it within SMPP_SERVER_RESPONSE_TIMEOUT_MS is disconnected. Default 30, 1 to 3600.",
  SMPP_SERVER_IDLE_SECONDS:
    "Seconds without a request from an SMPP client (a submit, its own enquire_link, an answer to a deliver_sm; answers to the server's enquire_link do not count) before the server unbinds it; also how long a connection may stay open without binding. Default 300, 1 to 86400.",
  SMPP_SERVER_RESPONSE_TIMEOUT_MS:
    "How long the SMPP server waits for a client's answer to deliver_sm, enquire_link or unbind. Default 10000, 100 to 600000.",
  SMPP_SERVER_DELIVER_RETRY_MS:
    "How long a deliver_sm (receipt or MO) that the SMPP client refused or did not answer waits before it is sent again; the account's later ones wait behind it. Default 5000, 100 to 3600000.",
  SMPP_SERVER_DLT_ENTITY_TAG:
    "TLV tag (hex 0x1400–0x3FFF or decimal) in which SMPP clients send the DLT entity id. Default 0x1400.",
  SMPP_SERVER_DLT_TEMPLATE_TAG: "TLV tag in which SMPP clients send the DLT template id. Default 0x1401.",
  EMAIL_BOUNCE_PORT:
    "Port of the SMTP listener that receives bounces (DSNs) addressed to EMAIL_BOUNCE_DOMAIN. Default 0: off.",
} as const;

/** Opt-out words unless OPT_OUT_WORDS says otherwise. */
export const DEFAULT_OPT_OUT_WORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"] as const;

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = (name: keyof typeof SETTINGS): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };

  const int = (name: keyof typeof SETTINGS, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}"). ${SETTINGS[name]}`);
      return fallback;
    }
    return Number(raw);
  };

  const ratio = (name: keyof typeof SETTINGS, fallback: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      problems.push(`${name} must be a number from 0 to 1 (got "${raw}"). ${SETTINGS[name]}`);
      return fallback;
    }
    return value;
  };

  const flag = (name: keyof typeof SETTINGS): boolean => {
    const raw = read(name)?.toLowerCase();
    if (raw === undefined || raw === "0" || raw === "false") return false;
    if (raw === "1" || raw === "true") return true;
    problems.push(`${name} must be 1, true, 0 or false (got "${read(name)}"). ${SETTINGS[name]}`);
    return false;
  };

  const port = int("PORT", 8080, 0, 65535);
  const host = read("HOST") ?? "127.0.0.1";

  const database = parseDatabaseUrl(read("DATABASE_URL"), cwd, problems);

  const redisUrl = read("REDIS_URL");
  if (redisUrl !== undefined && !/^rediss?:\/\/\S+$/.test(redisUrl)) {
    problems.push(
      `REDIS_URL must look like redis://127.0.0.1:6379 (got "${redisUrl}"). Leave it unset to keep counters in memory.`,
    );
  }

  const logLevelRaw = read("LOG_LEVEL") ?? "info";
  if (!LOG_LEVELS.includes(logLevelRaw as LogLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")} (got "${logLevelRaw}"). Leave it unset for info.`);
  }

  const logFormat = read("LOG_FORMAT") ?? "auto";
  if (logFormat !== "auto" && logFormat !== "json" && logFormat !== "pretty") {
    problems.push(`LOG_FORMAT must be auto, json or pretty (got "${logFormat}"). ${SETTINGS.LOG_FORMAT}`);
  }

  const syncGiven = read("SQLITE_SYNCHRONOUS") ?? "FULL";
  const syncRaw = syncGiven.toUpperCase();
  if (syncRaw !== "FULL" && syncRaw !== "NORMAL") {
    problems.push(`SQLITE_SYNCHRONOUS must be FULL or NORMAL (got "${syncGiven}"). ${SETTINGS.SQLITE_SYNCHRONOUS}`);
  }

  const config: Config = {
    port,
    host,
    smppServer: smppServerConfig(read, int, problems),
    database,
    redisUrl,
    redisRequired: flag("REDIS_REQUIRED"),
    shutdownTimeoutSeconds: int("SHUTDOWN_TIMEOUT_SECONDS", 30, 1, 3_600),
    logLevel: logLevelRaw as LogLevel,
    logFormat: logFormat === "json" || logFormat === "pretty" ? logFormat : "auto",
    sqliteSynchronous: syncRaw === "NORMAL" ? "NORMAL" : "FULL",
    threads: int("SWITCHBOARD_THREADS", Math.min(2, os.availableParallelism()), 1, 2),
    passwordCacheSeconds: int("PASSWORD_CACHE_SECONDS", 300, 0, 86_400),
    loginLockThreshold: int("LOGIN_LOCK_THRESHOLD", 10, 0, 1_000),
    loginLockMinutes: int("LOGIN_LOCK_MINUTES", 15, 1, 10_080),
    loginLockAddresses: int("LOGIN_LOCK_ADDRESSES", 10, 0, 100_000),
    sessionIdleMinutes: int("SESSION_IDLE_MINUTES", 60, 1, 10_080),
    sessionMaxHours: int("SESSION_MAX_HOURS", 12, 1, 8_760),
    simulatorSeed: int("SIMULATOR_SEED", 42, 0, 2 ** 31 - 1),
    simulatorLatencyMs: int("SIMULATOR_LATENCY_MS", 200, 0, 600_000),
    simulatorFailureRate: ratio("SIMULATOR_FAILURE_RATE", 0.02),
    simulatorCaptureFile: read("SIMULATOR_CAPTURE_FILE"),
    messageValidityHours: int("MESSAGE_VALIDITY_HOURS", 48, 1, 720),
    legacyThrottlePerSecond: int("LEGACY_THROTTLE_PER_SECOND", 100, 0, 1_000_000),
    contactsUploadMaxBytes: int("CONTACTS_UPLOAD_MAX_MB", 64, 1, 1024) * 1024 * 1024,
    optOutWords: parseOptOutWords(read("OPT_OUT_WORDS"), problems),
    allowPrivateWebhooks: flag("SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS"),
    carriersFile: read("SWITCHBOARD_CARRIERS_FILE"),
    carrierCallbackUrl: optionalHttpUrl("CARRIER_CALLBACK_URL", read("CARRIER_CALLBACK_URL"), problems),
    whatsapp: {
      connector: whatsappConnector(read("WHATSAPP_CONNECTOR"), problems),
      graphUrl: httpUrl("WHATSAPP_GRAPH_URL", read("WHATSAPP_GRAPH_URL") ?? "https://graph.facebook.com", problems),
      graphVersion: graphVersion(read("WHATSAPP_GRAPH_VERSION") ?? "v21.0", problems),
      appSecret: read("WHATSAPP_APP_SECRET"),
      verifyToken: read("WHATSAPP_VERIFY_TOKEN"),
      timeoutMs: int("WHATSAPP_TIMEOUT_MS", 15_000, 100, 600_000),
      templateSyncSeconds: int("WHATSAPP_TEMPLATE_SYNC_SECONDS", 300, 0, 86_400),
      simulatorLatencyMs: int("WHATSAPP_SIMULATOR_LATENCY_MS", 500, 0, 600_000),
    },
    voice: {
      connector: voiceConnector(read("VOICE_CONNECTOR"), problems),
      httpUrl: httpUrl("VOICE_HTTP_URL", read("VOICE_HTTP_URL") ?? "https://api.twilio.com", problems),
      accountSid: read("VOICE_HTTP_ACCOUNT_SID"),
      authToken: read("VOICE_HTTP_AUTH_TOKEN"),
      callbackUrl: optionalHttpUrl("VOICE_CALLBACK_URL", read("VOICE_CALLBACK_URL"), problems),
      timeoutMs: int("VOICE_HTTP_TIMEOUT_MS", 8_000, 100, 10_000),
      concurrency: int("VOICE_HTTP_CONCURRENCY", 16, 1, 256),
      secondsPerUnit: int("VOICE_SECONDS_PER_UNIT", 30, 1, 3_600),
      sayLanguage: sayLanguage(read("VOICE_SAY_LANGUAGE") ?? "en-IN", problems),
      sayVoice: read("VOICE_SAY_VOICE"),
      simulatorLatencyMs: int("VOICE_SIMULATOR_LATENCY_MS", 1_500, 0, 600_000),
      simulatorFailureRate: ratio("VOICE_SIMULATOR_FAILURE_RATE", 0.1),
    },
    email: {
      connector: emailConnector(read("EMAIL_CONNECTOR"), problems),
      smtpUrl: smtpUrl(read("SMTP_URL"), problems),
      smtpPoolSize: int("SMTP_POOL_SIZE", 5, 1, 100),
      // Well inside the dispatcher's 15 s lease, so a stalled relay never has a batch sent twice.
      smtpTimeoutMs: int("SMTP_TIMEOUT_MS", 10_000, 1_000, 600_000),
      smtpTlsRejectUnauthorized: read("SMTP_TLS_INSECURE") === undefined ? true : !flag("SMTP_TLS_INSECURE"),
      bounceDomain: (read("EMAIL_BOUNCE_DOMAIN") ?? "bounces.switchboard.local").toLowerCase(),
      trackingUrl: optionalHttpUrl("EMAIL_TRACKING_URL", read("EMAIL_TRACKING_URL"), problems),
      bouncePort: int("EMAIL_BOUNCE_PORT", 0, 0, 65535),
    },
  };
  if (config.redisRequired && redisUrl === undefined) {
    problems.push(`REDIS_REQUIRED needs REDIS_URL. ${SETTINGS.REDIS_URL}`);
  }
  if (config.email.connector === "smtp" && config.email.smtpUrl === undefined) {
    problems.push(`EMAIL_CONNECTOR=smtp needs SMTP_URL. ${SETTINGS.SMTP_URL}`);
  }
  if (config.voice.connector === "voice-http") {
    for (const name of ["VOICE_HTTP_ACCOUNT_SID", "VOICE_HTTP_AUTH_TOKEN", "VOICE_CALLBACK_URL"] as const) {
      if (read(name) === undefined) problems.push(`VOICE_CONNECTOR=voice-http needs ${name}. ${SETTINGS[name]}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function smppServerConfig(
  read: (name: keyof typeof SETTINGS) => string | undefined,
  int: (name: keyof typeof SETTINGS, fallback: number, min: number, max: number) => number,
  problems: string[],
): SmppServerConfig {
  const port = (name: "SMPP_SERVER_PORT" | "SMPP_SERVER_TLS_PORT", fallback: number): number | "auto" =>
    read(name)?.toLowerCase() === "auto" ? "auto" : int(name, fallback, 0, 65535);
  const tag = (name: "SMPP_SERVER_DLT_ENTITY_TAG" | "SMPP_SERVER_DLT_TEMPLATE_TAG", fallback: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = /^0x[0-9a-f]+$/i.test(raw)
      ? Number.parseInt(raw.slice(2), 16)
      : /^\d+$/.test(raw)
        ? Number(raw)
        : Number.NaN;
    if (!(value >= 0x1400 && value <= 0x3fff)) {
      problems.push(`${name} must be a vendor TLV tag from 0x1400 to 0x3FFF (got "${raw}"). ${SETTINGS[name]}`);
      return fallback;
    }
    return value;
  };
  const config: SmppServerConfig = {
    port: port("SMPP_SERVER_PORT", 2775),
    tlsPort: port("SMPP_SERVER_TLS_PORT", 0),
    tlsCertFile: read("SMPP_SERVER_TLS_CERT"),
    tlsKeyFile: read("SMPP_SERVER_TLS_KEY"),
    window: int("SMPP_SERVER_WINDOW", 50, 1, 1000),
    enquireLinkSeconds: int("SMPP_SERVER_ENQUIRE_LINK_SECONDS", 30, 1, 3600),
    idleSeconds: int("SMPP_SERVER_IDLE_SECONDS", 300, 1, 86_400),
    responseTimeoutMs: int("SMPP_SERVER_RESPONSE_TIMEOUT_MS", 10_000, 100, 600_000),
    deliverRetryMs: int("SMPP_SERVER_DELIVER_RETRY_MS", 5_000, 100, 3_600_000),
    dltEntityTag: tag("SMPP_SERVER_DLT_ENTITY_TAG", 0x1400),
    dltTemplateTag: tag("SMPP_SERVER_DLT_TEMPLATE_TAG", 0x1401),
  };
  if (config.tlsPort !== 0 && (config.tlsCertFile === undefined || config.tlsKeyFile === undefined)) {
    problems.push("SMPP_SERVER_TLS_PORT needs SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY (PEM files).");
  }
  if (config.dltEntityTag === config.dltTemplateTag) {
    problems.push("SMPP_SERVER_DLT_ENTITY_TAG and SMPP_SERVER_DLT_TEMPLATE_TAG must differ.");
  }
  return config;
}

function whatsappConnector(raw: string | undefined, problems: string[]): WhatsAppConfig["connector"] {
  if (raw === undefined || raw === "simulator") return "simulator";
  if (raw === "whatsapp-cloud") return raw;
  problems.push(
    `WHATSAPP_CONNECTOR must be simulator or whatsapp-cloud (got "${raw}"). ${SETTINGS.WHATSAPP_CONNECTOR}`,
  );
  return "simulator";
}

function voiceConnector(raw: string | undefined, problems: string[]): VoiceConfig["connector"] {
  if (raw === undefined || raw === "simulator") return "simulator";
  if (raw === "voice-http") return raw;
  problems.push(`VOICE_CONNECTOR must be simulator or voice-http (got "${raw}"). ${SETTINGS.VOICE_CONNECTOR}`);
  return "simulator";
}

function optionalHttpUrl(name: keyof typeof SETTINGS, raw: string | undefined, problems: string[]): string | undefined {
  return raw === undefined ? undefined : httpUrl(name, raw, problems);
}

function sayLanguage(raw: string, problems: string[]): string {
  if (/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(raw)) return raw;
  problems.push(`VOICE_SAY_LANGUAGE must be a language tag like en-IN (got "${raw}"). ${SETTINGS.VOICE_SAY_LANGUAGE}`);
  return "en-IN";
}

function httpUrl(name: keyof typeof SETTINGS, raw: string, problems: string[]): string {
  try {
    const url = new URL(raw);
    if (url.protocol === "http:" || url.protocol === "https:") return raw.replace(/\/+$/, "");
  } catch {
    // reported below
  }
  problems.push(`${name} must be an http(s) URL (got "${raw}"). ${SETTINGS[name]}`);
  return raw;
}

function graphVersion(raw: string, problems: string[]): string {
  if (/^v\d{1,2}\.\d$/.test(raw)) return raw;
  problems.push(`WHATSAPP_GRAPH_VERSION must look like v21.0 (got "${raw}"). ${SETTINGS.WHATSAPP_GRAPH_VERSION}`);
  return "v21.0";
}

function emailConnector(raw: string | undefined, problems: string[]): EmailConfig["connector"] {
  if (raw === undefined || raw === "simulator") return "simulator";
  if (raw === "smtp") return raw;
  problems.push(`EMAIL_CONNECTOR must be simulator or smtp (got "${raw}"). ${SETTINGS.EMAIL_CONNECTOR}`);
  return "simulator";
}

function smtpUrl(raw: string | undefined, problems: string[]): string | undefined {
  if (raw === undefined) return undefined;
  try {
    const url = new URL(raw);
    if ((url.protocol === "smtp:" || url.protocol === "smtps:") && url.hostname !== "") return raw;
  } catch {
    // reported below
  }
  problems.push(`SMTP_URL must look like smtp://user:password@host:587 (got "${raw.replace(/:[^:@/]*@/, ":***@")}").`);
  return undefined;
}

function parseOptOutWords(raw: string | undefined, problems: string[]): ReadonlySet<string> {
  if (raw === undefined) return new Set(DEFAULT_OPT_OUT_WORDS);
  const words = raw
    .split(",")
    .map((word) => word.trim().toUpperCase())
    .filter((word) => word !== "");
  const bad = words.filter((word) => !/^[A-Z0-9]{1,30}$/.test(word) || word === "START");
  if (words.length === 0 || bad.length > 0) {
    problems.push(
      `OPT_OUT_WORDS must be comma-separated words of 1 to 30 letters or digits, not START (got "${raw}"). ${SETTINGS.OPT_OUT_WORDS}`,
    );
    return new Set(DEFAULT_OPT_OUT_WORDS);
  }
  return new Set(words);
}

function parseDatabaseUrl(raw: string | undefined, cwd: string, problems: string[]): DatabaseTarget {
  if (raw === undefined) return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      new URL(raw);
      return { engine: "postgres", url: raw };
    } catch {
      problems.push(
        `DATABASE_URL is not a valid PostgreSQL URL (got "${raw}"). Example: postgres://postgres@127.0.0.1:5432/switchboard`,
      );
      return { engine: "postgres", url: raw };
    }
  }
  if (raw.startsWith("sqlite:")) {
    const file = raw.slice("sqlite:".length).replace(/^\/\/(?=\/)/, "");
    if (file === "") {
      problems.push('DATABASE_URL "sqlite:" needs a file path, e.g. sqlite:./data/switchboard.db');
      return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
    }
    return { engine: "sqlite", file: file === ":memory:" ? file : path.resolve(cwd, file) };
  }
  problems.push(
    `DATABASE_URL must start with sqlite: or postgres:// (got "${raw}"). Leave it unset for the embedded SQLite file ./data/switchboard.db.`,
  );
  return { engine: "sqlite", file: path.resolve(cwd, "data", "switchboard.db") };
}
