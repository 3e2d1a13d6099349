// Operator API for a connector's error_codes table (issue 40, item 5), under /admin/api:
// GET answers every code it maps (its own over the default table), PUT replaces its own; the CLI
// calls the same functions.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { type Carrier, requireCarrier, saveCarrier } from "./catalog.js";
import { CONNECTOR_NAME } from "./definitions.js";
import { ErrorCodeTableError, effectiveErrorCodes, parseErrorCodes } from "./error-codes.js";

const Name = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }) });
// The table is checked by parseErrorCodes, which names the wrong entry.
const Body = Type.Object({ codes: Type.Unknown() }, { additionalProperties: false });

export const ErrorCodes = Type.Object({
  connector: Type.String(),
  codes: Type.Array(
    Type.Object({
      code: Type.String(),
      reason: Type.String(),
      description: Type.String(),
      source: Type.Union([Type.Literal("connector"), Type.Literal("default")]),
    }),
  ),
});

/** A connector's table as the operator API and the CLI show it. */
export function describeErrorCodes(carrier: Carrier) {
  return { connector: carrier.name, codes: effectiveErrorCodes(carrier.definition.error_codes) };
}

/** Replaces a connector's own error_codes table (empty: the default table alone); refuses a bad one by name. */
export async function replaceErrorCodes(deps: Pick<Runtime, "store" | "clock">, name: string, input: unknown) {
  const carrier = await requireCarrier(deps.store.db, name);
  let codes: ReturnType<typeof parseErrorCodes>;
  try {
    codes = parseErrorCodes(input);
  } catch (error) {
    if (error instanceof ErrorCodeTableError) throw new GatewayError("invalid_request", error.message);
    throw error;
  }
  const { error_codes: _old, ...definition } = carrier.definition;
  const changed = Object.keys(codes).length > 0 ? { ...definition, error_codes: codes } : definition;
  const saved = await saveCarrier(deps, changed, carrier.source);
  return describeErrorCodes(saved.carrier);
}

export function registerErrorCodeRoutes(admin: TypedRoutes, ctx: Pick<Runtime, "store" | "clock">): void {
  const deps = { store: ctx.store, clock: ctx.clock };
  admin.get(
    "/carriers/:name/error-codes",
    { schema: { params: Name, response: operatorAnswer(ErrorCodes) } },
    async (request) => ({
      status: "success",
      data: describeErrorCodes(await requireCarrier(ctx.store.db, request.params.name)),
    }),
  );

  admin.put(
    "/carriers/:name/error-codes",
    { schema: { params: Name, body: Body, response: operatorAnswer(ErrorCodes) } },
    async (request) => ({
      status: "success",
      data: await replaceErrorCodes(deps, request.params.name, request.body.codes),
    }),
  );
}
