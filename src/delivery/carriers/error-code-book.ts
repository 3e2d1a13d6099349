// The connectors' error_codes tables as the report ingester reads them: from the carriers table,
// read again when the catalog's version changed, at most once a second.
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Store } from "../../base/store/store.js";
import { carriersVersion, listCarriers } from "./catalog.js";
import { type ErrorCodeEntry, type ErrorCodeTable, mappedReason } from "./error-codes.js";

const RECHECK_MS = 1_000;

export class ErrorCodeBook {
  private tables = new Map<string, ErrorCodeTable | undefined>();
  private version: string | undefined;
  private checkedAt = 0;
  private reading: Promise<void> | undefined;

  constructor(private readonly store: Pick<Store, "db">) {}

  /** The reason a failure code of `connector`'s carrier maps to, if any (the default table for a connector not configured). */
  async reasonOf(connector: string, carrierCode: string): Promise<ErrorCodeEntry | undefined> {
    if (Date.now() - this.checkedAt >= RECHECK_MS) {
      this.reading ??= this.refresh().finally(() => {
        this.reading = undefined;
      });
      await this.reading;
    }
    return mappedReason(this.tables.get(connector), carrierCode);
  }

  private async refresh(): Promise<void> {
    const version = await carriersVersion(this.store.db);
    this.checkedAt = Date.now();
    if (version === this.version) return;
    const carriers = await listCarriers(this.store.db);
    this.tables = new Map(carriers.map((carrier) => [carrier.name, carrier.definition.error_codes]));
    this.version = version;
  }
}

/** What a ReportIngester takes to map carriers' codes to reasons and refund as the operator says. */
export function reportReasonOptions(ctx: Pick<Runtime, "store" | "config">) {
  return { reasons: new ErrorCodeBook(ctx.store), refundReasons: ctx.config.refundCarrierReasons };
}
