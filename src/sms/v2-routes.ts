// v2 SMS helpers: balance and sender IDs (send and status join in the pipeline issue).
import { Type } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import { listSenderIds, walletBalance } from "../accounts/index.js";
import type { AppContext } from "../app/context.js";
import { isoUtc } from "../core/clock.js";
import { fromMilli } from "../core/credits.js";

const sms = { envelope: "success" } as const;

export function registerV2SmsRoutes(v2: FastifyInstance, ctx: AppContext): void {
  v2.get("/balance", { config: sms, schema: { summary: "SMS credit balance", tags: ["sms"] } }, async (request) => {
    const principal = request.principal!;
    const balance = await walletBalance(ctx.store.db, principal.accountId, "sms");
    const last = await ctx.store.db
      .selectFrom("ledger_entries")
      .select("created_at")
      .where("account_id", "=", principal.accountId)
      .where("wallet", "=", "sms")
      .orderBy("id", "desc")
      .limit(1)
      .executeTakeFirst();
    return {
      success: true,
      message: "Balance retrieved",
      data: {
        balance: fromMilli(balance),
        currency: "credits",
        last_updated: isoUtc(last ? new Date(last.created_at) : ctx.clock.now()),
      },
    };
  });

  v2.get(
    "/sender-ids",
    {
      config: sms,
      schema: {
        summary: "Sender IDs of the account",
        tags: ["sms"],
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]),
          ),
        }),
      },
    },
    async (request) => {
      const { status } = request.query as { status?: "pending" | "approved" | "rejected" };
      const rows = await listSenderIds(ctx.store.db, request.principal!.accountId, status);
      return {
        success: true,
        message: "Sender IDs retrieved",
        data: rows.map((row) => ({
          sender_id: row.sender,
          status: row.status,
          created_at: isoUtc(new Date(row.created_at)),
        })),
      };
    },
  );
}
