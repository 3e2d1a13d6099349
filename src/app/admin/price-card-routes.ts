// The operator API for price cards: PUT /admin/api/price-cards/{name} replaces a card's rows (a bad
// row: 400 naming rows[i] and its field, nothing written), GET lists the cards and shows one. An
// account's card is set with `price_card` on PATCH /admin/api/accounts/{username} (routes.ts).
// A connector's cost card takes the same rows: PUT and GET /admin/api/carriers/{name}/cost-card.
import { Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { costCardRows, replaceCostCard, requireCostedConnector } from "../../delivery/carriers/cost-cards.js";
import { CONNECTOR_NAME } from "../../delivery/carriers/definitions.js";
import {
  DEFAULT_CARD,
  describePriceRow,
  listPriceCards,
  MAX_CARD_ROWS,
  type PriceRow,
  type PriceRowInput,
  priceCardRows,
  priceRowsOf,
  replacePriceCard,
} from "../../domain/accounts/index.js";
import { priceCardEntry } from "./change-entries.js";
import { changeDeps } from "./operations.js";
import { CostCard, PriceCard, PriceCardSummary, WrittenCostCard, WrittenPriceCard } from "./price-card-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

const Name = Type.Object({ name: Type.String({ maxLength: 64 }) });

/**
 * The body's rows, typed as JSON must be (no coercion, as everywhere in the operator API: a price
 * written "0.25" is refused, not read as a CSV cell would be), then checked by priceRowsOf.
 */
function jsonPriceRows(rows: readonly PriceRowInput[]): PriceRow[] {
  rows.forEach((row, index) => {
    const wrong = (field: string, kind: string) => {
      const value = (row as Record<string, unknown>)[field];
      return new GatewayError(
        "invalid_request",
        `rows[${index}].${field} must be ${kind} (got ${JSON.stringify(value)}); nothing written.`,
        { field: `rows[${index}].${field}`, index },
      );
    };
    if (row.price !== undefined && typeof row.price !== "number") throw wrong("price", "a number of credits");
    for (const field of ["channel", "route", "prefix"] as const) {
      if (row[field] !== undefined && typeof row[field] !== "string") throw wrong(field, "a string");
    }
    if (row.effective_from != null && typeof row.effective_from !== "string") {
      throw wrong("effective_from", "an ISO 8601 string or null");
    }
  });
  return priceRowsOf([...rows]);
}
const Field = Type.Optional(Type.Unknown());
const Row = Type.Object(
  { channel: Field, route: Field, prefix: Field, price: Field, effective_from: Field },
  { additionalProperties: false },
);
const Rows = Type.Object({ rows: Type.Array(Row, { maxItems: MAX_CARD_ROWS }) }, { additionalProperties: false });
const Connector = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }) });

export function registerPriceCardRoutes(admin: TypedRoutes, ctx: Deps): void {
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get("/price-cards", { schema: { response: operatorAnswer(Type.Array(PriceCardSummary)) } }, async () =>
    ok(await listPriceCards(ctx.store.db)),
  );

  admin.get(
    "/price-cards/:name",
    { schema: { params: Name, response: operatorAnswer(PriceCard) } },
    async (request) => {
      const { name } = request.params;
      const rows = await priceCardRows(ctx.store.db, name);
      if (!rows) throw new GatewayError("not_found", `No price card named "${name}".`);
      return ok({ name, rows: rows.map(describePriceRow) });
    },
  );

  admin.put(
    "/price-cards/:name",
    {
      schema: {
        params: Name,
        body: Rows,
        response: operatorAnswer(WrittenPriceCard),
      },
    },
    async (request) => {
      const { name } = request.params;
      if (name === DEFAULT_CARD) {
        throw new GatewayError("invalid_request", `The card "${DEFAULT_CARD}" is built in (1 credit a unit).`);
      }
      const rows = jsonPriceRows(request.body.rows);
      const entry = priceCardEntry(changeDeps(ctx, request), name, rows);
      const written = await replacePriceCard(ctx.store, ctx.clock, name, rows, entry);
      return ok({ name, rows: written });
    },
  );
}

/** A connector's cost card: what its carrier charges, in the price cards' rows. */
export function registerCostCardRoutes(admin: TypedRoutes, ctx: Deps): void {
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get(
    "/carriers/:name/cost-card",
    { schema: { params: Connector, response: operatorAnswer(CostCard) } },
    async (request) => {
      const { name } = request.params;
      await requireCostedConnector(ctx.store.db, name);
      return ok({ connector: name, rows: (await costCardRows(ctx.store.db, name)).map(describePriceRow) });
    },
  );

  admin.put(
    "/carriers/:name/cost-card",
    { schema: { params: Connector, body: Rows, response: operatorAnswer(WrittenCostCard) } },
    async (request) => {
      const { name } = request.params;
      const written = await replaceCostCard(changeDeps(ctx, request), name, jsonPriceRows(request.body.rows));
      return ok({ connector: name, rows: written });
    },
  );
}
