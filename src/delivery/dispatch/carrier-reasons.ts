// A failed report's carrier code, or a submit refusal's code, mapped to its reason (the
// connector's error_codes table, read by the caller's book) before it is recorded.
import { carrierCodeOf, type DeliveryReport, type Failure } from "../../domain/messages/index.js";

/** Where the reasons come from (carriers/error-code-book.ts). */
export interface CarrierReasons {
  reasonOf(connector: string, carrierCode: string): Promise<{ reason: string; description: string } | undefined>;
}

/**
 * Sets each failed report's reason when its carrier code maps to one; its message then says the
 * reason's description first, once: a report kept in early_reports was kept with that message
 * and is classified again when it applies from there. A code that maps to nothing leaves the
 * report as it was.
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
    const said = `${mapped.description} (carrier code ${carrierCode}). `;
    report.message = detail.startsWith(said) ? detail : `${said}${detail}`;
  }
}

/**
 * The same for refusals of a submit (an SMSC's vendor-specific command_status, an aggregator's
 * code): a failure whose connector maps its code gets its reason. Refunded as every refusal
 * before a carrier is, whatever the policy.
 */
export async function classifyFailures(reasons: CarrierReasons | undefined, failures: Failure[]): Promise<void> {
  if (!reasons) return;
  for (const failure of failures) {
    if (!failure.connector || failure.reason) continue;
    const mapped = await reasons.reasonOf(failure.connector, failure.code);
    if (!mapped) continue;
    failure.reason = { reason: mapped.reason, carrierCode: failure.code };
    failure.message = `${mapped.description} (carrier code ${failure.code}). ${failure.message}`;
  }
}
