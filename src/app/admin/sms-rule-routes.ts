// Operator API for the SMS rule set: content templates, DLT entity IDs and headers, and the
// DND registry. Thin adapters over admin/operations.ts, which the CLI uses too.

import { type TSchema, Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { IdParams, PageNumber } from "../../base/http/query-params.js";
import { refuseTimeoutWith } from "../../base/http/timeout-refusal.js";
import { operatorAnswer, operatorPage, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { decisionBody, reasonOf } from "../../domain/accounts/index.js";
import {
  addDltFor,
  addDndNumbers,
  addTemplateFor,
  changeDeps,
  type DltKind,
  dltRegistrationsOf,
  dndStatusOf,
  dndSummary,
  importDndFor,
  listTemplatesFor,
  removeDltFor,
  removeDndNumbers,
  setDltStatusFor,
  setTemplateStatusFor,
} from "./operations.js";
import {
  AddedDltEntity,
  AddedDltHeader,
  AddedTemplate,
  DndAdded,
  DndCount,
  DndImport,
  DndRemoved,
  DndStatus,
  OperatorDltEntity,
  OperatorDltHeader,
  OperatorTemplate,
  RemovedDltEntity,
  RemovedDltHeader,
} from "./sms-rule-schemas.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config">;

const Username = Type.Object({ username: Type.String() });
const Status = Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]);
const OptionalText = (maxLength: number) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));
/** Numbers per JSON request; a registry of millions comes as a CSV import instead. */
const MAX_NUMBERS = 10_000;
const Numbers = Type.Object(
  { numbers: Type.Array(Type.String({ maxLength: 32 }), { minItems: 1, maxItems: MAX_NUMBERS }) },
  { additionalProperties: false },
);

function isStream(body: unknown): body is NodeJS.ReadableStream {
  return typeof (body as { pipe?: unknown } | null)?.pipe === "function";
}

