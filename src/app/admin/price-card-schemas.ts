// The operator API's answers about price cards (price-card-routes.ts) as schemas. Typebox only.
import { Type } from "typebox";
import { PageMeta } from "../../base/http/answer-schemas.js";

const NullableTime = Type.Union([Type.String({ format: "date-time" }), Type.Null()]);

export const PriceCardRow = Type.Object({
  channel: Type.String({ description: "sms or voice" }),
  route: Type.String({ description: "T, P, PS, I, V or *" }),
  prefix: Type.String({ description: "Digits with the country code, or *" }),
  price: Type.Number({ description: "Credits per SMS segment or voice unit (at most 3 decimals)" }),
  effective_from: NullableTime,
});

export const PriceCardSummary = Type.Object({
  name: Type.String(),
  rows: Type.Integer(),
  accounts: Type.Integer({ description: "Accounts priced by the card" }),
  updated_at: NullableTime,
});

/** A page of a card's rows (GET /admin/api/price-cards/{name}): `meta` counts the rows the filters match. */
export const PriceCard = Type.Object({
  name: Type.String({ description: "The card's name as stored (names compare without case)" }),
  row_count: Type.Integer({ description: "Rows of the card, whatever the filters" }),
  rows: Type.Array(PriceCardRow, { description: "A page of them, by channel, prefix, route and effective_from" }),
});

export const PriceCardPage = Type.Object({ status: Type.Literal("success"), data: PriceCard, meta: PageMeta });

export const WrittenPriceCard = Type.Object({
  name: Type.String({ description: "The card's name as stored (names compare without case)" }),
  rows: Type.Integer(),
});

export const DeletedPriceCard = Type.Object({ name: Type.String(), deleted: Type.Boolean() });

export const CostCard = Type.Object({ connector: Type.String(), rows: Type.Array(PriceCardRow) });

export const WrittenCostCard = Type.Object({ connector: Type.String(), rows: Type.Integer() });
