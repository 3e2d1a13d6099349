// Operator API for a connector's error_codes table (issue 40, item 5), under /admin/api:
// GET answers every code it maps (its own over the default table), PUT replaces its own; one code
// is set or removed by PUT|DELETE …/error-codes/{code} (the console's page), read and written in
// one transaction of the catalog so that two operators' changes do not undo each other. The CLI
// calls the same functions. Each change is in the audit log.
import type { FastifyRequest } from "fastify";
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { type Actor, recordChange } from "../../domain/audit/index.js";
import { actorOf } from "../../domain/auth/index.js";
import { ErrorCodes } from "./carrier-schemas.js";
import { type Carrier, changeCatalog, findCarrier, requireCarrier, saveCarrier, upsertCarrier } from "./catalog.js";
import { CONNECTOR_NAME } from "./definitions.js";
import {
  DEFAULT_ERROR_CODES,
  ERROR_CODE_PATTERN,
  ErrorCodeTableError,
  effectiveErrorCodes,
  parseErrorCodes,
} from "./error-codes.js";

const Name = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }) });
// The code is checked by parseErrorCodes, which says what a carrier code may hold.
const NameAndCode = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }), code: Type.String() });
// The table is checked by parseErrorCodes, which names the wrong entry.
const Body = Type.Object({ codes: Type.Unknown() }, { additionalProperties: false });
const Entry = Type.Object(
  { reason: Type.Optional(Type.Unknown()), description: Type.Optional(Type.Unknown()) },
  { additionalProperties: false },
);

type Deps = Pick<Runtime, "store" | "clock"> & { actor?: Actor | undefined };

/** A connector's table as the operator API and the CLI show it. */
export function describeErrorCodes(carrier: Carrier) {
  return { connector: carrier.name, codes: effectiveErrorCodes(carrier.definition.error_codes) };
}

function checkedTable(input: unknown) {
  try {
    return parseErrorCodes(input);
  } catch (error) {
    if (error instanceof ErrorCodeTableError) throw new GatewayError("invalid_request", error.message);
    throw error;
  }
}

/** Replaces a connector's own error_codes table (empty: the default table alone); refuses a bad one by name. */
export async function replaceErrorCodes(deps: Deps, name: string, input: unknown) {
  const carrier = await requireCarrier(deps.store.db, name);
  const codes = checkedTable(input);
  const { error_codes: _old, ...definition } = carrier.definition;
  const changed = Object.keys(codes).length > 0 ? { ...definition, error_codes: codes } : definition;
  const saved = await saveCarrier(deps, changed, carrier.source);
  return describeErrorCodes(saved.carrier);
}

/**
 * Sets one code of a connector's own table (`entry`), or removes it (undefined: the default
 * table's entry, if any, applies again). Refuses a bad entry in words, and the removal of a code
 * the connector does not map itself.
 */
export async function changeErrorCode(
  deps: Deps,
  name: string,
  code: string,
  entry: { reason?: unknown; description?: unknown } | undefined,
) {
  if (!ERROR_CODE_PATTERN.test(code)) {
    throw new GatewayError(
      "invalid_request",
      `"${code.slice(0, 40)}" is not a carrier code: 1 to 32 letters, digits, _ . : - (e.g. 633, 0x00000455, E:4001).`,
    );
  }
  const checked = entry === undefined ? undefined : checkedTable({ [code]: entry })[code];
  await changeCatalog({ store: deps.store, clock: deps.clock }, async (trx, now) => {
    const carrier = await findCarrier(trx, name);
    if (!carrier) throw new GatewayError("not_found", `No connector named ${name}.`);
    const { error_codes: own = {}, ...definition } = carrier.definition;
    const before = Object.hasOwn(own, code) ? own[code] : undefined;
    if (!checked && !before) {
      throw new GatewayError(
        "not_found",
        `The connector ${name} does not map the code ${code} itself${Object.hasOwn(DEFAULT_ERROR_CODES, code) ? " (the default table does, and is not removed: set the code to map it otherwise)" : ""}.`,
      );
    }
    const codes = { ...own };
    if (checked) codes[code] = checked;
    else delete codes[code];
    const changed = Object.keys(codes).length > 0 ? { ...definition, error_codes: codes } : definition;
    await upsertCarrier(trx, changed, carrier.source, now);
    if (deps.actor) {
      await recordChange(
        trx,
        { clock: deps.clock, actor: deps.actor },
        {
          action: checked ? "carrier.error_code.set" : "carrier.error_code.remove",
          target: `code ${code} of carrier ${name}`,
          accountId: null,
          before,
          after: checked,
        },
      );
    }
  });
  return describeErrorCodes(await requireCarrier(deps.store.db, name));
}

export function registerErrorCodeRoutes(admin: TypedRoutes, ctx: Pick<Runtime, "store" | "clock">): void {
  const acting = (request: FastifyRequest) => ({ store: ctx.store, clock: ctx.clock, actor: actorOf(request) });
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
      data: await replaceErrorCodes(acting(request), request.params.name, request.body.codes),
    }),
  );

  admin.put(
    "/carriers/:name/error-codes/:code",
    { schema: { params: NameAndCode, body: Entry, response: operatorAnswer(ErrorCodes) } },
    async (request) => ({
      status: "success",
      data: await changeErrorCode(acting(request), request.params.name, request.params.code, request.body),
    }),
  );

  admin.delete(
    "/carriers/:name/error-codes/:code",
    { schema: { params: NameAndCode, response: operatorAnswer(ErrorCodes) } },
    async (request) => ({
      status: "success",
      data: await changeErrorCode(acting(request), request.params.name, request.params.code, undefined),
    }),
  );
}
