// v2 account resources: templates, account status, one-message delivery report, credit
// detail and history, credit transfer, sender-ID requests. Answers use the `status` envelope.

import { randomUUID } from "node:crypto";
import { Type } from "@fastify/type-provider-typebox";
import { sql } from "kysely";
import { DateTime } from "luxon";
import { isoUtc } from "../core/clock.js";
import { fromMilli, toMilli } from "../core/credits.js";
import { GatewayError } from "../core/errors.js";
import { isoWithOffset, localDay } from "../core/time.js";
import { pageMeta, pageOf, pathId, queryInt } from "../http/query-params.js";
import type { TypedRoutes } from "../http/typed-routes.js";
import { pageAnswer, resourceAnswer } from "../http/v2-answers.js";
import type { Runtime } from "../runtime/runtime.js";
import type { ApprovalStatus } from "../store/schema.js";
import type { Db } from "../store/store.js";
import { findAccountByUsername, getAccount } from "./accounts.js";
import { registerV2DltRoutes } from "./dlt-routes.js";
import { registerV2KeyRoutes } from "./key-routes.js";
import { transferCredits, walletBalance, walletCredits } from "./ledger.js";
import { addSenderId, describeSenderId, listSenderIds, normalizeSenderId } from "./sender-ids.js";
import { APPROVAL_STATUSES, createTemplate, describeTemplate, getTemplate, listTemplates } from "./templates.js";
import {
  AccountStatus,
  CreditDay,
  CreditDetail,
  CreditTransfer,
  CreditTransferRequest,
  SenderIdRequest,
  Template,
  TemplateRequest,
} from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const TEMPLATES_PER_PAGE = 25;
const TEMPLATES_MAX_PER_PAGE = 100;
const HISTORY_DAYS = 30;
const HISTORY_MAX_DAYS = 90;
const RECENT_CREDITS = 10;
const MAX_NOTE = 500;
/** Wallets whose spending counts as "credits used" for SMS (debits net of refunds). */
const SPENDING_WALLETS = ["sms", "international"];
const NUL = "\u0000";

function approvalStatus(value: string | undefined): ApprovalStatus | undefined {
  if (value === undefined || value === "") return undefined;
  if (!APPROVAL_STATUSES.includes(value as ApprovalStatus)) {
    throw new GatewayError("invalid_request", 'Query parameter "status" must be pending, approved or rejected.', {
      field: "status",
    });
  }
  return value as ApprovalStatus;
}

/** Milli-credits spent in [from, until): debits minus refunds on the SMS wallets. */
async function creditsUsed(db: Db, accountId: number, from: number, until: number): Promise<number> {
  const row = await db
    .selectFrom("ledger_entries")
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>("amount"), sql<number>`0`).as("total"))
    .where("account_id", "=", accountId)
    .where("wallet", "in", SPENDING_WALLETS)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .where("kind", "in", ["debit", "refund"])
    .executeTakeFirstOrThrow();
  return Math.max(0, -Number(row.total));
}

