// /api/v2/whatsapp: send, templates, status, and the account's WhatsApp settings. Answers use
// the `status` envelope; errors carry the spec's codes (module_disabled, template_required, ...).

import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { MessageRow } from "../../base/store/schema.js";
import { findWhatsAppMessage } from "../../domain/messages/index.js";
import { HEADER_MEDIA_TYPES, MEDIA_TYPES } from "./send-request.js";
import { describeWhatsAppSettings, senderOf, whatsAppSettingsOf } from "./settings.js";
import { describeTemplate } from "./templates.js";
import { WhatsAppAccount, WhatsAppMessage, WhatsAppSent, WhatsAppTemplate } from "./v2-schemas.js";
import type { WhatsApp } from "./whatsapp.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store"> & { whatsapp: WhatsApp };

const resource = { envelope: "status" } as const;
const tags = ["whatsapp"];
const time = (ms: number | null) => (ms === null ? null : isoUtc(new Date(ms)));
const Value = Type.Union([Type.String({ maxLength: 4096 }), Type.Number()]);
/** `to` as a JSON number: at most 15 digits (E.164), so it is exact and never a rounded float. */
const MAX_NUMERIC_TO = 999_999_999_999_999;

export const WhatsAppSendBody = Type.Object(
  {
    to: Type.Union([Type.String({ maxLength: 64 }), Type.Integer({ minimum: 0, maximum: MAX_NUMERIC_TO })], {
      description: "Digits with country code, e.g. 919876543210",
    }),
    template: Type.Optional(Type.String({ maxLength: 512, description: "Approved template name" })),
    params: Type.Optional(Type.Array(Value, { maxItems: 100, description: "Ordered values for {{1}}, {{2}} ..." })),
    language: Type.Optional(Type.String({ minLength: 2, maxLength: 16 })),
    message: Type.Optional(Type.String({ maxLength: 20_000, description: "Free text, at most 4096 characters" })),
    media_url: Type.Optional(Type.String({ maxLength: 2048 })),
    media_type: Type.Optional(Type.Union(MEDIA_TYPES.map((t) => Type.Literal(t)))),
    caption: Type.Optional(Type.String({ maxLength: 4096 })),
    header_media_url: Type.Optional(Type.String({ maxLength: 2048 })),
    header_media_type: Type.Optional(Type.Union(HEADER_MEDIA_TYPES.map((t) => Type.Literal(t)))),
    header_filename: Type.Optional(Type.String({ minLength: 1, maxLength: 240 })),
    header_params: Type.Optional(Type.Array(Value, { maxItems: 1 })),
  },
  { additionalProperties: false, title: "WhatsAppSendRequest" },
);

export function registerV2WhatsAppRoutes(v2: TypedRoutes, ctx: Deps): void {
  const { whatsapp } = ctx;

  v2.post(
    "/whatsapp/send",
    {
      config: { ...resource, errors: [402, 404, 409, 422, 502] },
      schema: {
        operationId: "sendWhatsApp",
        summary: "Send a WhatsApp template, session text or media message (1 WhatsApp credit)",
        tags,
        body: WhatsAppSendBody,
        response: { 200: resourceAnswer(WhatsAppSent) },
      },
    },
    async (request) => {
      const data = await whatsapp.sends.send(
        request.principal!.accountId,
        request.body,
        request.headers["idempotency-key"],
      );
      return { status: "success", data };
    },
  );

  v2.get(
    "/whatsapp/templates",
    {
      config: { ...resource, errors: [409, 502] },
      schema: {
        operationId: "listWhatsAppTemplates",
        summary: "Approved templates of the connected business account",
        tags,
        response: { 200: resourceAnswer(Type.Array(WhatsAppTemplate)) },
      },
    },
    async (request) => {
      const settings = await whatsAppSettingsOf(
        ctx.store.db,
        request.principal!.accountId,
        ctx.config.whatsapp.connector,
      );
      if (!settings.enabled) throw new GatewayError("module_disabled");
      const sender = senderOf(settings);
      if (!sender) throw new GatewayError("no_business_account");
      const rows = await whatsapp.catalog.list(settings, sender);
      return { status: "success", data: rows.map((row) => describeTemplate(row, settings.sandbox)) };
    },
  );

  v2.get(
    "/whatsapp/status/:id",
    {
      config: { ...resource, errors: [404] },
      schema: {
        operationId: "getWhatsAppStatus",
        response: { 200: resourceAnswer(WhatsAppMessage) },
        summary: "Status of a WhatsApp message, by its numeric id or its upstream message id",
        tags,
        params: Type.Object({ id: Type.String({ maxLength: 256 }) }),
      },
    },
    async (request) => {
      const { id } = request.params;
      // No id holds U+0000, which PostgreSQL refuses in a query: not found, as on SQLite.
      const row = id.includes("\u0000")
        ? undefined
        : await findWhatsAppMessage(ctx.store.db, request.principal!.accountId, id);
      if (!row) throw new GatewayError("not_found", `No WhatsApp message ${id} in this account.`);
      return { status: "success", data: describeWhatsAppMessage(row) };
    },
  );

  v2.get(
    "/whatsapp/account",
    {
      config: resource,
      schema: {
        operationId: "getWhatsAppAccount",
        summary: "The account's WhatsApp settings (never the access token)",
        tags,
        response: { 200: resourceAnswer(WhatsAppAccount) },
      },
    },
    async (request) => {
      const settings = await whatsAppSettingsOf(
        ctx.store.db,
        request.principal!.accountId,
        ctx.config.whatsapp.connector,
      );
      return { status: "success", data: describeWhatsAppSettings(settings, (ms) => isoUtc(new Date(ms))) };
    },
  );
}

/**
 * WhatsApp's error code as the webhook gives it, a number; null for a failure WhatsApp gave no
 * code for (a send that timed out or never reached it), whose `message` says what happened.
 */
function whatsAppCode(stored: string | null): number | null {
  return stored !== null && /^\d{1,9}$/.test(stored) ? Number(stored) : null;
}

export function describeWhatsAppMessage(row: MessageRow) {
  const meta = JSON.parse(row.meta ?? "{}") as { type?: string; template?: string; language?: string };
  const failed = row.status === "failed";
  return {
    id: Number(row.broadcast_id),
    message_id: row.upstream_id,
    to: row.recipient,
    type: meta.type ?? null,
    template: meta.template ?? null,
    language: meta.language ?? null,
    // `sending` is the moment between holding the credit and WhatsApp's answer.
    status: row.status,
    error: failed ? { code: whatsAppCode(row.error_code), message: row.error_message } : null,
    created_at: time(row.created_at),
    sent_at: time(row.submitted_at),
    delivered_at: time(row.delivered_at),
    read_at: time(row.read_at),
    failed_at: failed ? time(row.done_at) : null,
    // Charged once WhatsApp accepted it, whatever happened after.
    credits: row.submitted_at !== null ? 1 : 0,
  };
}
