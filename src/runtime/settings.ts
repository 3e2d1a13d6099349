// The environment variables Switchboard reads, each with the description README and the
// configuration errors quote.

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

export type SettingName = keyof typeof SETTINGS;
