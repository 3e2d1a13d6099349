// Operator API for carriers, under /admin/api (mounted by admin/routes.ts behind its operator
// check): SMS connectors (smpp, http-sms) with their health, the routes that pick them, and the
// adaptive routes' scores (GET /routes/scores). Cost cards: app/admin/price-card-routes.ts; error
// codes: error-code-routes.ts; the refund policy per reason: refund-policy-routes.ts.
// Thin adapters over catalog.ts; the workers pick every change up within a second or two.

import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { actorOf } from "../../domain/auth/index.js";
import { Carrier, CarrierRoute, CarrierWithHealth, ConnectorHealth, RouteScore } from "./carrier-schemas.js";
import {
  describeCarrier,
  describeRoute,
  findCarrier,
  listCarriers,
  listRoutes,
  readConnectorHealth,
  removeCarrier,
  removeRoute,
  requireCarrier,
  saveCarrier,
  saveRoute,
  setCarrierEnabled,
} from "./catalog.js";
import { CONNECTOR_NAME, ROUTE_CODES } from "./definitions.js";
import { registerErrorCodeRoutes } from "./error-code-routes.js";
import { registerRefundPolicyRoutes } from "./refund-policy-routes.js";
import { compiledCostCards, measureRouteScores } from "./route-scores.js";

/** What this file takes from the gateway. */
type Deps = Pick<Runtime, "store" | "clock" | "config">;

const Name = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }) });
// Definitions are checked by catalog.ts, which names the wrong field in the family's dialect.
const Definition = Type.Object({ name: Type.Optional(Type.Unknown()) }, { additionalProperties: true });

export function registerCarrierAdminRoutes(admin: TypedRoutes, ctx: Deps): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  const acting = (request: FastifyRequest) => ({ ...deps, actor: actorOf(request) });
  const ok = (data: unknown) => ({ status: "success", data });
  const healthOf = async () => {
    const views = await readConnectorHealth(ctx.store.db, ctx.clock.now().getTime());
    return new Map(views.map((view) => [view.connector, view]));
  };
  const withHealth = (carrier: Parameters<typeof describeCarrier>[0], health: Awaited<ReturnType<typeof healthOf>>) => {
    const view = health.get(carrier.name);
    return {
      ...describeCarrier(carrier),
      health: view ? { state: view.state, workers: view.workers } : { state: "unknown", workers: [] },
    };
  };

  admin.get("/carriers", { schema: { response: operatorAnswer(Type.Array(CarrierWithHealth)) } }, async () => {
    const [carriers, health] = await Promise.all([listCarriers(ctx.store.db), healthOf()]);
    return ok(carriers.map((carrier) => withHealth(carrier, health)));
  });

  /** Every connector the workers run (the simulators and built-ins too), as they last saw it. */
  admin.get("/carriers/health", { schema: { response: operatorAnswer(Type.Array(ConnectorHealth)) } }, async () =>
    ok([...(await healthOf()).values()]),
  );

  admin.get(
    "/carriers/:name",
    { schema: { params: Name, response: operatorAnswer(CarrierWithHealth) } },
    async (request) => ok(withHealth(await requireCarrier(ctx.store.db, request.params.name), await healthOf())),
  );

  admin.post(
    "/carriers",
    { schema: { body: Definition, response: operatorAnswer(Carrier) } },
    async (request, reply) => {
      const name = request.body.name;
      if (typeof name === "string" && (await findCarrier(ctx.store.db, name))) {
        throw new GatewayError(
          "conflict",
          `A connector named ${name} exists; PUT /admin/api/carriers/${name} replaces it.`,
        );
      }
      const { carrier } = await saveCarrier(acting(request), request.body);
      return reply.code(201).send(ok(describeCarrier(carrier)));
    },
  );

  admin.put(
    "/carriers/:name",
    { schema: { params: Name, body: Definition, response: operatorAnswer(Carrier) } },
    async (request, reply) => {
      const name = request.params.name;
      const body = request.body;
      if (body.name !== undefined && body.name !== name) {
        throw new GatewayError("invalid_request", `The body names ${String(body.name)}, the path ${name}.`);
      }
      const { created, carrier } = await saveCarrier(acting(request), { ...body, name });
      return reply.code(created ? 201 : 200).send(ok(describeCarrier(carrier)));
    },
  );

  admin.patch(
    "/carriers/:name",
    {
      schema: {
        params: Name,
        body: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
        response: operatorAnswer(Carrier),
      },
    },
    async (request) => {
      const { enabled } = request.body;
      return ok(describeCarrier(await setCarrierEnabled(acting(request), request.params.name, enabled)));
    },
  );

  admin.delete("/carriers/:name", { schema: { params: Name, response: operatorAnswer(Carrier) } }, async (request) =>
    ok(describeCarrier(await removeCarrier(acting(request), request.params.name))),
  );

  registerErrorCodeRoutes(admin, ctx);
  registerRefundPolicyRoutes(admin, ctx);

  admin.get("/routes", { schema: { response: operatorAnswer(Type.Array(CarrierRoute)) } }, async () =>
    ok((await listRoutes(ctx.store.db)).map(describeRoute)),
  );

  /**
   * The adaptive routes' scores, measured from the database as the workers measure them, with the
   * shares routing gives now (a connector disabled or down none); the round robin's weight is theirs.
   */
  admin.get("/routes/scores", { schema: { response: operatorAnswer(Type.Array(RouteScore)) } }, async () => {
    const { db } = ctx.store;
    const [routes, costs] = await Promise.all([listRoutes(db), compiledCostCards(db)]);
    const views = await measureRouteScores(db, routes, costs, ctx.clock.now().getTime());
    return ok(views.map(({ weight: _weight, ...view }) => view));
  });

  admin.put(
    "/routes",
    { schema: { body: Definition, response: operatorAnswer(CarrierRoute) } },
    async (request, reply) => {
      const { created, route } = await saveRoute(acting(request), request.body);
      return reply.code(created ? 201 : 200).send(ok(describeRoute(route)));
    },
  );

  admin.delete(
    "/routes",
    {
      schema: {
        querystring: Type.Object(
          {
            route: Type.Union(ROUTE_CODES.map((code) => Type.Literal(code))),
            prefix: Type.Optional(Type.String({ pattern: "^\\d{0,15}$" })),
          },
          { additionalProperties: false },
        ),
        response: operatorAnswer(CarrierRoute),
      },
    },
    async (request) => {
      const { route, prefix } = request.query;
      return ok(describeRoute(await removeRoute(acting(request), route, prefix ?? "")));
    },
  );
}
