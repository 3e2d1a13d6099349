// The webhook routes, mounted twice: under /api/v2/webhooks for the calling account and under
// /admin/api/accounts/{username}/webhooks for the operator. Only how the account is found and
// how times are written differ; everything else is this one table over operations.ts and deliveries.ts.

import type { FastifyRequest } from "fastify";
import { type TProperties, Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { pageAnswer, resourceAnswer } from "../../base/http/answer-schemas.js";
import { PAGE_PARAMS, pageMeta, pageOf, pathId } from "../../base/http/query-params.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { WebhookDeliveryStatus, WebhookEvent } from "../../base/store/schema.js";
import { actorOf, ownerRoleOf, roleAllows } from "../auth/index.js";
import { DELIVERY_STATUSES, listDeliveries, queueTestEvent, redeliverOne, redeliverRange } from "./deliveries.js";
import { changeWebhookUrls, type FirstInboundNumber, rotateSecretOf, webhookSettingsOf } from "./operations.js";
import { Redelivery, WebhookDelivery, WebhookSecret, WebhookSettings, WebhookUrlsRequest } from "./schemas.js";
import { DELIVERY_EVENTS, maskedSecret, WEBHOOK_EVENTS } from "./settings.js";

/** What this file takes from the gateway (`firstInboundNumber`: inbound/'s, handed in by app/). */
export type WebhookRouteDeps = Pick<Runtime, "config" | "store" | "clock"> & { firstInboundNumber: FirstInboundNumber };

export interface WebhookMount {
  /** Path of the account's webhook resource, e.g. `/webhooks`. */
  base: string;
  /** Path parameters `base` declares (besides a delivery's `id`). */
  params: TProperties;
  accountOf(request: FastifyRequest): Promise<number>;
  /** How times are written in this family's answers. */
  iso(ms: number): string;
  tags: string[];
  /**
   * Whether the caller sees the signing secret whole (decision 0141): only one who may change the
   * webhooks does; a read-only reader (an operator's view, operator support or finance) sees it
   * masked, as keys and connector passwords are.
   */
  showsSecret(request: FastifyRequest): boolean;
}

/**
 * Whether an operator API caller reads a signing secret whole (decision 0141): the staff who may
 * change the operator's settings (staff_admin) do; support and finance, who change none, read it
 * masked, on an account's webhooks and on the alerts the operator account's secret signs.
 */
export function staffReadsSecrets(request: FastifyRequest): boolean {
  const principal = request.principal!;
  return roleAllows(principal.userRole ?? ownerRoleOf(principal.role), "staff_admin");
}

const DELIVERIES_PER_PAGE = 25;
const DELIVERIES_MAX_PER_PAGE = 100;
const ISO_DATE_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?(?:Z|[+-]\d\d:\d\d)$/;
const Event = Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)));
const DeliveryEvent = Type.Union(DELIVERY_EVENTS.map((e) => Type.Literal(e)));
const resource = { envelope: "status" } as const;

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined || value === "") return undefined;
  if (!allowed.includes(value as T)) {
    throw new GatewayError("invalid_request", `Query parameter "${name}" must be one of ${allowed.join(", ")}.`, {
      field: name,
    });
  }
  return value as T;
}

function instant(value: string, name: string): number {
  const ms = ISO_DATE_TIME.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw new GatewayError("invalid_request", `"${name}" must be an ISO 8601 date-time such as 2026-11-22T07:00:00Z.`, {
      field: name,
    });
  }
  return ms;
}

/** A whole-number delivery id; anything else names no delivery (404, like an unknown one). */
function deliveryId(raw: string): number {
  const id = pathId(raw);
  if (id === undefined) {
    throw new GatewayError("not_found", `No webhook delivery with id "${raw}" in this account.`);
  }
  return id;
}

