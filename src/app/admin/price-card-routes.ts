// The operator API for price cards: PUT /admin/api/price-cards/{name} replaces a card's rows, sent
// as JSON (a bad row: 400 naming rows[i] and its field) or as the CSV `prices import` reads (a bad
// line: 400 naming it), nothing written on a refusal, no rows only with ?allow_empty=true; written
// in chunks without holding the API (price-cards.ts); GET lists the cards and shows a page of one
// (by channel and prefix start; decision 0154), its export streams every row as the CSV the PUT
// reads; DELETE removes one no account is priced by. Names compare without case, as usernames. An
// account's card is set with `price_card` on PATCH /admin/api/accounts/{username} (routes.ts).
// A connector's cost card takes the same rows, as JSON or CSV: PUT and GET /admin/api/carriers/{name}/cost-card.
import { type Static, Type } from "typebox";
import { GatewayError } from "../../base/core/errors.js";
import { exportAnswer, exportFormatOf, sendExport } from "../../base/http/exports.js";
import { PageNumber, pageMeta } from "../../base/http/query-params.js";
import { operatorAnswer, type TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import { costCardRows, replaceCostCard, requireCostedConnector } from "../../delivery/carriers/cost-cards.js";
import { CONNECTOR_NAME } from "../../delivery/carriers/definitions.js";
import {
  DEFAULT_CARD,
  deletePriceCard,
  describePriceRow,
  findPriceCard,
  listPriceCards,
  MAX_CARD_ROWS,
  PRICE_CHANNELS,
  PRICE_CSV_HEADER,
  type PriceRow,
  type PriceRowInput,
  parsePriceCsvInTurns,
  priceCardExportRows,
  priceCardPage,
  priceRowsInTurns,
  replacePriceCard,
  subAccountsBelowParent,
} from "../../domain/accounts/index.js";
import { priceCardDeleteEntry, priceCardEntry } from "./change-entries.js";
import { changeDeps } from "./operations.js";
import {
  CostCard,
  DeletedPriceCard,
  PriceCardPage,
  PriceCardSummary,
  WrittenCostCard,
  WrittenPriceCard,
} from "./price-card-schemas.js";

type Deps = Pick<Runtime, "store" | "clock">;

const Name = Type.Object({ name: Type.String({ maxLength: 64 }) });
const AllowEmpty = Type.Object({
  allow_empty: Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")])),
});

/**
 * The body's rows, typed as JSON must be (no coercion, as everywhere in the operator API: a price
 * written "0.25" is refused, not read as a CSV cell would be), then checked by priceRowsOf.
 */
function jsonPriceRows(rows: readonly PriceRowInput[]): Promise<PriceRow[]> {
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
  return priceRowsInTurns([...rows]);
}
const CardPageQuery = Type.Object({
  page: Type.Optional(PageNumber()),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  channel: Type.Optional(Type.Union(PRICE_CHANNELS.map((c) => Type.Literal(c)))),
  prefix: Type.Optional(Type.String({ maxLength: 20 })),
});
const ExportQuery = Type.Object({ format: Type.Optional(Type.String({ maxLength: 10 })) });
const EXPORT_WORDS =
  "CSV (the columns PUT text/csv and `prices import` read, so it imports back as it is) or JSON Lines: every row of the card, in the order it was imported.";

async function* describedRows(rows: AsyncIterable<PriceRow>) {
  for await (const row of rows) yield describePriceRow(row);
}

const Field = Type.Optional(Type.Unknown());
const Row = Type.Object(
  { channel: Field, route: Field, prefix: Field, price: Field, effective_from: Field },
  { additionalProperties: false },
);
const Rows = Type.Object({ rows: Type.Array(Row, { maxItems: MAX_CARD_ROWS }) }, { additionalProperties: false });
const Connector = Type.Object({ name: Type.String({ pattern: CONNECTOR_NAME }) });

const BODY_TYPES =
  'the rows as JSON (Content-Type: application/json, {"rows": [...]}) or the card as CSV (Content-Type: text/csv, the file `switchboard prices import` reads)';
const COST_BODY_TYPES =
  'the rows as JSON (Content-Type: application/json, {"rows": [...]}) or the cost card as CSV (Content-Type: text/csv, the file `switchboard carriers set-cost` reads)';
const wrongType = (types = BODY_TYPES) => new GatewayError("invalid_request", `Send ${types}.`, { http: 415 });

/** A PUT's rows: a text/csv body's lines, or a JSON body's `rows` (each as its content type's schema let it through). */
async function rowsOfBody(body: unknown, types = BODY_TYPES): Promise<PriceRow[]> {
  if (typeof body === "string") return parsePriceCsvInTurns(body);
  if (body === undefined || body === null) throw new GatewayError("invalid_request", `No body: send ${types}.`);
  if (typeof body === "object" && Array.isArray((body as { rows?: unknown }).rows)) {
    return jsonPriceRows((body as Static<typeof Rows>).rows);
  }
  throw wrongType(types);
}

/**
 * The routes of a card's PUT, in a scope of their own: a text/csv body is read whole as text
 * (within the server's body limit, as a JSON one) where the operator API's other CSV routes take it
 * as a stream, and a body of another type is refused (415 naming `types`), not read as fields.
 */
function cardUploads(admin: TypedRoutes, types: string, routes: (upload: TypedRoutes) => void): void {
  admin.register(async (upload: TypedRoutes) => {
    upload.removeContentTypeParser(["text/csv", "text/plain", "application/x-www-form-urlencoded"]);
    upload.addContentTypeParser("text/csv", { parseAs: "string" }, (_request, body, done) => done(null, body));
    upload.addContentTypeParser("*", (_request, _payload, done) => done(wrongType(types), undefined));
    routes(upload);
  });
}

const CardBody = { content: { "application/json": { schema: Rows }, "text/csv": { schema: Type.String() } } };

export function registerPriceCardRoutes(admin: TypedRoutes, ctx: Deps): void {
  const ok = (data: unknown) => ({ status: "success", data });

  admin.get("/price-cards", { schema: { response: operatorAnswer(Type.Array(PriceCardSummary)) } }, async () =>
    ok(await listPriceCards(ctx.store.db)),
  );

  admin.get(
    "/price-cards/:name",
    { schema: { params: Name, querystring: CardPageQuery, response: { "2xx": PriceCardPage } } },
    async (request) => {
      const { name } = request.params;
      const { channel, prefix } = request.query;
      const paging = { page: request.query.page ?? 1, perPage: request.query.per_page ?? 100 };
      const card = await priceCardPage(ctx.store.db, name, { channel, prefix }, paging);
      if (!card) throw new GatewayError("not_found", `No price card named "${name}".`);
      return {
        status: "success",
        data: { name: card.name, row_count: card.cardRows, rows: card.rows.map(describePriceRow) },
        meta: pageMeta(paging, card.total),
      };
    },
  );

  admin.get(
    "/price-cards/:name/export",
    { schema: { params: Name, querystring: ExportQuery, response: { 200: exportAnswer(EXPORT_WORDS) } } },
    async (request, reply) => {
      const { name } = request.params;
      const card = name === DEFAULT_CARD ? name : (await findPriceCard(ctx.store.db, name))?.name;
      if (card === undefined) throw new GatewayError("not_found", `No price card named "${name}".`);
      const format = exportFormatOf(request.query.format);
      const rows = describedRows(priceCardExportRows(ctx.store.scanDb(), card));
      return sendExport(reply, format, `price-card-${card}`, PRICE_CSV_HEADER, rows);
    },
  );

  cardUploads(admin, BODY_TYPES, (upload) => {
    upload.put(
      "/price-cards/:name",
      {
        schema: {
          params: Name,
          querystring: AllowEmpty,
          body: CardBody,
          response: operatorAnswer(WrittenPriceCard),
        },
      },
      async (request) => {
        const { name } = request.params;
        if (name === DEFAULT_CARD) {
          throw new GatewayError("invalid_request", `The card "${DEFAULT_CARD}" is built in (1 credit a unit).`);
        }
        const rows = await rowsOfBody(request.body);
        if (rows.length === 0 && request.query.allow_empty !== "true") {
          throw new GatewayError(
            "invalid_request",
            `No rows: this would empty the price card "${name}" (every account on it back to 1 credit a unit). Add ?allow_empty=true to do that.`,
            { field: "rows" },
          );
        }
        const card = (await findPriceCard(ctx.store.db, name, { hidden: true }))?.name ?? name.toLowerCase();
        const entry = priceCardEntry(changeDeps(ctx, request), card, rows);
        const written = await replacePriceCard(ctx.store, ctx.clock, card, rows, entry);
        // Saved even so (a reseller's cost may rise): the sub-accounts it leaves below their parent named (decision 0168).
        const below = await subAccountsBelowParent(ctx.store.db, ctx.clock.now().getTime(), { card });
        return ok({ name: card, rows: written, below_parent: below });
      },
    );
  });

  admin.delete(
    "/price-cards/:name",
    { schema: { params: Name, response: operatorAnswer(DeletedPriceCard) } },
    async (request) => {
      const { name } = request.params;
      if (name.trim().toLowerCase() === DEFAULT_CARD) {
        throw new GatewayError("invalid_request", `The card "${DEFAULT_CARD}" is built in (1 credit a unit).`);
      }
      const card = await deletePriceCard(ctx.store, ctx.clock, name, priceCardDeleteEntry(changeDeps(ctx, request)));
      return ok({ name: card, deleted: true });
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

  // The same rows as JSON or as the CSV `carriers set-cost` reads (the price cards' columns).
  cardUploads(admin, COST_BODY_TYPES, (upload) => {
    upload.put(
      "/carriers/:name/cost-card",
      { schema: { params: Connector, body: CardBody, response: operatorAnswer(WrittenCostCard) } },
      async (request) => {
        const { name } = request.params;
        const rows = await rowsOfBody(request.body, COST_BODY_TYPES);
        const written = await replaceCostCard(changeDeps(ctx, request), name, rows);
        return ok({ connector: name, rows: written });
      },
    );
  });
}