export async function registerSmsRuleRoutes(admin: TypedRoutes, ctx: Deps): Promise<void> {
  const deps = { store: ctx.store, clock: ctx.clock, dltTmId: ctx.config.dlt.tmId };
  const ok = (data: unknown) => ({ status: "success", data });

  // A DND file can have tens of millions of lines: the route reads the request as a stream
  // instead of buffering it (the body limit applies only to buffered bodies).
  admin.addContentTypeParser("text/csv", (_request, payload, done) => done(null, payload));

  admin.post(
    "/accounts/:username/templates",
    {
      schema: {
        params: Username,
        body: Type.Object(
          {
            name: Type.String(),
            content: Type.String(),
            dlt_template_id: OptionalText(30),
            entity_id: OptionalText(30),
            sender: OptionalText(11),
            notes: OptionalText(500),
            approve: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(AddedTemplate),
      },
    },
    async (request, reply) => {
      const body = request.body;
      const created = await addTemplateFor(changeDeps(deps, request), {
        username: request.params.username,
        name: body.name,
        content: body.content,
        dltTemplateId: body.dlt_template_id ?? null,
        entityId: body.entity_id ?? null,
        sender: body.sender ?? null,
        notes: body.notes ?? null,
        approve: body.approve === true,
      });
      return reply.code(201).send(ok(created));
    },
  );

  admin.get(
    "/accounts/:username/templates",
    {
      schema: {
        params: Username,
        querystring: Type.Object({
          status: Type.Optional(Status),
          page: Type.Optional(PageNumber()),
          per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        }),
        response: operatorPage(OperatorTemplate),
      },
    },
    async (request) => {
      const query = request.query;
      const { templates, meta } = await listTemplatesFor(deps, request.params.username, {
        status: query.status,
        page: query.page,
        perPage: query.per_page,
      });
      return { status: "success", data: templates, meta };
    },
  );

  for (const [action, status] of [
    ["approve", "approved"],
    ["reject", "rejected"],
  ] as const) {
    admin.post(
      `/templates/:id/${action}`,
      {
        schema: { params: IdParams, body: decisionBody(action).body, response: operatorAnswer(AddedTemplate) },
        // The body is optional: a POST without one decides with no reason.
        preValidation: decisionBody(action).preValidation,
      },
      async (request) => {
        const reason = reasonOf(request.body);
        return ok(await setTemplateStatusFor(changeDeps(deps, request), request.params.id, status, undefined, reason));
      },
    );
  }

  for (const [path, kind, field, Listed, Added, Removed] of [
    ["entities", "entity", "entity_id", OperatorDltEntity, AddedDltEntity, RemovedDltEntity],
    ["headers", "header", "header", OperatorDltHeader, AddedDltHeader, RemovedDltHeader],
  ] as const satisfies readonly (readonly [string, DltKind, string, TSchema, TSchema, TSchema])[]) {
    const Body = Type.Object({ [field]: Type.String({ maxLength: 64 }) }, { additionalProperties: false });
    const registered = (body: unknown) => (body as Record<string, string>)[field] ?? "";

    admin.get(
      `/accounts/:username/dlt/${path}`,
      { schema: { params: Username, response: operatorAnswer(Type.Array(Listed)) } },
      async (request) => {
        const registrations = await dltRegistrationsOf(deps, request.params.username);
        return ok(kind === "entity" ? registrations.entities : registrations.headers);
      },
    );
    admin.post(
      `/accounts/:username/dlt/${path}`,
      { schema: { params: Username, body: Body, response: operatorAnswer(Added) } },
      async (request, reply) => {
        const added = await addDltFor(
          changeDeps(deps, request),
          request.params.username,
          kind,
          registered(request.body),
        );
        return reply.code(201).send(ok(added));
      },
    );
    admin.delete(
      `/accounts/:username/dlt/${path}`,
      { schema: { params: Username, body: Body, response: operatorAnswer(Removed) } },
      async (request) =>
        ok(await removeDltFor(changeDeps(deps, request), request.params.username, kind, registered(request.body))),
    );
    // An account's request (POST /api/v2/dlt/…), decided by its id.
    for (const [action, status] of [
      ["approve", "approved"],
      ["reject", "rejected"],
    ] as const) {
      admin.post(
        `/dlt/${path}/:id/${action}`,
        {
          schema: { params: IdParams, body: decisionBody(action).body, response: operatorAnswer(Listed) },
          preValidation: decisionBody(action).preValidation,
        },
        async (request) =>
          ok(await setDltStatusFor(changeDeps(deps, request), kind, request.params.id, status, reasonOf(request.body))),
      );
    }
  }

  admin.post(
    "/dnd/import",
    {
      schema: {
        querystring: Type.Object({ replace: Type.Optional(Type.Boolean()) }),
        response: operatorAnswer(DndImport),
      },
    },
    async (request) => {
      const body = request.body;
      if (!isStream(body) && typeof body !== "string") {
        throw new GatewayError("invalid_request", "Send the DND list as a CSV body with Content-Type: text/csv.", {
          http: 415,
        });
      }
      const { replace } = request.query;
      const maxBytes = ctx.config.dndImportMaxBytes;
      const tooLarge = () =>
        new GatewayError(
          "invalid_request",
          `The CSV is larger than ${maxBytes / 1024 / 1024} MiB (DND_IMPORT_MAX_MB); split it, or import it with the CLI (switchboard dnd import).`,
          { http: 413 },
        );
      // The request timeout is answered on the socket, outside this route: in its words.
      const timeoutAnswered = refuseTimeoutWith(
        request.raw,
        new GatewayError(
          "invalid_request",
          `The request did not arrive in time: the CSV did not arrive whole within ${ctx.config.http.requestTimeoutSeconds} s ` +
            "(HTTP_REQUEST_TIMEOUT_SECONDS). No number was added.",
          { added: 0 },
        ),
      );
      try {
        if (Number(request.headers["content-length"] ?? 0) > maxBytes) {
          const refused = tooLarge();
          throw new GatewayError(refused.code, `${refused.message} No number was added.`, { http: 413, added: 0 });
        }
        return ok(
          await importDndFor(changeDeps(deps, request), body, { replace: replace === true, maxBytes, tooLarge }),
        );
      } catch (error) {
        // A client that hangs up mid-upload is not a server failure (nor worth a 500 in the logs).
        if (request.raw.readableAborted) {
          throw new GatewayError(
            "invalid_request",
            "The CSV upload ended before the end of the file; no number was added. Import the whole file again.",
            { added: 0 },
          );
        }
        throw error;
      } finally {
        timeoutAnswered();
      }
    },
  );

  admin.get("/dnd", { schema: { response: operatorAnswer(DndCount) } }, async () => ok(await dndSummary(deps)));

  admin.get(
    "/dnd/:number",
    {
      schema: {
        params: Type.Object({ number: Type.String({ maxLength: 32 }) }),
        response: operatorAnswer(DndStatus),
      },
    },
    async (request) => ok(await dndStatusOf(deps, request.params.number)),
  );

  admin.post("/dnd", { schema: { body: Numbers, response: operatorAnswer(DndAdded) } }, async (request) =>
    ok(await addDndNumbers(changeDeps(deps, request), request.body.numbers)),
  );

  admin.delete("/dnd", { schema: { body: Numbers, response: operatorAnswer(DndRemoved) } }, async (request) =>
    ok(await removeDndNumbers(changeDeps(deps, request), request.body.numbers)),
  );
}
