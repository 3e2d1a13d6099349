// Every account's messages for the operator's support desk (issue 38):
//   GET /admin/api/messages        the account's list (GET /api/v2/messages) across accounts: its
//                                  filters, plus `account` (username), `connector`, `error_code`,
//                                  `route`; newest first, a cursor; each row the status answer
//                                  and its `account`
//   GET /admin/api/messages/export the same messages, every one, as CSV or JSON Lines (the
//                                  account's export's rows, each with its account)
//   GET /admin/api/messages/{id}   one message by queue id or the carrier's id: its account,
//                                  what the account's own GET /api/v2/messages/{id} answers, its
//                                  DLT facts and every level's charge (message-facts.ts)
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { exportAnswer, exportFormatOf, sendExport } from "../../base/http/exports.js";
import { cursorLimit } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db, Store } from "../../base/store/store.js";
import {
  clickCounts,
  deliveryReport,
  EXPORT_PARAMS,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  LIST_PARAMS,
  listFilter,
  MESSAGE_EXPORT_COLUMNS,
  messageDetail,
  operatorFilter,
} from "../../channels/sms/index.js";
import { requireAccount, usernamesOf } from "../../domain/accounts/index.js";
import {
  decodeCursor,
  eachMessage,
  encodeCursor,
  findAnyMessage,
  type ListPosition,
  listMessages,
  type MessagePartsReader,
} from "../../domain/messages/index.js";
import { OperatorMessageDetail, OperatorMessagePage } from "./desk-schemas.js";
import { operatorMessageFacts } from "./message-facts.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "config"> & { messageParts: MessagePartsReader };

const text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const OPERATOR_PARAMS = {
  account: text(64),
  connector: text(200),
  error_code: text(200),
  route: text(100),
};
const AdminListQuery = Type.Object({ ...LIST_PARAMS, ...OPERATOR_PARAMS });
const AdminExportQuery = Type.Object({ ...EXPORT_PARAMS, ...OPERATOR_PARAMS });

/** The id of the account a query names by username (404 when none has it), or undefined: every account. */
async function accountIdOf(db: Db, username: string | undefined): Promise<number | undefined> {
  return username?.trim() ? (await requireAccount(db, username.trim())).id : undefined;
}

/**
 * The operator's export: the account export's rows (status answers), each with its account, newest
 * first. The filters are read before it answers: a bad one is refused before the first row.
 */
export async function operatorExportRows(
  store: Pick<Store, "db" | "scanDb">,
  query: { [K in keyof typeof AdminExportQuery.properties]?: string },
  timeZone: string,
): Promise<AsyncGenerator<Record<string, unknown>>> {
  const filter = { ...listFilter(query, timeZone), ...operatorFilter(query) };
  const accountId = await accountIdOf(store.db, query.account);
  async function* rows() {
    const names = new Map<number, string>();
    for await (const row of eachMessage(store.scanDb(), accountId, filter)) {
      if (!names.has(row.account_id)) {
        for (const [id, name] of await usernamesOf(store.db, [row.account_id])) names.set(id, name);
      }
      // The account first, in the answer's own object: no copy of the report (see base/http/exports.ts).
      const report: Record<string, unknown> = deliveryReport(row);
      report.account = names.get(row.account_id) ?? null;
      yield report;
    }
  }
  return rows();
}

/** A page of every account's messages (or one account's), as the operator's list answers it. */
export async function operatorMessagePage(
  db: Db,
  query: { [K in keyof typeof AdminListQuery.properties]?: string },
  timeZone: string,
) {
  const filter = { ...listFilter(query, timeZone), ...operatorFilter(query) };
  const limit = cursorLimit(query, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX);
  let after: ListPosition | undefined;
  if (query.cursor) {
    after = decodeCursor(query.cursor);
    if (!after) {
      throw new GatewayError(
        "invalid_request",
        'Query parameter "cursor" is not a cursor this list gave (use next_cursor as it is).',
        { field: "cursor" },
      );
    }
  }
  const page = await listMessages(db, await accountIdOf(db, query.account), filter, limit, after);
  const names = await usernamesOf(
    db,
    page.rows.map((row) => row.account_id),
  );
  const clicks = await clickCounts(db, page.rows);
  return {
    status: "success" as const,
    data: page.rows.map((row) => ({
      account: names.get(row.account_id) ?? null,
      ...deliveryReport(row, clicks.get(row.id)),
    })),
    meta: { limit, next_cursor: page.next ? encodeCursor(page.next) : null },
  };
}

/** One message of any account as the operator reads it: its account and its detail. */
export async function operatorMessageDetail(db: Db, id: string, messageParts: MessagePartsReader) {
  const row = await findAnyMessage(db, id);
  if (!row) throw new GatewayError("not_found", `No message with id "${id}".`);
  const names = await usernamesOf(db, [row.account_id]);
  const [detail, facts] = await Promise.all([messageDetail(db, row, messageParts), operatorMessageFacts(db, row)]);
  return { account: names.get(row.account_id) ?? null, ...detail, ...facts };
}

export function registerAdminMessageRoutes(admin: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  admin.get(
    "/messages",
    { schema: { querystring: AdminListQuery, response: { "2xx": OperatorMessagePage } } },
    async (request) => operatorMessagePage(db, request.query, request.principal!.timeZone),
  );
  admin.get(
    "/messages/export",
    {
      schema: {
        querystring: AdminExportQuery,
        response: {
          200: exportAnswer("CSV or JSON Lines: every account's messages the filters match, each with its account."),
        },
      },
    },
    async (request, reply) => {
      const format = exportFormatOf(request.query.format);
      const rows = await operatorExportRows(ctx.store, request.query, request.principal!.timeZone);
      return sendExport(reply, format, "messages", ["account", ...MESSAGE_EXPORT_COLUMNS], rows);
    },
  );
  admin.get(
    "/messages/:id",
    {
      schema: {
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: operatorAnswer(OperatorMessageDetail),
      },
    },
    async (request) => ({
      status: "success",
      data: await operatorMessageDetail(db, request.params.id, ctx.messageParts),
    }),
  );
}
