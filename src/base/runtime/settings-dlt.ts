// The operator's DLT settings (India's TRAI rules), in the shape of settings.ts, which lists them
// before the channels' settings.
import { dltTmId, flag, type SettingSpec } from "./config-values.js";

export const DLT_SETTINGS = {
  DLT_TM_ID: {
    field: "dlt.tmId",
    description:
      "The operator's own DLT telemarketer ID: the last of every entity's telemarketer chain as carriers get it, as the operator sees it and as an SMPP client's is checked, whenever the chain was declared (added when the chain does not end with it). Unset: a chain is taken as declared.",
    parser: dltTmId,
  },
  DLT_CHAIN_REQUIRED: {
    field: "dlt.chainRequired",
    description:
      "1 or true refuses (dlt_chain_missing, legacy -31, SMPP 0x40C) an Indian-route SMS of an account with DLT scrubbing on whose DLT entity has no declared telemarketer chain, as operators drop those since December 2024.",
    default: "0",
    parser: flag,
  },
  DLT_TEMPLATES_ALL_ROUTES: {
    field: "dlt.templatesAllRoutes",
    description:
      "1 or true holds promotional SMS (routes P and PS) of an account with DLT scrubbing on to an approved template as transactional SMS are (dlt_template_mismatch, legacy -8), since TRAI requires a content template for every category and operators drop untemplated promotional SMS. Off: promotional text needs a template only when the send names a dlt_template_id.",
    default: "0",
    parser: flag,
  },
} as const satisfies Record<string, SettingSpec>;
