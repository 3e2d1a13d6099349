// A failed report's carrier code, or a submit refusal's code, mapped to its reason (the
// connector's error_codes table, read by the caller's book) before it is recorded.
import { carrierCodeOf, type DeliveryReport, type Failure } from "../../domain/messages/index.js";

/** Where the reasons come from (carriers/error-code-book.ts). */
export interface CarrierReasons {
  reasonOf(connector: string, carrierCode: string): Promise<{ reason: string; description: string } | undefined>;
}

/**
 * Each report as it applies: a failed one whose carrier code maps to a reason gets that reason,
 * and its message says the reason's description first; a code that maps to nothing leaves the
 * report as it was. Copies: the report as the carrier gave it is what early_reports keeps, and it
 * is classified when it applies from there as on time (docs/decisions/0188).
 */
export async function classifyReports<T extends DeliveryReport>(
  reasons: CarrierReasons | undefined,
  reports: T[],
): Promise<T[]> {
  if (!reasons) return reports;
  const classified: T[] = [];
  for (const report of reports) {
    const carrierCode = carrierCodeOf(report);
    const mapped =
      carrierCode !== undefined && !report.reason && (await reasons.reasonOf(report.connector, carrierCode));
    if (!mapped) {
      classified.push(report);
      continue;
    }
    const detail = report.message ?? `The carrier reported the message failed (${carrierCode}).`;
    classified.push({
      ...report,
      reason: { reason: mapped.reason, carrierCode },
      message: `${mapped.description} (carrier code ${carrierCode}). ${detail}`,
    });
  }
  return classified;
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
