// Migration 0076 on a database holding failed reports kept early as the versions before it kept
// them (decision 0184): an SMPP report's code and carrier code together in error_code as JSON, an
// http-sms report's plain code, each with its message as classified when kept (the reason's
// description first). The migration splits the JSON into error_code and carrier_code and gives
// the message back as the carrier said it; applied afterwards, each kept report ends its message
// exactly as the same report on time does (status, code, reason, carrier code, message, refund),
// and so does one an older process still running writes in the old form after the upgrade.
import { expect, it } from "vitest";
import { createAccountWithKey } from "../../../src/app/admin/index.js";
import { createLogger } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { loadConfig } from "../../../src/base/runtime/config.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { reportOf } from "../../../src/delivery/carriers/smpp/finished-parts.js";
import { ReportIngester } from "../../../src/delivery/dispatch/index.js";
import { cliActor } from "../../../src/domain/audit/index.js";
import { claimDueMessages, type DeliveryReport, markSubmitted } from "../../../src/domain/messages/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { createEmptyDatabase, migrateTo } from "../../helpers/empty-database.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { acceptSms } from "../../helpers/message-row.js";

const DESCRIPTION = "The text matches no template registered for the header";
const REASONS = {
  reasonOf: async (_connector: string, code: string) =>
    code === "633" ? { reason: "dlt_template_mismatch", description: DESCRIPTION } : undefined,
};
const REFUNDS = { refundedReasons: async () => new Set(["dlt_template_mismatch"]) };

/** The SMPP report of a failed receipt (stat UNDELIV, err 633) for `upstreamId`. */
function smppReport(upstreamId: string): DeliveryReport {
  const part = { upstream_id: upstreamId, status: "failed", error_code: "UNDELIV/633", done_at: 7_000, part_index: 0 };
  return reportOf("smsc", [part as never], 7_000)!;
}

/** The http-sms report of a failed message (its code the carrier's, 633) for `upstreamId`. */
function httpReport(upstreamId: string): DeliveryReport {
  return { connector: "agg", upstreamId, status: "failed", at: 7_000, code: "633", message: "DLT template mismatch" };
}

/** `report` as a version before 0076 kept it in early_reports. */
function oldKeptRow(report: DeliveryReport, receivedAt: number) {
  const carrierCode = report.carrierCode ?? report.code!;
  return {
    connector: report.connector,
    upstream_id: report.upstreamId,
    status: report.status,
    at: report.at,
    error_code: report.carrierCode ? JSON.stringify({ code: report.code, carrier_code: carrierCode }) : report.code!,
    error_message: `${DESCRIPTION} (carrier code ${carrierCode}). ${report.message}`,
    received_at: receivedAt,
  };
}

describeEachEngine("failed reports kept early before migration 0076", (engine) => {
  it("apply after the upgrade as the same reports on time do", async () => {
    const empty = await createEmptyDatabase(engine);
    let store: Store | undefined;
    try {
      store = await openStore(loadConfig({ DATABASE_URL: empty.url }).database);
      const db = store;
      await migrateTo(db, engine, "0075_message_carrier_source");
      const account = await createAccountWithKey(
        { store: db, clock: systemClock, actor: cliActor() },
        { username: "upgrade", password: "upgrade-password", credits: { sms: 100 } },
      );
      // Five messages sent, their submits recorded as the reports name them.
      const ids = new Map<string, string>();
      const names = ["S-ON-TIME", "S-KEPT", "H-ON-TIME", "H-KEPT", "H-OLD-PROCESS"];
      for (const [n, name] of names.entries())
        ids.set(name, await acceptSms(db, account.id, { recipient: `98765${60000 + n}` }));
      expect(await claimDueMessages(db, db.db, Date.now(), 10)).toHaveLength(names.length);
      await db.transaction((trx) =>
        markSubmitted(
          db,
          trx,
          names.map((name) => ({
            id: ids.get(name)!,
            connector: name.startsWith("S-") ? "smsc" : "agg",
            upstreamId: name,
            at: 5_000,
            attempts: 1,
          })),
        ),
      );
      // Two reports kept by the version before, their processes gone.
      const now = Date.now();
      await db.db
        .insertInto("early_reports")
        .values([oldKeptRow(smppReport("S-KEPT"), now), oldKeptRow(httpReport("H-KEPT"), now)] as never)
        .execute();

      await db.migrate();
      const kept = await db.db
        .selectFrom("early_reports")
        .select(["upstream_id", "error_code", "carrier_code", "error_message"])
        .orderBy("upstream_id")
        .execute();
      expect(kept).toEqual([
        { upstream_id: "H-KEPT", error_code: "633", carrier_code: "633", error_message: "DLT template mismatch" },
        {
          upstream_id: "S-KEPT",
          error_code: "UNDELIV",
          carrier_code: "633",
          error_message: smppReport("S-KEPT").message,
        },
      ]);
      // A process of the version before, still running during the upgrade, keeps one in its form.
      await db.db
        .insertInto("early_reports")
        .values(oldKeptRow(httpReport("H-OLD-PROCESS"), Date.now()) as never)
        .execute();

      const ingester = new ReportIngester({
        store: db,
        clock: systemClock,
        logger: createLogger({ logLevel: "silent" }),
        metrics: createMetrics(),
        sweepMs: 100,
        reasons: REASONS,
        refunds: REFUNDS,
      });
      ingester.start();
      try {
        await ingester.pushAndWait([smppReport("S-ON-TIME"), httpReport("H-ON-TIME")]);
        await until(async () => {
          const left = await db.db.selectFrom("early_reports").select("upstream_id").execute();
          return left.length === 0;
        }, 20_000);
      } finally {
        await ingester.stop();
      }

      async function outcome(name: string) {
        const id = ids.get(name)!;
        const row = await db.db
          .selectFrom("messages")
          .select(["status", "error_code", "error_reason", "carrier_code", "error_message"])
          .where("id", "=", id)
          .executeTakeFirstOrThrow();
        const refunds = await db.db
          .selectFrom("ledger_entries")
          .select(["amount", "note"])
          .where("ref", "=", id)
          .where("kind", "=", "refund")
          .execute();
        return { ...row, refunds: refunds.map((entry) => ({ ...entry, amount: Number(entry.amount) })) };
      }
      const smpp = await outcome("S-ON-TIME");
      expect(smpp).toEqual({
        status: "failed",
        error_code: "UNDELIV",
        error_reason: "dlt_template_mismatch",
        carrier_code: "633",
        error_message: `${DESCRIPTION} (carrier code 633). ${smppReport("S-ON-TIME").message}`,
        refunds: [{ amount: expect.any(Number), note: expect.stringContaining("dlt_template_mismatch") }],
      });
      expect(await outcome("S-KEPT")).toEqual(smpp);
      const http = await outcome("H-ON-TIME");
      expect(http).toEqual({
        status: "failed",
        error_code: "633",
        error_reason: "dlt_template_mismatch",
        carrier_code: "633",
        error_message: `${DESCRIPTION} (carrier code 633). DLT template mismatch`,
        refunds: [{ amount: expect.any(Number), note: expect.stringContaining("dlt_template_mismatch") }],
      });
      expect(await outcome("H-KEPT")).toEqual(http);
      expect(await outcome("H-OLD-PROCESS")).toEqual(http);
    } finally {
      await store?.close();
      await empty.drop();
    }
  }, 60_000);
});
