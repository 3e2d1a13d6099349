// Messages a carrier failed, refunded when the operator's policy refunds their reason
// (REFUND_CARRIER_REASONS, docs/decisions/0123-operators-error-codes.md): at every level of a
// reseller's tree, as a failure before the carrier is, in the transaction that failed them.
import type { Clock } from "../../base/core/clock.js";
import type { Wallet } from "../../base/core/credits.js";
import type { Db } from "../../base/store/store.js";
import { refundMany, uplineRefunds } from "../accounts/index.js";
import { chunks } from "./transitions.js";

/**
 * Refunds `failed` (just failed by their carrier's report, each once), noting their reason in the
 * ledger entry, and marks them refunded (carrier_refunded_at: margin.ts counts no revenue for them).
 */
export async function refundCarrierFailures(
  trx: Db,
  clock: Clock,
  failed: ReadonlyArray<{ id: string; error_reason: string | null }>,
): Promise<number> {
  let refunded = 0;
  for (const part of chunks([...failed])) {
    const reasons = new Map(part.map((row) => [row.id, row.error_reason]));
    const rows = await trx
      .selectFrom("messages")
      .select(["id", "account_id", "wallet", "credits", "upline"])
      .where(
        "id",
        "in",
        part.map((row) => row.id),
      )
      .execute();
    await refundMany(
      trx,
      clock,
      rows.flatMap((row) => {
        const note = `refund: the carrier refused it (${reasons.get(row.id) ?? "failed"})`;
        const wallet = row.wallet as Wallet;
        return [
          { accountId: row.account_id, wallet, amount: row.credits, ref: row.id, note },
          ...uplineRefunds(row.upline, { wallet, ref: row.id, note }),
        ];
      }),
    );
    await trx
      .updateTable("messages")
      .set({ carrier_refunded_at: clock.now().getTime() })
      .where(
        "id",
        "in",
        rows.map((row) => row.id),
      )
      .execute();
    refunded += rows.length;
  }
  return refunded;
}
