// Every setting Switchboard reads from the environment, declared, validated and documented once.
import os from "node:os";
import type { DatabaseTarget } from "../store/store.js";
import {
  connectorName,
  graphVersion,
  httpUrl,
  optionalHttpUrl,
  parseDatabaseUrl,
  parseOptOutWords,
  sayLanguage,
  smtpUrl,
} from "./config-values.js";
import { SETTINGS, type SettingName } from "./settings.js";

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

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

type Env = Record<string, string | undefined>;

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const problems: string[] = [];
  const read = (name: SettingName): string | undefined => {
    const value = env[name]?.trim();
    return value === "" ? undefined : value;
  };

  const int = (name: SettingName, fallback: number, min: number, max: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name} must be a whole number from ${min} to ${max} (got "${raw}"). ${SETTINGS[name]}`);
      return fallback;
    }
    return Number(raw);
  };

  const ratio = (name: SettingName, fallback: number): number => {
    const raw = read(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0 || value > 1) {
      problems.push(`${name} must be a number from 0 to 1 (got "${raw}"). ${SETTINGS[name]}`);
      return fallback;
    }
    return value;
  };

  const flag = (name: SettingName): boolean => {
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
      connector: connectorName(
        "WHATSAPP_CONNECTOR",
        read("WHATSAPP_CONNECTOR"),
        ["simulator", "whatsapp-cloud"],
        problems,
      ),
      graphUrl: httpUrl("WHATSAPP_GRAPH_URL", read("WHATSAPP_GRAPH_URL") ?? "https://graph.facebook.com", problems),
      graphVersion: graphVersion(read("WHATSAPP_GRAPH_VERSION") ?? "v21.0", problems),
      appSecret: read("WHATSAPP_APP_SECRET"),
      verifyToken: read("WHATSAPP_VERIFY_TOKEN"),
      timeoutMs: int("WHATSAPP_TIMEOUT_MS", 15_000, 100, 600_000),
      templateSyncSeconds: int("WHATSAPP_TEMPLATE_SYNC_SECONDS", 300, 0, 86_400),
      simulatorLatencyMs: int("WHATSAPP_SIMULATOR_LATENCY_MS", 500, 0, 600_000),
    },
    voice: {
      connector: connectorName("VOICE_CONNECTOR", read("VOICE_CONNECTOR"), ["simulator", "voice-http"], problems),
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
      connector: connectorName("EMAIL_CONNECTOR", read("EMAIL_CONNECTOR"), ["simulator", "smtp"], problems),
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
  read: (name: SettingName) => string | undefined,
  int: (name: SettingName, fallback: number, min: number, max: number) => number,
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
