// A failed report's carrier code mapped to its reason (the connector's error_codes table, read
// by the caller's book) before the report is applied, and the reasons the operator refunds.
import { carrierCodeOf, type DeliveryReport } from "../../domain/messages/index.js";

/** Where the reasons come from (carriers/error-code-book.ts). */
export interface CarrierReasons {
  reasonOf(connector: string, carrierCode: string): Promise<{ reason: string; description: string } | undefined>;
}

/**
 * Sets each failed report's reason when its carrier code maps to one; its message then says the
 * reason's description first. A code that maps to nothing leaves the report as it was.
 */
export async function classifyReports(reasons: CarrierReasons | undefined, reports: DeliveryReport[]): Promise<void> {
  if (!reasons) return;
  for (const report of reports) {
    const carrierCode = carrierCodeOf(report);
    if (carrierCode === undefined || report.reason) continue;
    const mapped = await reasons.reasonOf(report.connector, carrierCode);
    if (!mapped) continue;
    report.reason = { reason: mapped.reason, carrierCode };
    const detail = report.message ?? `The carrier reported the message failed (${carrierCode}).`;
    report.message = `${mapped.description} (carrier code ${carrierCode}). ${detail}`;
  }
}
