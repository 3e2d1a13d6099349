// Email resources. v2 (the account's API key): sending domains (domain-routes.ts), stored
// templates (template-routes.ts) and, here, the per-recipient status of a send. Operator
// (/admin/api): an account's domains (domain-routes.ts) and, here, the simulator's captured inbox.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { IdParams, RowId } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { Db } from "../../base/store/store.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { emailSendMessages } from "../../domain/messages/index.js";
import { CapturedEmail, CapturedEmailSource } from "./admin-schemas.js";
import { registerEmailDomainAdminRoutes, registerV2EmailDomainRoutes } from "./domain-routes.js";
import { getCaptured, listCaptured } from "./simulator.js";
import { registerV2EmailTemplateRoutes } from "./template-routes.js";
import { registerEmailSuppressionAdminRoutes, registerV2EmailSuppressionRoutes } from "./unsubscribe-routes.js";
import { EmailSendStatus } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const tags = ["email"];
const iso = (ms: number) => isoUtc(new Date(ms));
const ok = (data: unknown) => ({ status: "success", data });

export function registerV2EmailRoutes(v2: TypedRoutes, ctx: Deps): void {
  registerV2EmailDomainRoutes(v2, ctx);
  registerV2EmailTemplateRoutes(v2, ctx);
  const db = ctx.store.db;
  const accountOf = (request: FastifyRequest) => request.principal!.accountId;

  v2.get(
    "/email/status/:broadcastId",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getEmailStatus",
        response: { 200: resourceAnswer(EmailSendStatus) },
        summary: "Every recipient of an email send: status, bounce reason, opens and clicks",
        tags,
        params: Type.Object({ broadcastId: Type.String({ maxLength: 64 }) }),
      },
    },
    async (request) => {
      const { broadcastId } = request.params;
      // No broadcast id holds a NUL (PostgreSQL's text cannot): 404 on both engines, as the SMS status.
      const recipients = broadcastId.includes("\u0000") ? [] : await sendStatus(db, accountOf(request), broadcastId);
      if (recipients.length === 0) throw new GatewayError("not_found", `No email send ${broadcastId} in this account.`);
      return ok({ broadcast_id: broadcastId, recipients });
    },
  );
  registerV2EmailSuppressionRoutes(v2, ctx);
}

async function sendStatus(db: Db, accountId: number, broadcastId: string) {
  const messages = await emailSendMessages(db, accountId, broadcastId);
  if (messages.length === 0) return [];
  const events = await db
    .selectFrom("email_events")
    .select(["message_id", "kind", "detail", "at"])
    .where(
      "message_id",
      "in",
      messages.map((m) => m.id),
    )
    .orderBy("id")
    .execute();
  // Grouped once: a send has up to 1,000 recipients, each with any number of opens and clicks.
  const byMessage = new Map<string, typeof events>();
  for (const event of events) {
    const list = byMessage.get(event.message_id);
    if (list) list.push(event);
    else byMessage.set(event.message_id, [event]);
  }
  return messages.map((m) => {
    const mine = byMessage.get(m.id) ?? [];
    const status =
      m.status === "dispatching"
        ? "queued"
        : m.status === "failed"
          ? "bounced"
          : m.status === "submitted"
            ? "sent"
            : m.status;
    return {
      message_id: m.id,
      email: m.recipient,
      kind: (JSON.parse(m.meta ?? "{}") as { kind?: string }).kind ?? "to",
      status,
      reason: m.status === "failed" ? m.error_message : null,
      scheduled_for: m.status === "scheduled" ? iso(m.due_at) : null,
      sent_at: m.submitted_at === null ? null : iso(m.submitted_at),
      opens: mine.filter((e) => e.kind === "opened").length,
      clicks: mine.filter((e) => e.kind === "clicked").map((e) => ({ url: e.detail, at: iso(e.at) })),
    };
  });
}

export function registerEmailAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  registerEmailDomainAdminRoutes(admin, ctx);
  const db = ctx.store.db;
  const operatorIso = (ms: number) => new Date(ms).toISOString();

  admin.get(
    "/email/inbox",
    {
      schema: {
        summary: "The simulator's captured inbox, newest first (every account, or ?account=<username>)",
        tags: ["operator"],
        querystring: Type.Object({
          account: Type.Optional(Type.String({ maxLength: 64 })),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
          before_id: Type.Optional(RowId()),
        }),
        response: operatorAnswer(Type.Array(CapturedEmail)),
      },
    },
    async (request) => {
      const query = request.query;
      const accountId = query.account ? (await requireAccount(db, query.account)).id : undefined;
      const rows = await listCaptured(db, accountId, { limit: query.limit ?? 50, beforeId: query.before_id });
      return ok(rows.map((row) => ({ ...row, created_at: operatorIso(row.created_at) })));
    },
  );

  admin.get(
    "/email/inbox/:id",
    {
      schema: {
        summary: "One captured message with its raw source (RFC 5322)",
        tags: ["operator"],
        params: IdParams,
        response: operatorAnswer(CapturedEmailSource),
      },
    },
    async (request) => {
      const row = await getCaptured(db, request.params.id);
      if (!row) throw new GatewayError("not_found", "No such captured message.");
      return ok({ ...row, created_at: operatorIso(row.created_at) });
    },
  );
  registerEmailSuppressionAdminRoutes(admin, ctx);
}