export function registerWebhookRoutes(app: TypedRoutes, ctx: WebhookRouteDeps, mount: WebhookMount): void {
  const deps = {
    store: ctx.store,
    clock: ctx.clock,
    allowPrivate: ctx.config.allowPrivateWebhooks,
    firstInboundNumber: ctx.firstInboundNumber,
  };
  const { base, iso, tags } = mount;
  // No `params` key at all where the path has none (an undefined one makes Fastify warn).
  const params = Object.keys(mount.params).length > 0 ? { params: Type.Object(mount.params) } : {};
  const withId = Type.Object({ ...mount.params, id: Type.String({ minLength: 1, maxLength: 30 }) });
  const ok = (data: unknown) => ({ status: "success", data });

  app.get(
    base,
    {
      config: resource,
      schema: {
        operationId: "getWebhooks",
        summary: "Webhook URLs per event and the signing secret (masked in an operator's read-only view)",
        tags,
        ...params,
        response: { 200: resourceAnswer(WebhookSettings) },
      },
    },
    async (request) => {
      const settings = await webhookSettingsOf(deps, await mount.accountOf(request));
      return ok(mount.showsSecret(request) ? settings : { ...settings, secret: maskedSecret(settings.secret) });
    },
  );

  app.put(
    base,
    {
      config: resource,
      schema: {
        operationId: "setWebhooks",
        summary: "Set (or, with null, remove) webhook URLs; answers the settings with the signing secret",
        tags,
        ...params,
        body: WebhookUrlsRequest,
        response: { 200: resourceAnswer(WebhookSettings) },
      },
    },
    async (request) => {
      const accountId = await mount.accountOf(request);
      return ok(await changeWebhookUrls(deps, accountId, request.body, actorOf(request)));
    },
  );

  app.post(
    `${base}/rotate-secret`,
    {
      config: resource,
      schema: {
        operationId: "rotateWebhookSecret",
        summary: "New signing secret; the previous one keeps signing for 24 hours",
        tags,
        ...params,
        response: { 200: resourceAnswer(WebhookSecret) },
      },
    },
    async (request) => ok(await rotateSecretOf(deps, await mount.accountOf(request), iso, actorOf(request))),
  );

  app.post(
    `${base}/test`,
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "testWebhook",
        summary: "Queue a sample event to the URL set for it",
        tags,
        ...params,
        body: Type.Object(
          { event: Type.Optional(Event) },
          { additionalProperties: false, title: "WebhookTestRequest" },
        ),
        response: { 202: resourceAnswer(WebhookDelivery) },
      },
      // The body is optional: a POST without one asks for the default event.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request, reply) => {
      const accountId = await mount.accountOf(request);
      const event = request.body.event ?? "delivery_report";
      return reply.code(202).send(ok(await queueTestEvent(deps, accountId, event, iso)));
    },
  );

  app.get(
    `${base}/deliveries`,
    {
      config: resource,
      schema: {
        operationId: "listWebhookDeliveries",
        response: { 200: pageAnswer(WebhookDelivery) },
        summary: "Webhook deliveries, newest first, with every attempt; paginated",
        tags,
        ...params,
        querystring: Type.Object({
          ...PAGE_PARAMS,
          status: Type.Optional(Type.String({ maxLength: 20 })),
          event: Type.Optional(Type.String({ maxLength: 30 })),
        }),
      },
    },
    async (request) => {
      const query = request.query;
      const paging = pageOf(query, DELIVERIES_PER_PAGE, DELIVERIES_MAX_PER_PAGE);
      const filter = {
        status: oneOf<WebhookDeliveryStatus>(query.status, DELIVERY_STATUSES, "status"),
        event: oneOf<WebhookEvent>(query.event, DELIVERY_EVENTS, "event"),
        ...paging,
      };
      const { deliveries, total } = await listDeliveries(ctx.store.db, await mount.accountOf(request), filter, iso);
      return { status: "success", data: deliveries, meta: pageMeta(paging, total) };
    },
  );

  app.post(
    `${base}/deliveries/:id/redeliver`,
    {
      config: { ...resource, errors: [404, 409] },
      schema: {
        operationId: "redeliverWebhook",
        summary: "Deliver a finished delivery again, with a new webhook-id",
        tags,
        params: withId,
        response: { 202: resourceAnswer(WebhookDelivery) },
      },
    },
    async (request, reply) => {
      const accountId = await mount.accountOf(request);
      const id = deliveryId(request.params.id);
      return reply.code(202).send(ok(await redeliverOne(deps, accountId, id, iso)));
    },
  );

  app.post(
    `${base}/deliveries/redeliver`,
    {
      config: { ...resource, errors: [409] },
      schema: {
        operationId: "redeliverWebhooks",
        response: { 202: resourceAnswer(Redelivery) },
        summary: "Deliver again the finished deliveries created in a time range",
        tags,
        ...params,
        body: Type.Object(
          {
            from: Type.String({ maxLength: 40 }),
            to: Type.String({ maxLength: 40 }),
            status: Type.Optional(Type.Union([Type.Literal("failed"), Type.Literal("delivered"), Type.Literal("any")])),
            event: Type.Optional(DeliveryEvent),
          },
          { additionalProperties: false, title: "RedeliveryRequest" },
        ),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const from = instant(body.from, "from");
      const to = instant(body.to, "to");
      if (from >= to) throw new GatewayError("invalid_request", '"from" must be before "to".', { field: "from" });
      const accountId = await mount.accountOf(request);
      const result = await redeliverRange(deps, accountId, {
        from,
        to,
        status: body.status ?? "failed",
        event: body.event,
      });
      return reply.code(202).send(ok(result));
    },
  );
}
