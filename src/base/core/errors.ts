// One error type for every refusal. Each API family renders a code in its own dialect:
// v2 as an HTTP status plus `error.code`, legacy/XML/email/voice as the negative `legacy` number.

export interface ErrorSpec {
  /** HTTP status on the JSON (v2, admin) families. */
  http: number;
  /** Negative code of the legacy, XML, email and voice families; undefined where none applies. */
  legacy?: number;
  /** Default human message; callers may give a more specific one. */
  message: string;
}

/** The catalogue. A code keeps its meaning forever: add new codes, never repurpose one. */
export const ERROR_CATALOGUE = {
  invalid_request: { http: 400, message: "The request is not valid." },
  invalid_json: { http: 400, message: "The request body is not valid JSON." },
  // A path that exists, asked with a method it does not take (decision 0186's addendum): Allow names its methods.
  method_not_allowed: { http: 405, message: "This path does not take this method." },
  missing_api_key: { http: 401, legacy: -1, message: "Missing user ID or API key." },
  missing_password: { http: 401, legacy: -2, message: "Missing password." },
  unauthorized: { http: 401, legacy: -7, message: "Authentication failed: missing or invalid API key." },
  account_locked: { http: 403, legacy: -16, message: "User account locked." },
  account_inactive: { http: 403, legacy: -16, message: "The account is not active." },
  forbidden: { http: 403, message: "This operation is not allowed for this account." },
  // A key that can do less (issue 42): -7 on the plain-text families, 401 on WhatsApp (app/route-scopes.ts).
  insufficient_scope: { http: 403, legacy: -7, message: "The API key's scopes do not open this operation." },
  address_not_allowed: {
    http: 403,
    legacy: -7,
    message: "The credential may not be used from this address: it is not in the credential's allowed addresses.",
  },
  operator_only: { http: 403, message: "This endpoint needs an operator API key." },
  insufficient_role: { http: 403, message: "The signed-in user's role does not allow this." },
  read_only_view: {
    http: 403,
    message:
      "This is an operator's read-only view of the account: it changes nothing. Sign in as the account to change it.",
  },
  csrf_rejected: {
    http: 403,
    message:
      "A request made with a console session must repeat the session's CSRF token in X-CSRF-Token (GET /console/session answers it).",
  },
  missing_sender_id: { http: 400, legacy: -4, message: "Missing sender ID." },
  invalid_recipient: { http: 422, legacy: -5, message: "Missing or invalid mobile number." },
  missing_message: { http: 400, legacy: -6, message: "Missing message text." },
  content_not_allowed: { http: 422, legacy: -8, message: "Content not allowed." },
  malformed_xml: { http: 400, legacy: -9, message: "Malformed XML received." },
  invalid_sender_id: { http: 422, legacy: -10, message: "Invalid sender ID or route." },
  dnd_blocked: { http: 422, legacy: -11, message: "Mobile number in DND." },
  recipient_opted_out: {
    http: 422,
    legacy: -11,
    message: "The recipient opted out (STOP) of this account's promotional SMS.",
  },
  insufficient_credits: { http: 402, legacy: -12, message: "Credit not available." },
  flood_limit_exceeded: { http: 429, legacy: -13, message: "Flood limit not sufficient." },
  internal_error: { http: 500, legacy: -14, message: "Internal error." },
  not_found: { http: 404, legacy: -15, message: "Not found." },
  invalid_route: { http: 422, legacy: -17, message: "Invalid route ID (T, P, PS, I, V)." },
  route_sender_mismatch: { http: 422, legacy: -18, message: "Invalid route or sender ID mapping." },
  route_not_approved: { http: 403, legacy: -19, message: "Route or sender ID not approved." },
  international_disabled: { http: 403, legacy: -20, message: "International SMS not enabled." },
  insufficient_international_credits: { http: 402, legacy: -21, message: "International credit not available." },
  promo_sender_disabled: { http: 403, legacy: -22, message: "Promo with sender ID not enabled." },
  dlt_entity_not_whitelisted: { http: 422, legacy: -31, message: "DLT entity ID not white-listed." },
  dlt_header_not_whitelisted: { http: 422, legacy: -32, message: "DLT header ID not white-listed." },
  dlt_template_mismatch: {
    http: 422,
    legacy: -8,
    message: "The message does not match an approved DLT template of the account.",
  },
  dlt_url_not_whitelisted: {
    http: 422,
    legacy: -8,
    message: "The message carries a link not white-listed for its DLT entity.",
  },
  short_links_unavailable: {
    http: 422,
    legacy: -8,
    message: "The send asks for tracked short links, which this gateway does not offer (SHORT_LINK_BASE is not set).",
  },
  dlt_callback_not_whitelisted: {
    http: 422,
    legacy: -8,
    message: "The message carries a phone number not white-listed as a callback number of its DLT entity.",
  },
  dlt_chain_missing: {
    http: 422,
    legacy: -31,
    message: "The send's DLT entity has no declared telemarketer chain, which the operator requires.",
  },
  dlt_chain_mismatch: {
    http: 422,
    legacy: -31,
    message: "The telemarketer chain sent is not the one declared for the send's DLT entity.",
  },
  // Reasons of operators' DLT refusals (issue 40): carriers' codes map to them (delivery/carriers/error-codes.ts).
  dlt_entity_inactive: { http: 422, legacy: -31, message: "The DLT entity is inactive on the DLT platform." },
  dlt_entity_blacklisted: { http: 422, legacy: -31, message: "The DLT entity is blacklisted on the DLT platforms." },
  dlt_telemarketer_rejected: {
    http: 422,
    legacy: -31,
    message: "The DLT platform refused the telemarketer, or its link (PE-TM chain) with the entity.",
  },
  dlt_header_inactive: {
    http: 422,
    legacy: -32,
    message: "The DLT header (sender ID) is inactive on the DLT platform.",
  },
  dlt_header_blacklisted: { http: 422, legacy: -32, message: "The DLT header (sender ID) is blacklisted." },
  dlt_template_inactive: { http: 422, legacy: -8, message: "The DLT template is inactive on the DLT platform." },
  dlt_template_blacklisted: { http: 422, legacy: -8, message: "The DLT template is blacklisted." },
  dlt_consent_missing: {
    http: 422,
    legacy: -11,
    message: "The recipient has not given the consent the DLT platform requires for this send.",
  },
  dlt_scrubbing_failed: { http: 422, legacy: -8, message: "The operator's DLT scrubbing refused the message." },
  unicode_not_allowed: {
    http: 422,
    legacy: -40,
    message: "Unicode not allowed in message; use text, or type=2 with UTF-16BE hex.",
  },
  message_too_long: { http: 422, legacy: -8, message: "The message is longer than the gateway accepts." },
  // No legacy number means "bad schedule"; -8 (content not allowed) is the closest, never -14.
  invalid_schedule: { http: 400, legacy: -8, message: "The schedule time is not valid." },
  duplicate_recipient: { http: 422, message: "The number appears more than once in this request; it is sent once." },
  recipient_inactive: { http: 422, message: "The recipient account is not active." },
  conflict: { http: 409, message: "The request conflicts with the current state." },
  wrong_code: {
    http: 422,
    message: "The two-factor code is wrong, or was used already: give the one your app shows now.",
  },
  idempotency_conflict: {
    http: 409,
    message: "This Idempotency-Key was used with a different request body.",
  },
  rate_limited: { http: 429, legacy: -13, message: "Too many requests." },
  upstream_error: { http: 502, legacy: -14, message: "Upstream provider error." },
  service_unavailable: {
    http: 503,
    legacy: -14,
    message: "The database cannot be reached right now; nothing was stored. Retry shortly.",
  },
  // WhatsApp (v2): the spec's error table, code for code.
  module_disabled: { http: 403, message: "Module disabled: WhatsApp is not enabled for this account." },
  template_not_found: { http: 404, message: "Template not found or not approved." },
  no_business_account: {
    http: 409,
    message: "No business account connected: WhatsApp onboarding is incomplete for this account.",
  },
  template_required: {
    http: 422,
    message: "The 24-hour window is closed: the recipient has not messaged in 24 hours, so send a template instead.",
  },
  template_not_sendable: { http: 422, message: "The template cannot be sent from the current sender." },
  // Verify (v2): one-time codes.
  verification_closed: {
    http: 409,
    message: "The verification is already approved or cancelled; start a new one.",
  },
  verify_channel_unavailable: {
    http: 422,
    message:
      "The account cannot send verification codes by this channel: its verify settings lack what the channel needs, or the channel is not available for codes.",
  },
  verify_resend_too_soon: {
    http: 429,
    message: "The code was sent moments ago; Retry-After says when it may be sent again.",
  },
  verify_recipient_limited: {
    http: 429,
    message: "Too many verifications started to this recipient in the last hour; Retry-After says when to try again.",
  },
  verify_address_limited: {
    http: 429,
    message:
      "Too many verifications started for this end-user address (client_ip) in the last hour; Retry-After says when to try again.",
  },
  verify_country_not_allowed: {
    http: 403,
    message: "The account may not verify numbers of this country: the operator sets its verify_countries.",
  },
  verify_prefix_blocked: {
    http: 403,
    message:
      "Verifications to this number prefix are refused for an hour: too few recent ones were approved (SMS pumping). The operator can allow the prefix.",
  },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export class GatewayError extends Error {
  readonly spec: ErrorSpec;
  /**
   * Why, in words for the log of refusals only, never in the answer: which wallet was short and by
   * how much. `level` 0 is the account's own (read by every reader of the refusal, decision 0192);
   * 1 and up an ancestor's in a reseller tree (read by the operator and that ancestor and the
   * levels above it only, decision 0158).
   */
  upline?: { reason: string; level: number };
  /** The message of a several-message document (XML) it refuses: 1-based, and its number; the log of refusals keeps only that number. */
  item?: { position: number; recipient: string };
  /**
   * The input of the request the refusal is about where its code alone does not say (a DLT
   * template id given and refused, not a text that matches no template), in the family-neutral
   * name of the rules' input (SmsSendInput's `dltTemplateId`). Never in an answer: a family that
   * names fields (v2's `error.field`) names it in its own words.
   */
  about?: string;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    /** Extra fields for the JSON answer, e.g. the offending field name. */
    readonly details?: Record<string, unknown>,
  ) {
    const spec: ErrorSpec = ERROR_CATALOGUE[code];
    super(message ?? spec.message);
    this.name = "GatewayError";
    this.spec = spec;
  }

  get httpStatus(): number {
    return this.spec.http;
  }

  /** The legacy negative code; codes with none fall back to -14 (internal) only when truly internal. */
  get legacyCode(): number | undefined {
    return this.spec.legacy;
  }
}

/**
 * A refusal of a part of a larger request (a list's entry, say), naming where it lies there:
 * `at` is given the field the part named, if any. Anything else is answered as it was.
 */
export function refusalAt(error: unknown, at: (field: string | undefined) => string): unknown {
  if (!(error instanceof GatewayError)) return error;
  const field = typeof error.details?.field === "string" ? error.details.field : undefined;
  return new GatewayError(error.code, error.message, { ...error.details, field: at(field) });
}

/** `error`, marked as about one input of the request (`GatewayError.about`). */
export function aboutInput(error: GatewayError, input: string): GatewayError {
  error.about = input;
  return error;
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}
