// Operator API for an account's WhatsApp, under /admin/api/accounts/{username}/whatsapp:
// module switch, connector, business-account connection, test numbers; template sync and the
// test-only mark; and, on the simulator, a customer message (which opens the 24-hour window).

import { Type } from "typebox";
import { ulid } from "ulid";
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { requireAccount } from "../../domain/accounts/index.js";
import { actorOf } from "../../domain/auth/index.js";
import {
  OperatorWhatsAppSettings,
  OperatorWhatsAppTemplate,
  SimulatedInbound,
  TemplateTestOnly,
} from "./admin-schemas.js";
import {
  describeWhatsAppSettings,
  senderOf,
  updateWhatsAppSettingsFor,
  WHATSAPP_CONNECTORS,
  whatsAppSettingsOf,
} from "./settings.js";
import { describeTemplate, listedTemplates, setTemplateTestOnlyFor } from "./templates.js";
import type { WhatsApp } from "./whatsapp.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "config" | "store" | "clock"> & { whatsapp: WhatsApp };

const tags = ["operator"];
const Username = { username: Type.String({ maxLength: 64 }) };
const NullableId = Type.Union([Type.String({ minLength: 1, maxLength: 64, pattern: "^[0-9]+$" }), Type.Null()]);
const iso = (ms: number) => new Date(ms).toISOString();

const SettingsBody = Type.Object(
  {
    enabled: Type.Optional(Type.Boolean()),
    connector: Type.Optional(Type.Union([...WHATSAPP_CONNECTORS.map((c) => Type.Literal(c)), Type.Null()])),
    phone_number_id: Type.Optional(NullableId),
    display_phone_number: Type.Optional(Type.Union([Type.String({ maxLength: 20, pattern: "^[0-9]+$" }), Type.Null()])),
    waba_id: Type.Optional(NullableId),
    access_token: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 1024 }), Type.Null()])),
    sandbox: Type.Optional(Type.Boolean()),
    test_numbers: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 50 })),
  },
  { additionalProperties: false },
);

export function registerWhatsAppAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const base = "/accounts/:username/whatsapp";
  const accountOf = async (username: string) => (await requireAccount(db, username)).id;
  const settingsOf = (accountId: number) => whatsAppSettingsOf(db, accountId, ctx.config.whatsapp.connector);
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get(
    base,
    {
      schema: {
        summary: "An account's WhatsApp settings",
        tags,
        params: Type.Object(Username),
        response: operatorAnswer(OperatorWhatsAppSettings),
      },
    },
    async (request) => ok(describeWhatsAppSettings(await settingsOf(await accountOf(request.params.username)), iso)),
  );

  admin.put(
    base,
    {
      schema: {
        summary: "Change an account's WhatsApp settings (null clears a field; the access token is never shown)",
        tags,
        params: Type.Object(Username),
        body: SettingsBody,
        response: operatorAnswer(OperatorWhatsAppSettings),
      },
    },
    async (request) => {
      const account = await requireAccount(db, request.params.username);
      const who = { clock: ctx.clock, actor: actorOf(request) };
      await updateWhatsAppSettingsFor(ctx.store, who, account, request.body, ctx.config.whatsapp.connector);
      return ok(describeWhatsAppSettings(await settingsOf(account.id), iso));
    },
  );

  admin.post(
    `${base}/templates/sync`,
    {
      schema: {
        summary: "Sync the account's templates from its business account now",
        tags,
        params: Type.Object(Username),
        response: operatorAnswer(Type.Array(OperatorWhatsAppTemplate)),
      },
    },
    async (request) => {
      const settings = await settingsOf(await accountOf(request.params.username));
      const sender = senderOf(settings);
      if (!sender) throw new GatewayError("no_business_account");
      await ctx.whatsapp.catalog.sync(settings, sender);
      // Every status, with the reason one cannot be sent (pending, rejected with WhatsApp's word,
      // paused, disabled), unlike the account's own listing of approved ones: what support needs
      // to answer "why is my template not there?".
      const rows = await listedTemplates(db, settings.accountId);
      return ok(rows.map((row) => describeTemplate(row, settings.sandbox)));
    },
  );

  admin.put(
    `${base}/templates/:name`,
    {
      schema: {
        summary: "Mark a template (every language) test-only: only the account's test numbers may receive it",
        tags,
        params: Type.Object({ ...Username, name: Type.String({ maxLength: 512 }) }),
        body: Type.Object({ test_only: Type.Boolean() }, { additionalProperties: false }),
        response: operatorAnswer(TemplateTestOnly),
      },
    },
    async (request) => {
      const account = await requireAccount(db, request.params.username);
      const { name } = request.params;
      const who = { clock: ctx.clock, actor: actorOf(request) };
      const changed = await setTemplateTestOnlyFor(ctx.store, who, account, name, request.body.test_only);
      if (changed === 0) throw new GatewayError("not_found", `No synced template "${name}" in this account.`);
      return ok({ name, test_only: request.body.test_only, languages: changed });
    },
  );

  admin.post(
    `${base}/inbound`,
    {
      schema: {
        summary: "Simulator only: a customer's message to the account's business number (opens the 24-hour window)",
        tags,
        params: Type.Object(Username),
        body: Type.Object(
          { from: Type.String({ maxLength: 32 }), text: Type.String({ minLength: 1, maxLength: 4096 }) },
          { additionalProperties: false },
        ),
        response: operatorAnswer(SimulatedInbound),
      },
    },
    async (request, reply) => {
      const settings = await settingsOf(await accountOf(request.params.username));
      const sender = senderOf(settings);
      if (!sender) throw new GatewayError("no_business_account");
      if (settings.connector !== "simulator") {
        throw new GatewayError(
          "conflict",
          "The account uses the whatsapp-cloud connector: its customers' messages come from Meta's webhook only.",
        );
      }
      const body = request.body;
      const from = parseE164(body.from);
      if (!from)
        throw new GatewayError("invalid_request", `"from" must be digits with a country code.`, { field: "from" });
      const at = ctx.clock.now().getTime();
      const messageId = `wamid.SIMIN${ulid(at)}`;
      await ctx.whatsapp.events.applyInbound([
        {
          phoneNumberId: sender.phoneNumberId,
          displayPhoneNumber: settings.displayPhoneNumber ?? sender.phoneNumberId,
          messageId,
          from: from.digits,
          at,
          type: "text",
          text: body.text,
        },
      ]);
      return reply.code(201).send(ok({ message_id: messageId, from: from.digits, received_at: iso(at) }));
    },
  );
}
