// The connectors' error_codes tables and the refund policy per reason as the report ingester and
// the dispatcher read them: from the carriers table and `settings`, read again when the catalog's
// version changed (looked at once a second, and at the next lookup after CARRIERS_CHANGED).
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Store } from "../../base/store/store.js";
import { CARRIERS_CHANGED, carriersVersion, listCarriers } from "./catalog.js";
import { type ErrorCodeEntry, type ErrorCodeTable, mappedReason } from "./error-codes.js";
import { readRefundChoices, refundedReasons } from "./refund-policy.js";

const RECHECK_MS = 1_000;

export class ErrorCodeBook {
  private tables = new Map<string, ErrorCodeTable | undefined>();
  private refunded: ReadonlySet<string>;
  private version: string | undefined;
  private checkedAt = 0;
  private reading: Promise<void> | undefined;

  /** `refundDefaults`: the reasons REFUND_CARRIER_REASONS refunds, before the operator's choices. */
  constructor(
    private readonly store: Pick<Store, "db" | "signals" | "statement">,
    private readonly refundDefaults: ReadonlySet<string> = new Set(),
  ) {
    this.refunded = refundDefaults;
    // A change made through this process or another is read at the next lookup, not a second later.
    store.signals.listen(CARRIERS_CHANGED, () => {
      this.checkedAt = 0;
    });
  }

  /** The reason a failure code of `connector`'s carrier maps to, if any (the default table for a connector not configured). */
  async reasonOf(connector: string, carrierCode: string): Promise<ErrorCodeEntry | undefined> {
    await this.current();
    return mappedReason(this.tables.get(connector), carrierCode);
  }

  /** The reasons whose carrier failures are refunded now: the default's, with the operator's choices over it. */
  async refundedReasons(): Promise<ReadonlySet<string>> {
    await this.current();
    return this.refunded;
  }

  private async current(): Promise<void> {
    if (Date.now() - this.checkedAt < RECHECK_MS) return;
    this.reading ??= this.refresh().finally(() => {
      this.reading = undefined;
    });
    await this.reading;
  }

  private async refresh(): Promise<void> {
    const version = await carriersVersion(this.store);
    this.checkedAt = Date.now();
    if (version === this.version) return;
    const [carriers, choices] = await Promise.all([listCarriers(this.store.db), readRefundChoices(this.store.db)]);
    this.tables = new Map(carriers.map((carrier) => [carrier.name, carrier.definition.error_codes]));
    this.refunded = refundedReasons(this.refundDefaults, choices);
    this.version = version;
  }
}

/** What a ReportIngester takes to map carriers' codes to reasons and refund as the operator says. */
export function reportReasonOptions(ctx: Pick<Runtime, "store" | "config">) {
  const book = new ErrorCodeBook(ctx.store, ctx.config.refundCarrierReasons);
  return { reasons: book, refunds: book };
}
