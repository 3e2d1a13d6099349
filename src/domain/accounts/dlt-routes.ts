// v2 DLT registrations of the calling account: its entity IDs and headers with their state, and
// its request for one (pending until the operator approves it; only approved ones count for sends).
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { recordChange } from "../audit/index.js";
import { actorOf } from "../auth/index.js";
import {
  carriedTmChain,
  type DltEntityRow,
  type DltHeaderRow,
  listDltEntities,
  listDltHeaders,
  requestDltRegistration,
  splitChain,
} from "./dlt.js";
import { addDltLink, DLT_LINK_FIELD, describeDltLink, listDltLinks } from "./dlt-links.js";
import { DltEntity, DltHeader, DltLink, DltRegistrations } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config">;

const resource = { envelope: "status" } as const;
/** An entity with its chain as the carriers get it: the operator's TM ID (DLT_TM_ID) last. */
const entityView = (row: DltEntityRow, tmId: string | undefined) => ({
  id: Number(row.id),
  entity_id: row.entity_id,
  status: row.status,
  rejection_reason: row.rejection_reason,
  tm_chain: carriedTmChain(splitChain(row.tm_chain), tmId),
  created_at: isoUtc(new Date(Number(row.created_at))),
});
const headerView = (row: DltHeaderRow) => ({
  id: Number(row.id),
  header: row.header,
  status: row.status,
  rejection_reason: row.rejection_reason,
  created_at: isoUtc(new Date(Number(row.created_at))),
});

export function registerV2DltRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;
  const tmId = ctx.config.dlt.tmId;

  v2.get(
    "/dlt",
    {
      config: resource,
      schema: {
        operationId: "listDltRegistrations",
        summary: "The account's DLT entity IDs and headers with their state",
        tags: ["account"],
        response: {
          200: resourceAnswer(DltRegistrations),
        },
      },
    },
    async (request) => {
      const accountId = request.principal!.accountId;
      const [entities, headers, urls, callbacks] = await Promise.all([
        listDltEntities(db, accountId),
        listDltHeaders(db, accountId),
        listDltLinks(db, accountId, "url"),
        listDltLinks(db, accountId, "callback"),
      ]);
      return {
        status: "success",
        data: {
          entities: entities.map((row) => entityView(row, tmId)),
          headers: headers.map(headerView),
          urls: urls.map(describeDltLink),
          callbacks: callbacks.map(describeDltLink),
        },
      };
    },
  );

  for (const [path, kind, field, schema] of [
    ["entities", "entity", "entity_id", DltEntity],
    ["headers", "header", "header", DltHeader],
  ] as const) {
    v2.post(
      `/dlt/${path}`,
      {
        config: resource,
        schema: {
          operationId: kind === "entity" ? "requestDltEntity" : "requestDltHeader",
          summary: `Ask for a DLT ${kind === "entity" ? "entity ID" : "header"} (pending operator approval)`,
          tags: ["account"],
          body: Type.Object(
            { [field]: Type.String({ minLength: 1, maxLength: 64 }) },
            { additionalProperties: false, title: kind === "entity" ? "DltEntityRequest" : "DltHeaderRequest" },
          ),
          response: { 200: resourceAnswer(schema), 201: resourceAnswer(schema) },
        },
      },
      async (request, reply) => {
        const value = request.body[field] ?? "";
        const accountId = request.principal!.accountId;
        const who = { clock: ctx.clock, actor: actorOf(request) };
        // Audited as the account's other requests (sender_id.request): asking again writes nothing.
        const { created, data } = await ctx.store.transaction(async (trx) => {
          const { created, row } = await requestDltRegistration(trx, ctx.clock, accountId, kind, value);
          const data = kind === "entity" ? entityView(row as DltEntityRow, tmId) : headerView(row as DltHeaderRow);
          if (created) {
            const target = `DLT ${kind} ${data.id}`;
            await recordChange(trx, who, { action: `dlt_${kind}.request`, target, accountId, after: data });
          }
          return { created, data };
        });
        return reply.code(created ? 201 : 200).send({ status: "success", data });
      },
    );
  }

  // Links and callback numbers per entity: the account asks, the operator approves (issue 40).
  for (const [path, kind] of [
    ["urls", "url"],
    ["callbacks", "callback"],
  ] as const) {
    const field = DLT_LINK_FIELD[kind];
    v2.post(
      `/dlt/${path}`,
      {
        config: resource,
        schema: {
          operationId: kind === "url" ? "requestDltUrl" : "requestDltCallback",
          summary: `Ask for a ${kind === "url" ? "link (URL, APK or OTT)" : "callback number"} of a DLT entity to be white-listed (pending operator approval)`,
          tags: ["account"],
          body: Type.Object(
            {
              entity_id: Type.String({ minLength: 1, maxLength: 64 }),
              [field]: Type.String({ minLength: 1, maxLength: 1000 }),
            },
            { additionalProperties: false, title: kind === "url" ? "DltUrlRequest" : "DltCallbackRequest" },
          ),
          response: { 200: resourceAnswer(DltLink), 201: resourceAnswer(DltLink) },
        },
      },
      async (request, reply) => {
        const body = request.body as Record<string, string>;
        const principal = request.principal!;
        const account = { id: principal.accountId, username: principal.username };
        const who = { clock: ctx.clock, actor: actorOf(request) };
        const { created, row } = await ctx.store.transaction(async (trx) => {
          const added = await addDltLink(trx, ctx.clock, account, {
            kind,
            entityId: body.entity_id ?? "",
            value: body[field] ?? "",
            status: "pending",
          });
          if (added.created) {
            await recordChange(trx, who, {
              action: `dlt_${kind}.request`,
              target: `${kind === "url" ? "DLT link" : "DLT callback number"} ${added.row.id}`,
              accountId: account.id,
              after: describeDltLink(added.row),
            });
          }
          return added;
        });
        return reply.code(created ? 201 : 200).send({ status: "success", data: describeDltLink(row) });
      },
    );
  }
}
