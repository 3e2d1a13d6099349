// GET /api/v2/messages/export: the account's (or, with `subaccount`, one of its sub-accounts')
// messages the list's filters match, every one, as CSV or JSON Lines (base/http/exports.ts),
// newest first. Each row is the status answer; in CSV its
// `error` is two columns, `error_code` and `error_message`. The operator's export (app/admin)
// writes the same with each row's account first.
import { Type } from "typebox";
import { type ExportColumn, exportAnswer, exportFormatOf, sendExport } from "../../base/http/exports.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { readableAccount } from "../../domain/accounts/index.js";
import { SubAccountParam } from "../../domain/accounts/v2-schemas.js";
import { eachMessage } from "../../domain/messages/index.js";
import { LIST_PARAMS, listFilter } from "./message-list.js";
import { deliveryReport } from "./report-format.js";

type ReportRow = { error?: { code: string; message: string } };

/** The export's CSV columns: the status answer's fields, in its order, its `error` in two. */
export const MESSAGE_EXPORT_COLUMNS: readonly ExportColumn[] = [
  "message_id",
  "broadcast_id",
  "mobile",
  "status",
  "delivery_time",
  "sent_time",
  "sender_id",
  "credit",
  "route",
  "segments",
  "encoding",
  "vendor_message_id",
  "created_at",
  "channel",
  "message",
  "scheduled_at",
  { name: "error_code", value: (row) => (row as ReportRow).error?.code },
  { name: "error_message", value: (row) => (row as ReportRow).error?.message },
];

const { limit: _limit, per_page: _perPage, cursor: _cursor, ...FILTER_PARAMS } = LIST_PARAMS;

/** The export's query parameters: the list's filters and `format`. */
export const EXPORT_PARAMS = {
  ...FILTER_PARAMS,
  format: Type.Optional(Type.String({ maxLength: 10 })),
};

export function registerMessageExportRoute(v2: TypedRoutes, ctx: Pick<Runtime, "store">): void {
  v2.get(
    "/messages/export",
    {
      config: { envelope: "status" },
      schema: {
        operationId: "exportMessages",
        summary: "Every message the list's filters match, as CSV (format=csv, the default) or JSON Lines",
        tags: ["messages"],
        // v2's own, as on the list: a reseller exports one of its sub-accounts' messages.
        querystring: Type.Object({ ...EXPORT_PARAMS, subaccount: SubAccountParam }),
        response: {
          200: exportAnswer(
            "CSV with a header row (format=csv), or JSON Lines: a status answer a line (format=jsonl).",
          ),
        },
      },
    },
    async (request, reply) => {
      const principal = request.principal!;
      const format = exportFormatOf(request.query.format);
      const filter = listFilter(request.query, principal.timeZone);
      const accountId = (await readableAccount(ctx.store.db, principal.accountId, request.query.subaccount)).id;
      const rows = eachMessage(ctx.store.scanDb(), accountId, filter);
      async function* reports() {
        for await (const row of rows) yield deliveryReport(row);
      }
      return sendExport(reply, format, "messages", MESSAGE_EXPORT_COLUMNS, reports());
    },
  );
}
