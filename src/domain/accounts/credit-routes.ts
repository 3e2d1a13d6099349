// v2 credits of the account: the detail (wallets, today's and the month's use, the flood counter,
// recent ledger entries), the daily history in the account's days, the ledger's totals over a
// window, and transfers to another user.
import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { fromMilli, toMilli } from "../../base/core/credits.js";
import { GatewayError } from "../../base/core/errors.js";
import { localDay } from "../../base/core/time.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { exportAnswer, exportFormatOf, sendExport } from "../../base/http/exports.js";
import { queryInt, queryWindow } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { LedgerEntriesTable } from "../../base/store/schema.js";
import type { Db } from "../../base/store/store.js";
import { recordChange } from "../audit/index.js";
import { actorOf } from "../auth/index.js";
import { findAccountByUsername, getAccount } from "./accounts.js";
import { eachLedgerEntry, transferCredits, walletBalance, walletCredits } from "./ledger.js";
import { ledgerTotals } from "./ledger-totals.js";
import { pricedBy } from "./price-cards.js";
import { shownCardName } from "./resellers.js";
import { type AccountTraffic, creditsUsed, currentAccount, today } from "./usage.js";
import { CreditDay, CreditDetail, CreditTransfer, CreditTransferRequest, LedgerTotals } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock"> & { accountTraffic: AccountTraffic };

const resource = { envelope: "status" } as const;
const HISTORY_DAYS = 30;
const HISTORY_MAX_DAYS = 90;
const RECENT_CREDITS = 10;
const NUL = "\u0000";

/** The window of the ledger's totals: dates or date-times, in the account's zone unless they name one. */
export const LedgerWindowQuery = Type.Object({
  from: Type.Optional(Type.String({ maxLength: 40 })),
  to: Type.Optional(Type.String({ maxLength: 40 })),
});

/** The ledger export's CSV columns. */
export const LEDGER_EXPORT_COLUMNS = [
  "id",
  "wallet",
  "amount",
  "balance_after",
  "kind",
  "ref",
  "charged_ref",
  "note",
  "created_at",
] as const;

/**
 * Every ledger entry of an account as export rows (credits as numbers, times in ISO 8601 UTC); a
 * refund's `charged_ref` is the broadcast whose debit it gave back (the ref of that debit, or its
 * start before a `/` for a job's extension), so an export alone joins the two (audit F16).
 */
export async function* ledgerExportRows(
  db: Db,
  accountId: number,
  traffic: Pick<AccountTraffic, "refundedBroadcasts">,
) {
  type LedgerRow = Selectable<LedgerEntriesTable>;
  const pageOf = async (rows: LedgerRow[]) => {
    const refunds = rows.flatMap((row) => (row.kind === "refund" && row.ref !== null ? [row.ref] : []));
    const charged = refunds.length > 0 ? await traffic.refundedBroadcasts(db, refunds) : new Map<string, string>();
    return rows.map((row) => ({
      ...describeLedgerEntry(row),
      ref: row.ref,
      charged_ref: row.kind === "refund" && row.ref !== null ? (charged.get(row.ref) ?? null) : null,
    }));
  };
  let rows: LedgerRow[] = [];
  for await (const row of eachLedgerEntry(db, accountId)) {
    rows.push(row);
    if (rows.length === 500) {
      yield* await pageOf(rows);
      rows = [];
    }
  }
  yield* await pageOf(rows);
}

function describeLedgerEntry(row: {
  id: number;
  wallet: string;
  amount: number;
  kind: string;
  note: string | null;
  created_at: number;
  balance_after: number;
}) {
  return {
    id: row.id,
    wallet: row.wallet,
    amount: fromMilli(row.amount),
    kind: row.kind,
    note: row.note,
    created_at: isoUtc(new Date(row.created_at)),
    balance_after: fromMilli(row.balance_after),
  };
}

