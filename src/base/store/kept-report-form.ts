// A failed report kept in early_reports as versions before migration 0076 wrote it, read as this
// version keeps one (docs/decisions/0188): shared by the migration, which converts the rows kept
// before it, and by the reader of kept reports (domain/messages/early-reports.ts), for rows a
// process of an older version still writes during a rolling upgrade. Those versions wrote no
// carrier_code; error_code held the carrier's own code with it as JSON,
// {"code":"UNDELIV","carrier_code":"633"}, when it was apart from the code (0184), and
// error_message the message as classified when kept: the reason's description and
// " (carrier code 633). " before the carrier's own (dispatch/carrier-reasons.ts), which is
// classified again when it applies.

/** A kept report's code, carrier code and message, as early_reports holds them since 0076. */
export interface KeptReportForm {
  error_code: string | null;
  /** The carrier's own code, which the error_codes tables map: the code when none was apart. */
  carrier_code: string | null;
  /** The carrier's own message, unclassified. */
  error_message: string | null;
}

/** A row written without carrier_code (before 0076, or by an older process) as 0076 keeps it. */
export function keptReportOfOldForm(row: { error_code: string | null; error_message: string | null }): KeptReportForm {
  let code = row.error_code;
  let apart: string | null = null;
  if (code?.startsWith("{")) {
    try {
      const kept = JSON.parse(code) as { code?: unknown; carrier_code?: unknown };
      if (typeof kept.code === "string") {
        code = kept.code;
        apart = typeof kept.carrier_code === "string" ? kept.carrier_code : null;
      }
    } catch {
      // A code kept before 0184 that starts with "{": as it is.
    }
  }
  const carrierCode = apart ?? code;
  const said = carrierCode === null ? "" : ` (carrier code ${carrierCode}). `;
  const at = said === "" ? -1 : (row.error_message?.indexOf(said) ?? -1);
  return {
    error_code: code,
    carrier_code: carrierCode,
    error_message: at > 0 ? row.error_message!.slice(at + said.length) : row.error_message,
  };
}
