// POST /api/v2/email/send: the email send for JSON clients and the console, with the same checks,
// charge and answer as /httpemailapi/v1/send (sendEmail), in the v2 envelope. No attachments:
// those go through the multipart family.
import { type Static, Type } from "typebox";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import { RowId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { PriceBook } from "../../domain/accounts/index.js";
import type { AcceptService } from "../../domain/messages/index.js";
import { leftOutOf } from "../../domain/refusals/index.js";
import { MAX_CALLBACK_DATA, MAX_SUBJECT, sendEmail } from "./send.js";
import { EmailSendAnswer } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & { acceptor: AcceptService; prices: PriceBook };

const Text = (maxLength: number) => Type.Optional(Type.String({ maxLength }));
const Placeholder = Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]);
export const EmailSend = Type.Object(
  {
    from: Type.String({ maxLength: 1_000 }),
    to: Type.String({ maxLength: 200_000 }),
    cc: Text(200_000),
    bcc: Text(200_000),
    subject: Text(MAX_SUBJECT * 4),
    html: Text(2 * 1024 * 1024),
    text: Text(2 * 1024 * 1024),
    reply_to: Text(1_000),
    template_id: Type.Optional(RowId()),
    placeholders: Type.Optional(Type.Record(Type.String({ maxLength: 100 }), Placeholder)),
    track_opens: Type.Optional(Type.Boolean()),
    track_clicks: Type.Optional(Type.Boolean()),
    list_unsubscribe: Type.Optional(Type.Boolean()),
    send_at: Text(30),
    notify_url: Text(2_048),
    callback_data: Text(MAX_CALLBACK_DATA * 4),
  },
  { additionalProperties: false, title: "EmailSendRequest" },
);
export type EmailSendBody = Static<typeof EmailSend>;

/** The family's parameter names for the JSON fields (sendEmail reads the family's parameters). */
export function familyParams(body: EmailSendBody): Record<string, string> {
  const params: Record<string, string> = {};
  const put = (name: string, value: string | number | boolean | undefined) => {
    if (value !== undefined) params[name] = String(value);
  };
  put("from", body.from);
  put("to", body.to);
  put("cc", body.cc);
  put("bcc", body.bcc);
  put("subject", body.subject);
  put("html", body.html);
  put("text", body.text);
  put("replyto", body.reply_to);
  put("templateid", body.template_id);
  if (body.placeholders) params.defaultplaceholders = JSON.stringify(body.placeholders);
  put("trackopens", body.track_opens);
  put("trackclicks", body.track_clicks);
  put("unsubscribe", body.list_unsubscribe);
  put("sendat", body.send_at);
  put("notifyurl", body.notify_url);
  put("callbackdata", body.callback_data);
  return params;
}

export function registerV2EmailSendRoute(v2: TypedRoutes, ctx: Deps): void {
  v2.post(
    "/email/send",
    {
      config: { envelope: "status", errors: [402, 422] },
      schema: {
        operationId: "sendEmail",
        summary: "Send an email (the checks and charge of /httpemailapi/v1/send; no attachments)",
        tags: ["email"],
        body: EmailSend,
        response: {
          201: resourceAnswer(EmailSendAnswer),
        },
      },
    },
    async (request, reply) => {
      const { broadcastId, leftOut } = await sendEmail(
        {
          store: ctx.store,
          clock: ctx.clock,
          acceptor: ctx.acceptor,
          prices: ctx.prices,
          allowPrivateWebhooks: ctx.config.allowPrivateWebhooks,
          address: request.ip,
        },
        request.principal!,
        familyParams(request.body),
        [],
      );
      if (leftOut.length > 0) request.leftOut = { broadcastId, recipients: leftOutOf(leftOut) };
      return reply.code(201).send({ status: "success", data: { broadcast_id: broadcastId } });
    },
  );
}
