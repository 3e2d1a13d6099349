// The operator API for an account's money: top-ups, corrections and the ledger, which an export
// writes whole (CSV or JSON Lines, as the account's own GET /api/v2/credits/export), and its totals
// over a window (as GET /api/v2/credits/totals).
import { Type } from "typebox";
import { fromMilli, MAX_CREDITS } from "../../base/core/credits.js";
import { exportAnswer, exportFormatOf, sendExport } from "../../base/http/exports.js";
import { accountZoneWords, queryWindow } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import {
  LEDGER_EXPORT_COLUMNS,
  LedgerWindowQuery,
  ledgerExportRows,
  ledgerTotals,
  recentLedgerEntries,
  requireAccount,
} from "../../domain/accounts/index.js";
import { LedgerTotals } from "../../domain/accounts/v2-schemas.js";
import { refundedBroadcasts } from "../../domain/messages/index.js";
import { CreditTopUp, OperatorLedgerEntry } from "./account-schemas.js";
import { CreditAdjustment } from "./desk-schemas.js";
import { addCredits, adjustCredits } from "./key-credit-operations.js";
import { changeDeps } from "./operations.js";

const Username = Type.Object({ username: Type.String() });
const ok = (data: unknown) => ({ status: "success", data });

export function registerCreditRoutes(admin: TypedRoutes, ctx: Pick<Runtime, "store" | "clock">): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  admin.post(
    "/accounts/:username/credits",
    {
      schema: {
        params: Username,
        body: Type.Object(
          {
            wallet: Type.String(),
            amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_CREDITS }),
            note: Type.Optional(Type.String({ maxLength: 500 })),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(CreditTopUp),
      },
    },
    async (request) => {
      const body = request.body;
      return ok(await addCredits(changeDeps(deps, request), { username: request.params.username, ...body }));
    },
  );

  admin.post(
    "/accounts/:username/credits/adjust",
    {
      schema: {
        params: Username,
        body: Type.Object(
          {
            wallet: Type.String(),
            amount: Type.Number({ minimum: -MAX_CREDITS, maximum: MAX_CREDITS }),
            reason: Type.String({ minLength: 1, maxLength: 500 }),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(CreditAdjustment),
      },
    },
    async (request) =>
      ok(await adjustCredits(changeDeps(deps, request), { username: request.params.username, ...request.body })),
  );

  admin.get(
    "/accounts/:username/ledger",
    {
      schema: {
        params: Username,
        querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }),
        response: operatorAnswer(Type.Array(OperatorLedgerEntry)),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const limit = request.query.limit ?? 100;
      const rows = await recentLedgerEntries(ctx.store.db, account.id, limit);
      return ok(
        rows.map((r) => ({
          id: r.id,
          wallet: r.wallet,
          amount: fromMilli(r.amount),
          balance_after: fromMilli(r.balance_after),
          kind: r.kind,
          ref: r.ref,
          note: r.note,
          created_at: new Date(r.created_at).toISOString(),
        })),
      );
    },
  );

  admin.get(
    "/accounts/:username/ledger/totals",
    {
      schema: {
        params: Username,
        querystring: LedgerWindowQuery,
        response: operatorAnswer(Type.Array(LedgerTotals)),
      },
    },
    async (request) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      // Dates are the account's days, as its own console reads them.
      const window = queryWindow(
        (name) => request.query[name]?.trim() || undefined,
        account.time_zone,
        accountZoneWords(account.time_zone),
      );
      return ok(await ledgerTotals(ctx.store.db, account.id, window));
    },
  );

  admin.get(
    "/accounts/:username/ledger/export",
    {
      schema: {
        params: Username,
        querystring: Type.Object({ format: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: { 200: exportAnswer("CSV or JSON Lines: the account's ledger, oldest first.") },
      },
    },
    async (request, reply) => {
      const account = await requireAccount(ctx.store.db, request.params.username);
      const format = exportFormatOf(request.query.format);
      return sendExport(
        reply,
        format,
        `${account.username}-ledger`,
        LEDGER_EXPORT_COLUMNS,
        ledgerExportRows(ctx.store.scanDb(), account.id, { refundedBroadcasts }),
      );
    },
  );
}
