// The settings of the channels beside SMS (WhatsApp, voice, email), of the SMPP server and of the
// SMS carriers' promotional header, in the shape of settings.ts, which lists them after the gateway's own.
import {
  flag,
  graphVersion,
  httpUrl,
  languageTag,
  listenPort,
  map,
  oneOf,
  promotionalHeader,
  ratio,
  type SettingSpec,
  smtpUrl,
  text,
  vendorTlvTag,
  wholeNumber,
} from "./config-values.js";

export const CHANNEL_SETTINGS = {
  PROMOTIONAL_HEADER: {
    field: "dlt.promotionalHeader",
    description:
      "The operator's registered DLT promotional header (6 digits) that SMS carriers get as the sender of the generic sender ID PROMOTIONAL (route P); messages keep PROMOTIONAL in their answers. Unset: such messages go to the simulated carrier as PROMOTIONAL, and on a real carrier, which drops that header, they fail (dlt_header_not_whitelisted) and are refunded.",
    parser: promotionalHeader,
  },
  WHATSAPP_CONNECTOR: {
    field: "whatsapp.connector",
    description:
      "Connector of accounts that do not name their own: simulator (offline, simulated statuses) or whatsapp-cloud (Meta's Graph API).",
    default: "simulator",
    parser: oneOf(["simulator", "whatsapp-cloud"]),
  },
  WHATSAPP_GRAPH_URL: {
    field: "whatsapp.graphUrl",
    description: "Base URL of Meta's Graph API.",
    default: "https://graph.facebook.com",
    parser: httpUrl,
  },
  WHATSAPP_GRAPH_VERSION: {
    field: "whatsapp.graphVersion",
    description: "Graph API version in request paths.",
    default: "v21.0",
    parser: graphVersion,
  },
  WHATSAPP_APP_SECRET: {
    field: "whatsapp.appSecret",
    description:
      "Secret of the Meta app whose webhook points at /webhooks/whatsapp; callbacks without a valid X-Hub-Signature-256 made with it are refused. Unset: every callback is refused.",
    parser: text,
  },
  WHATSAPP_VERIFY_TOKEN: {
    field: "whatsapp.verifyToken",
    description:
      "Token you type into Meta's webhook settings; GET /webhooks/whatsapp answers Meta's challenge only when it matches. Unset: verification is refused.",
    parser: text,
  },
  WHATSAPP_TIMEOUT_MS: {
    field: "whatsapp.timeoutMs",
    description: "Milliseconds a Graph API call may take before the send answers 502 (nothing charged).",
    default: "15000",
    parser: wholeNumber(100, 600000),
  },
  WHATSAPP_TEMPLATE_SYNC_SECONDS: {
    field: "whatsapp.templateSyncSeconds",
    description:
      "Seconds a synced WhatsApp template list is reused before GET /api/v2/whatsapp/templates syncs it again from the business account.",
    default: "300",
    parser: wholeNumber(0, 86400),
  },
  WHATSAPP_EARLY_STATUSES_MAX: {
    field: "whatsapp.earlyStatusesMax",
    description:
      "WhatsApp statuses kept while no message carries their wamid yet (Meta called before the send's commit); past it the oldest are dropped and counted. Each is kept at most an hour.",
    default: "10000",
    parser: wholeNumber(100, 10_000_000),
  },
  WHATSAPP_SIMULATOR_LATENCY_MS: {
    field: "whatsapp.simulatorLatencyMs",
    description: "Milliseconds the simulated WhatsApp upstream waits between sent, delivered and read.",
    default: "500",
    parser: wholeNumber(0, 600000),
  },
  VOICE_CONNECTOR: {
    field: "voice.connector",
    description:
      "Where voice calls go: simulator (offline, simulated call progress) or voice-http (a Twilio-compatible call API; needs VOICE_HTTP_ACCOUNT_SID, VOICE_HTTP_AUTH_TOKEN and VOICE_CALLBACK_URL).",
    default: "simulator",
    parser: oneOf(["simulator", "voice-http"]),
  },
  VOICE_HTTP_URL: {
    field: "voice.httpUrl",
    description: "Base URL of the Twilio-compatible call API.",
    default: "https://api.twilio.com",
    parser: httpUrl,
  },
  VOICE_HTTP_ACCOUNT_SID: {
    field: "voice.accountSid",
    description: "Account SID at the call provider: the user of HTTP Basic and part of every request path.",
    parser: text,
  },
  VOICE_HTTP_AUTH_TOKEN: {
    field: "voice.authToken",
    description:
      "Auth token at the call provider: the password of HTTP Basic and the key of the X-Twilio-Signature every status callback must carry. Unset: every callback is refused.",
    parser: text,
  },
  VOICE_CALLBACK_URL: {
    field: "voice.callbackUrl",
    description:
      "Public base URL of this gateway as the call provider reaches it, e.g. https://sms.example.com; status callbacks go to {VOICE_CALLBACK_URL}/voicecall/v1/status-callback, and their signature is checked against exactly that URL.",
    parser: httpUrl,
  },
  VOICE_HTTP_TIMEOUT_MS: {
    field: "voice.timeoutMs",
    description:
      "Milliseconds a create-call request may take. A call whose request timed out is failed and refunded, never sent again: the provider may have placed it.",
    default: "8000",
    parser: wholeNumber(100, 10000),
  },
  VOICE_HTTP_CONCURRENCY: {
    field: "voice.concurrency",
    description: "Create-call requests in flight at once, over one keep-alive pool.",
    default: "16",
    parser: wholeNumber(1, 256),
  },
  VOICE_SECONDS_PER_UNIT: {
    field: "voice.secondsPerUnit",
    description:
      "Seconds of estimated speech (15 characters a second) one voice credit pays for; a call costs one credit per started period, at least one.",
    default: "30",
    parser: wholeNumber(1, 3600),
  },
  VOICE_SAY_LANGUAGE: {
    field: "voice.sayLanguage",
    description: "language of <Say>; text with Devanagari letters is spoken as hi-IN.",
    default: "en-IN",
    parser: languageTag,
  },
  VOICE_SAY_VOICE: {
    field: "voice.sayVoice",
    description: "Optional voice of <Say>, e.g. Polly.Aditi. Unset: the provider's default voice for the language.",
    parser: text,
  },
  VOICE_SIMULATOR_LATENCY_MS: {
    field: "voice.simulatorLatencyMs",
    description:
      "Typical milliseconds between the simulated call's steps (ringing, answered, hung up); each takes 0.5 to 1.5 times this.",
    default: "1500",
    parser: wholeNumber(0, 600000),
  },
  VOICE_SIMULATOR_FAILURE_RATE: {
    field: "voice.simulatorFailureRate",
    description:
      "Share of simulated calls that end busy (30 %), unanswered (60 %) or failed (10 %) instead of completed.",
    default: "0.1",
    parser: ratio,
  },
  EMAIL_CONNECTOR: {
    field: "email.connector",
    description:
      "Where email goes: simulator (every message is captured in an inbox the operator reads) or smtp (the relay in SMTP_URL).",
    default: "simulator",
    parser: oneOf(["simulator", "smtp"]),
  },
  SMTP_URL: {
    field: "email.smtpUrl",
    description:
      "The relay for EMAIL_CONNECTOR=smtp: smtp://user:password@host:587 (STARTTLS when offered) or smtps://user:password@host:465.",
    parser: smtpUrl,
  },
  SMTP_POOL_SIZE: {
    field: "email.smtpPoolSize",
    description: "Connections kept open to the relay.",
    default: "5",
    parser: wholeNumber(1, 100),
  },
  SMTP_TIMEOUT_MS: {
    field: "email.smtpTimeoutMs",
    description: "Milliseconds an SMTP conversation may stall before the message is retried.",
    default: "10000",
    parser: wholeNumber(1000, 600000),
  },
  SMTP_TLS_INSECURE: {
    field: "email.smtpTlsRejectUnauthorized",
    description: "1 or true accepts a relay certificate that does not verify (self-signed, private networks, tests).",
    default: "0",
    parser: map(flag, (insecure) => !insecure),
  },
  EMAIL_BOUNCE_DOMAIN: {
    field: "email.bounceDomain",
    description:
      "Domain of the envelope sender: each message goes out from bounces+<message id>@this domain, so a bounce names its message. Point its MX at EMAIL_BOUNCE_PORT.",
    default: "bounces.switchboard.local",
    parser: map(text, (domain) => domain.toLowerCase()),
  },
  EMAIL_TRACKING_URL: {
    field: "email.trackingUrl",
    description:
      "Public base URL of this gateway, used in tracking pixels and click links (e.g. https://mail.example.com). Unset: the address the process that composes the mail listens on; set it when api and worker run apart or behind a proxy.",
    parser: httpUrl,
  },
  EMAIL_BOUNCE_PORT: {
    field: "email.bouncePort",
    description:
      "Port of the SMTP listener that receives bounces (DSNs) addressed to EMAIL_BOUNCE_DOMAIN; 0 turns it off.",
    default: "0",
    parser: wholeNumber(0, 65535),
  },
  SMPP_SERVER_PORT: {
    field: "smppServer.port",
    description:
      "Port of the SMPP 3.4 server account holders bind to (system_id: the username; password: the account's SMPP password), in start and the api role, at HOST; 0 turns it off, auto picks a free port.",
    default: "2775",
    parser: listenPort,
  },
  SMPP_SERVER_TLS_PORT: {
    field: "smppServer.tlsPort",
    description:
      "Port of the same SMPP server over TLS, with SMPP_SERVER_TLS_CERT and SMPP_SERVER_TLS_KEY; 0 turns it off, auto picks a free port.",
    default: "0",
    parser: listenPort,
  },
  SMPP_SERVER_TLS_CERT: {
    field: "smppServer.tlsCertFile",
    description: "PEM certificate (chain) file of the SMPP TLS port.",
    parser: text,
  },
  SMPP_SERVER_TLS_KEY: {
    field: "smppServer.tlsKeyFile",
    description: "PEM private key file of the SMPP TLS port.",
    parser: text,
  },
  SMPP_SERVER_WINDOW: {
    field: "smppServer.window",
    description:
      "Requests one SMPP bind may have outstanding each way: its submits being handled (more wait unread in the socket) and deliver_sm it has not answered.",
    default: "50",
    parser: wholeNumber(1, 1000),
  },
  SMPP_SERVER_ENQUIRE_LINK_SECONDS: {
    field: "smppServer.enquireLinkSeconds",
    description:
      "Seconds of silence on an SMPP bind before the server sends enquire_link; a client that does not answer it within SMPP_SERVER_RESPONSE_TIMEOUT_MS is disconnected.",
    default: "30",
    parser: wholeNumber(1, 3600),
  },
  SMPP_SERVER_IDLE_SECONDS: {
    field: "smppServer.idleSeconds",
    description:
      "Seconds without a request from a bound SMPP client (a submit, its own enquire_link, an answer to a deliver_sm; answers to the server's enquire_link do not count) before the server unbinds it; a connection not yet bound is closed after it too, or after SMPP_SERVER_BIND_TIMEOUT_SECONDS, whichever comes first.",
    default: "300",
    parser: wholeNumber(1, 86400),
  },
  SMPP_SERVER_BIND_TIMEOUT_SECONDS: {
    field: "smppServer.bindTimeoutSeconds",
    description:
      "Seconds a connection to the SMPP server has to bind, whatever it sends meanwhile (enquire_link included); then it is closed. Also the time a client of the TLS port has for its handshake.",
    default: "10",
    parser: wholeNumber(1, 3600),
  },
  SMPP_SERVER_UNBOUND_PER_ADDRESS: {
    field: "smppServer.unboundPerAddress",
    description:
      "Connections from one client address that may be open at once without having bound; the next one from that address is closed at once.",
    default: "10",
    parser: wholeNumber(1, 100000),
  },
  SMPP_SERVER_UNBOUND_MAX: {
    field: "smppServer.unboundMax",
    description:
      "Connections from all addresses that may be open at once without having bound; the next one is closed at once.",
    default: "100",
    parser: wholeNumber(1, 1000000),
  },
  SMPP_SERVER_OUTPUT_MAX_BYTES: {
    field: "smppServer.outputMaxBytes",
    description:
      "Bytes of answers the SMPP server keeps in memory for one client that does not read them (after what the operating system's socket buffers took); past it the connection is closed.",
    default: "262144",
    parser: wholeNumber(16384, 1073741824),
  },
  SMPP_SERVER_HELD_BYTES_PER_ACCOUNT: {
    field: "smppServer.heldBytesPerAccount",
    description:
      "Bytes of parts of long messages waiting for their other parts that one account's SMPP binds may have held in memory at once (text counted at two bytes a character); a part past it is answered ESME_RTHROTTLED (0x58).",
    default: "4194304",
    parser: wholeNumber(65536, 1073741824),
  },
  SMPP_SERVER_HELD_MESSAGES_PER_ACCOUNT: {
    field: "smppServer.heldMessagesPerAccount",
    description:
      "Long messages waiting for their other parts that one account's SMPP binds may have held at once; the first part of one more is answered ESME_RTHROTTLED (0x58).",
    default: "1000",
    parser: wholeNumber(1, 1000000),
  },
  SMPP_SERVER_HELD_BYTES_TOTAL: {
    field: "smppServer.heldBytesTotal",
    description:
      "Bytes of parts of long messages waiting for their other parts that the SMPP server holds in memory for all accounts together; a part past it is answered ESME_RMSGQFUL (0x14), whichever account sends it.",
    default: "67108864",
    parser: wholeNumber(65536, 4294967296),
  },
  SMPP_SERVER_RESPONSE_TIMEOUT_MS: {
    field: "smppServer.responseTimeoutMs",
    description: "How long the SMPP server waits for a client's answer to deliver_sm, enquire_link or unbind.",
    default: "10000",
    parser: wholeNumber(100, 600000),
  },
  SMPP_SERVER_DELIVER_RETRY_MS: {
    field: "smppServer.deliverRetryMs",
    description:
      "How long a deliver_sm (receipt or MO) that the SMPP client refused or did not answer waits before it is sent again; the account's later ones wait behind it.",
    default: "5000",
    parser: wholeNumber(100, 3600000),
  },
  SMPP_SERVER_DLT_ENTITY_TAG: {
    field: "smppServer.dltEntityTag",
    description: "TLV tag in which SMPP clients send the DLT entity id.",
    default: "0x1400",
    parser: vendorTlvTag,
  },
  SMPP_SERVER_DLT_TEMPLATE_TAG: {
    field: "smppServer.dltTemplateTag",
    description: "TLV tag in which SMPP clients send the DLT template id.",
    default: "0x1401",
    parser: vendorTlvTag,
  },
  SMPP_SERVER_DLT_TM_CHAIN_TAG: {
    field: "smppServer.dltTmChainTag",
    description:
      "TLV tag in which SMPP clients may send the DLT telemarketer chain (its IDs PE,TM1,… or their SHA-256 in hex); checked against the entity's declared chain.",
    default: "0x1402",
    parser: vendorTlvTag,
  },
  CHAIN_POLL_MS: {
    field: "chains.pollMs",
    description:
      "How often the worker looks at fallback chains (POST /api/v2/send): a step whose condition is met is sent, a deadline passed is acted on, a finished chain is completed.",
    default: "1000",
    parser: wholeNumber(50, 60000),
  },
  VERIFY_MAX_ATTEMPTS: {
    field: "verify.maxAttempts",
    description: "Wrong codes a verification takes before it is denied (POST /api/v2/verify/{id}/check).",
    default: "5",
    parser: wholeNumber(1, 20),
  },
  VERIFY_RESEND_COOLDOWN_SECONDS: {
    field: "verify.resendCooldownSeconds",
    description:
      "Seconds after a verification's last send before it may be sent again (POST /api/v2/verify/{id}/resend); earlier: 429 verify_resend_too_soon with Retry-After.",
    default: "30",
    parser: wholeNumber(0, 3600),
  },
  VERIFY_RESEND_NEW_CODE: {
    field: "verify.resendNewCode",
    description: "1 or true: a resend sends a new code (the earlier one stops working); otherwise the same code again.",
    default: "0",
    parser: flag,
  },
  VERIFY_STARTS_PER_RECIPIENT_PER_HOUR: {
    field: "verify.startsPerRecipientPerHour",
    description:
      "Verifications an account may start to one recipient in an hour; one more is refused with 429 verify_recipient_limited and Retry-After. 0: no limit.",
    default: "5",
    parser: wholeNumber(0, 10000),
  },
  VERIFY_STARTS_PER_ADDRESS_PER_HOUR: {
    field: "verify.startsPerAddressPerHour",
    description:
      "Verifications an account may start for one end-user address (the start's client_ip) in an hour; one more is refused with 429 verify_address_limited and Retry-After. 0: no limit.",
    default: "10",
    parser: wholeNumber(0, 100000),
  },
  VERIFY_PUMPING_MIN_SAMPLES: {
    field: "verify.pumpingMinSamples",
    description:
      "Verifications an account started to one destination prefix (the first 6 digits with the country code) in the last hour before the pumping guard judges their conversion.",
    default: "50",
    parser: wholeNumber(1, 1000000),
  },
  VERIFY_PUMPING_MIN_CONVERSION: {
    field: "verify.pumpingMinConversion",
    description:
      "Share of those verifications that must be approved: below it, new ones to the prefix are refused (403 verify_prefix_blocked) for an hour and the operator is alerted; the operator can allow a prefix. 0: no prefix guard.",
    default: "0.2",
    parser: ratio,
  },
} as const satisfies Record<string, SettingSpec>;
