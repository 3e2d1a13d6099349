// v2 DLT registrations of the calling account: its entity IDs and headers with their state, and
// its request for one (pending until the operator approves it; only approved ones count for sends).
import { Type } from "typebox";
import { isoUtc } from "../../base/core/clock.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import {
  type DltEntityRow,
  type DltHeaderRow,
  listDltEntities,
  listDltHeaders,
  requestDltRegistration,
} from "./dlt.js";
import { DltEntity, DltHeader, DltRegistrations } from "./v2-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock">;

const resource = { envelope: "status" } as const;
const entityView = (row: DltEntityRow) => ({
  id: Number(row.id),
  entity_id: row.entity_id,
  status: row.status,
  created_at: isoUtc(new Date(Number(row.created_at))),
});
const headerView = (row: DltHeaderRow) => ({
  id: Number(row.id),
  header: row.header,
  status: row.status,
  created_at: isoUtc(new Date(Number(row.created_at))),
});

export function registerV2DltRoutes(v2: TypedRoutes, ctx: Deps): void {
  const db = ctx.store.db;

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
      const [entities, headers] = await Promise.all([listDltEntities(db, accountId), listDltHeaders(db, accountId)]);
      return { status: "success", data: { entities: entities.map(entityView), headers: headers.map(headerView) } };
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
        const { created, row } = await requestDltRegistration(db, ctx.clock, request.principal!.accountId, kind, value);
        const data = kind === "entity" ? entityView(row as DltEntityRow) : headerView(row as DltHeaderRow);
        return reply.code(created ? 201 : 200).send({ status: "success", data });
      },
    );
  }
}
