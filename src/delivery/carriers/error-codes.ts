// Indian operators' own codes for DLT refusals, in submit responses and delivery receipts (the
// 6xx family of the DLT platforms' scrubbing), mapped to stable reasons of the error catalogue.
// A connector's `error_codes` table overrides the default table code by code; a code neither
// knows leaves the failure as it was. Sources of the default table: docs/carriers.md.
import { ERROR_CATALOGUE, type ErrorCode } from "../../base/core/errors.js";

export interface ErrorCodeEntry {
  reason: ErrorCode;
  description: string;
}

/** Carrier code → reason and description. */
export type ErrorCodeTable = Record<string, ErrorCodeEntry>;

export const ERROR_CODE_PATTERN = /^[A-Za-z0-9_.:-]{1,32}$/;
const MAX_ENTRIES = 1_000;
const MAX_DESCRIPTION = 200;

const entry = (reason: ErrorCode, description: string): ErrorCodeEntry => ({ reason, description });

/** The DLT platforms' scrubbing codes as the operators publish them; reserved ranges are not mapped. */
export const DEFAULT_ERROR_CODES: Readonly<ErrorCodeTable> = {
  "600": entry("dlt_entity_not_whitelisted", "ENTITY_NOT_FOUND: no entity with this id on the DLT platform"),
  "601": entry("dlt_entity_not_whitelisted", "ENTITY_NOT_REGISTERED: the entity is not registered on the platform"),
  "602": entry("dlt_entity_inactive", "ENTITY_INACTIVE: the entity is inactive on the platform"),
  "603": entry("dlt_entity_blacklisted", "ENTITY_BLACKLISTED: the entity is blacklisted on all platforms"),
  "604": entry("dlt_entity_not_whitelisted", "INVALID_ENTITY_ID: wrong entity id format, or no entity id tag"),
  "605": entry(
    "dlt_telemarketer_rejected",
    "ENTITY_ID_NOT_ALLOWED_FOR_TM: the entity is not allowed for the telemarketer",
  ),
  "610": entry("dlt_telemarketer_rejected", "TELEMARKETER_NOT_REGISTERED: the telemarketer id is not on the platform"),
  "611": entry("dlt_telemarketer_rejected", "TELEMARKETER_INACTIVE: the telemarketer is inactive on the platform"),
  "612": entry("dlt_telemarketer_rejected", "TELEMARKETER_BLACKLISTED: the telemarketer is blacklisted"),
  "613": entry(
    "dlt_telemarketer_rejected",
    "TELEMARKETER_NOT_ALLOWED_FOR_ENTITY: the telemarketer is not allowed for the entity",
  ),
  "614": entry("dlt_telemarketer_rejected", "PE_TM_HASH_NOT_RECEIVED: no PE-TM chain hash was received"),
  "615": entry("dlt_telemarketer_rejected", "PE_TM_HASH_NOT_REGISTERED: the PE-TM chain hash is not registered"),
  "616": entry("dlt_telemarketer_rejected", "PE_TM_HASH_INACTIVE: the PE-TM chain hash is inactive"),
  "617": entry("dlt_telemarketer_rejected", "PE_TM_HASH_BLACKLISTED: the PE-TM chain hash is blacklisted"),
  "618": entry("dlt_telemarketer_rejected", "PE_TM_HASH_SUSPENDED: the PE-TM chain hash is suspended"),
  "620": entry("dlt_header_not_whitelisted", "HEADER_NOT_FOUND: no such header (case-sensitive) on the platform"),
  "621": entry("dlt_header_inactive", "HEADER_INACTIVE: the header is inactive on the platform"),
  "622": entry("dlt_header_blacklisted", "HEADER_BLACKLISTED: the header is blacklisted"),
  "623": entry(
    "dlt_header_not_whitelisted",
    "PEID_NOT_MATCHED_WITH_HEADER: the header is not registered to this entity",
  ),
  "630": entry("dlt_template_mismatch", "TEMPLATE_NOT_FOUND: no such template on the platform"),
  "631": entry("dlt_template_inactive", "TEMPLATE_INACTIVE: the template is inactive on the platform"),
  "632": entry("dlt_template_blacklisted", "TEMPLATE_BLACKLISTED: the template is blacklisted"),
  "633": entry("dlt_template_mismatch", "TEMPLATE_NOT_MATCHED: the text does not match the registered template"),
  "634": entry("dlt_template_mismatch", "HEADER_NOT_REGISTERED_FOR_TEMPLATE: the header is not linked to the template"),
  "635": entry("dlt_template_mismatch", "TEMPLATE_VARIABLE_EXCEEDED_MAX_LENGTH: a variable is longer than allowed"),
  "636": entry("dlt_template_mismatch", "ERROR_IDENTIFYING_TEMPLATE: the platform could not identify the template"),
  "637": entry("dlt_template_mismatch", "INVALID_TEMPLATE_ID: wrong template id format, or no template id tag"),
  "650": entry("dnd_blocked", "PREFERENCE_NOT_MATCHED: the recipient's preferences (DND) block this category"),
  "660": entry("dlt_consent_missing", "CONSENT_FAILED: the recipient's consent for this send was not found"),
  "670": entry("dlt_scrubbing_failed", "SCRUBBING_FAILED: the operator's scrubbing refused the message"),
};