async function messageCount(db: Db, accountId: number, from: number, until: number): Promise<number> {
  const row = await db
    .selectFrom("messages")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("account_id", "=", accountId)
    .where("created_at", ">=", from)
    .where("created_at", "<", until)
    .executeTakeFirstOrThrow();
  return Number(row.n);
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

export function registerV2AccountRoutes(v2: TypedRoutes, ctx: Deps): void {
  registerV2KeyRoutes(v2, ctx);
  registerV2DltRoutes(v2, ctx);
  const db = ctx.store.db;

  /** The calling account's current row (status and limits can change after the key was cached). */
  async function accountOf(accountId: number) {
    const account = await getAccount(db, accountId);
    if (!account) throw new GatewayError("unauthorized");
    return account;
  }

  function today(zone: string) {
    const local = DateTime.fromJSDate(ctx.clock.now(), { zone }).startOf("day");
    return { start: local, from: local.toMillis(), until: local.plus({ days: 1 }).toMillis() };
  }

  // ---- Templates ------------------------------------------------------------------------

  v2.get(
    "/templates",
    {
      config: resource,
      schema: {
        operationId: "listTemplates",
        response: { 200: pageAnswer(Template) },
        summary: "Templates of the account, oldest first, paginated",
        tags: ["account"],
        querystring: Type.Object({
          per_page: Type.Optional(Type.String({ maxLength: 20 })),
          page: Type.Optional(Type.String({ maxLength: 20 })),
          status: Type.Optional(Type.String({ maxLength: 20 })),
        }),
      },
    },
    async (request) => {
      const query = request.query;
      const paging = pageOf(query, TEMPLATES_PER_PAGE, TEMPLATES_MAX_PER_PAGE);
      const status = approvalStatus(query.status);
      const { rows, total } = await listTemplates(db, request.principal!.accountId, { status, ...paging });
      return { status: "success", data: rows.map(describeTemplate), meta: pageMeta(paging, total) };
    },
  );

  v2.get(
    "/templates/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getTemplate",
        response: { 200: resourceAnswer(Template) },
        summary: "One template of the account",
        tags: ["account"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 30 }) }),
      },
    },
    async (request) => {
      const { id } = request.params;
      const numeric = pathId(id);
      const row = numeric === undefined ? undefined : await getTemplate(db, request.principal!.accountId, numeric);
      if (!row) throw new GatewayError("not_found", `No template with id "${id}" in this account.`);
      return { status: "success", data: describeTemplate(row) };
    },
  );

  v2.post(
    "/templates",
    {
      config: resource,
      schema: {
        operationId: "createTemplate",
        summary: "Create a template (pending operator approval)",
        tags: ["account"],
        body: TemplateRequest,
        response: { 201: resourceAnswer(Template) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const row = await createTemplate(db, ctx.clock, request.principal!.accountId, {
        name: body.name,
        content: body.content,
        dltTemplateId: body.dlt_template_id ?? null,
        entityId: body.entity_id ?? null,
      });
      return reply.code(201).send({ status: "success", data: describeTemplate(row) });
    },
  );

  // ---- Account status and the one-message report ------------------------------------------

  v2.get(
    "/account/status",
    {
      config: resource,
      schema: {
        operationId: "getAccountStatus",
        summary: "Account status: balance, today's traffic, pending items",
        tags: ["account"],
        response: { 200: resourceAnswer(AccountStatus) },
      },
    },
    async (request) => {
      const principal = request.principal!;
      const account = await accountOf(principal.accountId);
      const zone = account.time_zone;
      const { from, until } = today(zone);
      const [balance, counts, used, pendingTemplates, pendingSenders] = await Promise.all([
        walletBalance(db, account.id, "sms"),
        db
          .selectFrom("messages")
          .select(["status", (eb) => eb.fn.countAll<number>().as("n")])
          .where("account_id", "=", account.id)
          .where("created_at", ">=", from)
          .where("created_at", "<", until)
          .groupBy("status")
          .execute(),
        creditsUsed(db, account.id, from, until),
        db
          .selectFrom("templates")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", account.id)
          .where("status", "=", "pending")
          .executeTakeFirstOrThrow(),
        db
          .selectFrom("sender_ids")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", account.id)
          .where("status", "=", "pending")
          .executeTakeFirstOrThrow(),
      ]);
      const byStatus = new Map(counts.map((row) => [row.status, Number(row.n)]));
      const totalSent = [...byStatus.values()].reduce((sum, n) => sum + n, 0);
      return {
        status: "success",
        data: {
          credit_balance: fromMilli(balance),
          today: {
            total_sent: totalSent,
            delivered: byStatus.get("delivered") ?? 0,
            failed: byStatus.get("failed") ?? 0,
            credits_used: fromMilli(used),
          },
          pending: { templates: Number(pendingTemplates.n), sender_ids: Number(pendingSenders.n) },
          account_status: account.status,
          // Whole seconds: `2026-11-22T15:07:28+05:30`.
          server_time: isoWithOffset(new Date(Math.floor(ctx.clock.now().getTime() / 1000) * 1000), zone),
        },
      };
    },
  );

  // ---- Credits --------------------------------------------------------------------------

  const creditsSchema = {
    operationId: "getCredits",
    summary: "Credit detail",
    tags: ["account"],
    response: { 200: resourceAnswer(CreditDetail) },
  };
  v2.get("/credits", { config: resource, schema: creditsSchema }, async (request) => {
    const account = await accountOf(request.principal!.accountId);
    const zone = account.time_zone;
    const now = ctx.clock.now();
    const { start, from, until } = today(zone);
    const monthFrom = start.startOf("month").toMillis();
    const [wallets, todayUsed, monthUsed, flood, recent] = await Promise.all([
      walletCredits(db, account.id),
      creditsUsed(db, account.id, from, until),
      creditsUsed(db, account.id, monthFrom, until),
      db
        .selectFrom("flood_counters")
        .select("count")
        .where("account_id", "=", account.id)
        .where("day", "=", localDay(now, zone))
        .executeTakeFirst(),
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
        flood_current: Number(flood?.count ?? 0),
        flood_limit: account.flood_limit,
        recent_credits: recent.map(describeLedgerEntry),
        wallets,
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
      const account = await accountOf(request.principal!.accountId);
      const { start } = today(account.time_zone);
      const entries = [];
      // Oldest first; a day is account-local, so its length follows the zone (DST included).
      for (let back = days - 1; back >= 0; back -= 1) {
        const dayStart = start.minus({ days: back });
        const from = dayStart.toMillis();
        const until = dayStart.plus({ days: 1 }).toMillis();
        const [used, messages] = await Promise.all([
          creditsUsed(db, account.id, from, until),
          messageCount(db, account.id, from, until),
        ]);
        entries.push({ date: dayStart.toFormat("yyyy-MM-dd"), credits_used: fromMilli(used), messages });
      }
      return { status: "success", data: entries };
    },
  );

  v2.post(
    "/credits/transfer",
    {
      config: { ...resource, errors: [402, 404, 422] },
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
      if (recipient.status !== "active") {
        throw new GatewayError(
          "recipient_inactive",
          `The user "${username}" is ${recipient.status}; credits can only go to an active user.`,
        );
      }
      const ref = `transfer_${randomUUID()}`;
      const balance = await transferCredits(ctx.store, ctx.clock, {
        fromAccountId: principal.accountId,
        toAccountId: recipient.id,
        wallet: "sms",
        amount,
        ref,
        note: description ?? `transfer ${principal.username} -> ${recipient.username}`,
      }).catch(async (error: unknown) => {
        if (error instanceof GatewayError && error.code === "insufficient_credits") {
          const available = await walletBalance(db, principal.accountId, "sms");
          throw new GatewayError(
            "insufficient_credits",
            `The balance (${fromMilli(available)} credits) does not cover a transfer of ${fromMilli(amount)} credits.`,
          );
        }
        throw error;
      });
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

  // ---- Sender-ID requests ---------------------------------------------------------------

  v2.get(
    "/sender-id-requests",
    {
      config: resource,
      schema: {
        operationId: "listSenderIdRequests",
        summary: "Sender IDs requested by the account and their state",
        tags: ["account"],
        response: { 200: resourceAnswer(Type.Array(SenderIdRequest)) },
      },
    },
    async (request) => {
      const rows = await listSenderIds(db, request.principal!.accountId);
      return { status: "success", data: rows.map(describeSenderId) };
    },
  );

  v2.post(
    "/sender-id-requests",
    {
      config: { ...resource, errors: [422] },
      schema: {
        operationId: "requestSenderId",
        // 200: the sender ID was asked for before, and this is its current state.
        response: { 200: resourceAnswer(SenderIdRequest), 201: resourceAnswer(SenderIdRequest) },
        summary: "Request a sender ID (pending operator approval)",
        tags: ["account"],
        body: Type.Object(
          {
            sender_id: Type.String({ minLength: 1, maxLength: 20 }),
            note: Type.Optional(Type.Union([Type.String({ maxLength: MAX_NOTE }), Type.Null()])),
          },
          { additionalProperties: false, title: "SenderIdRequestBody" },
        ),
      },
    },
    async (request, reply) => {
      const accountId = request.principal!.accountId;
      const body = request.body;
      const sender = normalizeSenderId(body.sender_id);
      const note = body.note?.trim() || null;
      if (note?.includes(NUL)) {
        throw new GatewayError("invalid_request", "The note cannot contain U+0000.", { field: "note" });
      }
      // Asking again answers the current state: an approved or rejected sender ID stays so.
      const existing = await db
        .selectFrom("sender_ids")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("sender", "=", sender)
        .executeTakeFirst();
      if (existing) return reply.code(200).send({ status: "success", data: describeSenderId(existing) });
      const row = await addSenderId(db, ctx.clock, accountId, sender, { note });
      return reply.code(201).send({ status: "success", data: describeSenderId(row) });
    },
  );
}