export function registerV2CreditRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

  v2.get(
    "/credits/export",
    {
      config: resource,
      schema: {
        operationId: "exportCredits",
        summary: "Every ledger entry of the account, wallet by wallet, oldest first, as CSV or JSON Lines",
        tags: ["account"],
        querystring: Type.Object({ format: Type.Optional(Type.String({ maxLength: 10 })) }),
        response: { 200: exportAnswer("CSV with a header row (format=csv), or JSON Lines (format=jsonl).") },
      },
    },
    async (request, reply) => {
      const format = exportFormatOf(request.query.format);
      const rows = ledgerExportRows(ctx.store.scanDb(), request.principal!.accountId, ctx.accountTraffic);
      return sendExport(reply, format, "credits", LEDGER_EXPORT_COLUMNS, rows);
    },
  );

  const creditsSchema = {
    operationId: "getCredits",
    summary: "Credit detail",
    tags: ["account"],
    response: { 200: resourceAnswer(CreditDetail) },
  };
  v2.get("/credits", { config: resource, schema: creditsSchema }, async (request) => {
    const account = await currentAccount(db, request.principal!.accountId);
    const zone = account.time_zone;
    const now = ctx.clock.now();
    const { start, from, until } = today(ctx.clock, zone);
    const monthFrom = start.startOf("month").toMillis();
    const [wallets, todayUsed, monthUsed, flood, recent] = await Promise.all([
      walletCredits(db, account.id),
      creditsUsed(db, account.id, from, until),
      creditsUsed(db, account.id, monthFrom, until),
      ctx.accountTraffic.floodCount(db, account.id, localDay(now, zone)),
      db
        .selectFrom("ledger_entries")
        .select(["id", "wallet", "amount", "kind", "note", "created_at", "balance_after"])
        .where("account_id", "=", account.id)
        .orderBy("id", "desc")
        .limit(RECENT_CREDITS)
        .execute(),
    ]);
    return {
      status: "success",
      data: {
        balance: wallets.sms,
        international_credit: wallets.international,
        today_used: fromMilli(todayUsed),
        month_used: fromMilli(monthUsed),
        flood_current: flood,
        flood_limit: account.flood_limit,
        recent_credits: recent.map(describeLedgerEntry),
        wallets,
        // A sub-account is not told its operator's card nor its parent's markup (decision 0150).
        price_card: shownCardName(account.parent_id !== null, pricedBy(account)),
      },
    };
  });

  v2.get(
    "/credits/history",
    {
      config: resource,
      schema: {
        operationId: "getCreditHistory",
        response: { 200: resourceAnswer(Type.Array(CreditDay)) },
        summary: "Daily credit usage, one entry per account-local day, oldest first",
        tags: ["account"],
        querystring: Type.Object({ days: Type.Optional(Type.String({ maxLength: 20 })) }),
      },
    },
    async (request) => {
      const { days: raw } = request.query;
      const days = queryInt(raw, "days", HISTORY_DAYS, 1, HISTORY_MAX_DAYS);
      const account = await currentAccount(db, request.principal!.accountId);
      const { start } = today(ctx.clock, account.time_zone);
      const entries = [];
      // Oldest first; a day is account-local, so its length follows the zone (DST included).
      for (let back = days - 1; back >= 0; back -= 1) {
        const dayStart = start.minus({ days: back });
        const from = dayStart.toMillis();
        const until = dayStart.plus({ days: 1 }).toMillis();
        const [used, messages] = await Promise.all([
          creditsUsed(db, account.id, from, until),
          ctx.accountTraffic.messageCount(db, account.id, from, until),
        ]);
        entries.push({ date: dayStart.toFormat("yyyy-MM-dd"), credits_used: fromMilli(used), messages });
      }
      return { status: "success", data: entries };
    },
  );

  v2.get(
    "/credits/totals",
    {
      config: resource,
      schema: {
        operationId: "getCreditTotals",
        summary: "Every wallet's ledger added up over a window: opening, each kind's credits, closing",
        tags: ["account"],
        querystring: LedgerWindowQuery,
        response: { 200: resourceAnswer(Type.Array(LedgerTotals)) },
      },
    },
    async (request) => {
      const account = await currentAccount(db, request.principal!.accountId);
      const window = queryWindow((name) => request.query[name]?.trim() || undefined, account.time_zone);
      return { status: "success", data: await ledgerTotals(db, account.id, window) };
    },
  );

  v2.post(
    "/credits/transfer",
    {
      config: { ...resource, errors: [402, 403, 404, 422] },
      schema: {
        operationId: "transferCredits",
        summary: "Transfer SMS credits to another user",
        tags: ["account"],
        body: CreditTransferRequest,
        response: { 200: resourceAnswer(CreditTransfer) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const body = request.body;
      if (!Number.isFinite(body.amount) || body.amount <= 0) {
        throw new GatewayError("invalid_request", "The amount must be a positive number of credits.", {
          field: "amount",
        });
      }
      const amount = toMilli(body.amount, "amount");
      if (amount <= 0) {
        throw new GatewayError("invalid_request", "The amount must be at least 0.001 credits.", { field: "amount" });
      }
      const description = body.description?.trim() || null;
      if (description?.includes(NUL)) {
        throw new GatewayError("invalid_request", "The description cannot contain U+0000.", { field: "description" });
      }
      const username = body.recipient_username.trim();
      const recipient = username.includes(NUL) ? undefined : await findAccountByUsername(db, username);
      if (!recipient) throw new GatewayError("not_found", `No user named "${username}".`);
      if (recipient.id === principal.accountId) {
        throw new GatewayError("invalid_request", "Credits cannot be transferred to your own account.", {
          field: "recipient_username",
        });
      }
      // The operator's account sells credits; it takes none back by a transfer, which would be a
      // refund without the operator's ledger saying so (its credits are not a customer's to use).
      if (recipient.role === "operator") {
        throw new GatewayError(
          "forbidden",
          `"${recipient.username}" is the operator's account, which takes no transfer: credits go only to customer accounts.`,
          { field: "recipient_username" },
        );
      }
      // A sub-account's credits were issued by its parent, not paid for (decision 0139): they may
      // move to a sibling, whose sends charge the same parents, and nowhere else. Sent to the
      // parent or out of the tree they would become credits nobody paid the operator for.
      const sender = await getAccount(db, principal.accountId);
      if (sender && sender.parent_id !== null && recipient.parent_id !== sender.parent_id) {
        throw new GatewayError(
          "forbidden",
          `A sub-account's credits are issued by its parent account: they can go only to another sub-account of the same parent, and "${recipient.username}" is not one.`,
          { field: "recipient_username" },
        );
      }
      if (recipient.status !== "active") {
        throw new GatewayError(
          "recipient_inactive",
          `The user "${username}" is ${recipient.status}; credits can only go to an active user.`,
        );
      }
      const ref = `transfer_${randomUUID()}`;
      const note = description ?? `transfer ${principal.username} -> ${recipient.username}`;
      const transfer = { fromAccountId: principal.accountId, toAccountId: recipient.id, wallet: "sms" as const };
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const moved = fromMilli(amount);
      const record = async (trx: Db, after: number, received: number) => {
        await recordChange(trx, who, {
          action: "credits.transfer",
          target: `sms wallet of ${principal.username} to ${recipient.username}`,
          accountId: principal.accountId,
          before: { balance: fromMilli(after + amount) },
          after: { balance: fromMilli(after), amount: moved, to: recipient.username, ref, note },
        });
        // The receiving wallet changed too: its own entry, so the recipient's log (and the
        // operator's ?account= view of it) shows where its credits came from.
        await recordChange(trx, who, {
          action: "credits.transfer_in",
          target: `sms wallet of ${recipient.username} from ${principal.username}`,
          accountId: recipient.id,
          before: { balance: fromMilli(received - amount) },
          after: { balance: fromMilli(received), amount: moved, from: principal.username, ref, note },
        });
      };
      const balance = await transferCredits(ctx.store, ctx.clock, { ...transfer, amount, ref, note }, record).catch(
        async (error: unknown) => {
          if (error instanceof GatewayError && error.code === "insufficient_credits") {
            const available = await walletBalance(db, principal.accountId, "sms");
            throw new GatewayError(
              "insufficient_credits",
              `The balance (${fromMilli(available)} credits) does not cover a transfer of ${fromMilli(amount)} credits.`,
            );
          }
          throw error;
        },
      );
      return {
        status: "success",
        data: {
          transfer_id: ref,
          recipient_username: recipient.username,
          amount: fromMilli(amount),
          description,
          balance: fromMilli(balance),
        },
      };
    },
  );
}