export class ErrorCodeTableError extends Error {
  override readonly name = "ErrorCodeTableError";
}

/** Checks an `error_codes` table (the carriers file, the operator API, the CLI); the error names the wrong entry. */
export function parseErrorCodes(input: unknown): ErrorCodeTable {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ErrorCodeTableError(
      'error_codes must be an object of carrier code → { "reason", "description" }, e.g. { "633": { "reason": "dlt_template_mismatch", "description": "Template not matched" } }.',
    );
  }
  const entries = Object.entries(input);
  if (entries.length > MAX_ENTRIES) throw new ErrorCodeTableError(`error_codes holds at most ${MAX_ENTRIES} codes.`);
  const table: ErrorCodeTable = {};
  for (const [code, value] of entries) {
    if (!ERROR_CODE_PATTERN.test(code)) {
      throw new ErrorCodeTableError(
        `error_codes: "${code.slice(0, 40)}" is not a carrier code (1 to 32 letters, digits, _ . : -).`,
      );
    }
    const { reason, description, ...rest } = (typeof value === "object" && value !== null ? value : {}) as Record<
      string,
      unknown
    >;
    if (typeof value !== "object" || value === null || Object.keys(rest).length > 0) {
      throw new ErrorCodeTableError(`error_codes.${code} must be { "reason", "description" } and nothing else.`);
    }
    if (typeof reason !== "string" || !Object.hasOwn(ERROR_CATALOGUE, reason)) {
      throw new ErrorCodeTableError(
        `error_codes.${code}.reason must be a code of the error catalogue (e.g. dlt_template_mismatch, dlt_header_inactive); ${JSON.stringify(reason)} is not one.`,
      );
    }
    if (typeof description !== "string" || description.trim() === "" || description.length > MAX_DESCRIPTION) {
      throw new ErrorCodeTableError(
        `error_codes.${code}.description must be text of 1 to ${MAX_DESCRIPTION} characters.`,
      );
    }
    table[code] = { reason: reason as ErrorCode, description };
  }
  return table;
}

/** The reason of `carrierCode` on a connector with `own` table: its own entry, else the default's. */
export function mappedReason(own: ErrorCodeTable | undefined, carrierCode: string): ErrorCodeEntry | undefined {
  if (own && Object.hasOwn(own, carrierCode)) return own[carrierCode];
  return Object.hasOwn(DEFAULT_ERROR_CODES, carrierCode) ? DEFAULT_ERROR_CODES[carrierCode] : undefined;
}

/** A connector's table as the operator API shows it: every code it maps, its own over the default's. */
export function effectiveErrorCodes(own: ErrorCodeTable | undefined) {
  const codes = new Set([...Object.keys(DEFAULT_ERROR_CODES), ...Object.keys(own ?? {})]);
  return [...codes].sort().map((code) => {
    const mine = own !== undefined && Object.hasOwn(own, code);
    const { reason, description } = (mine ? own[code] : DEFAULT_ERROR_CODES[code])!;
    return { code, reason, description, source: mine ? "connector" : "default" };
  });
}
