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

/** A unit a sub-account's card prices below its parent's price (decision 0168). */
export const BelowUnit = Type.Object({
  channel: Type.String(),
  route: Type.String({ description: "T, P, PS, I or V" }),
  prefix: Type.String({ description: "The prefix compared, * for numbers no prefix names" }),
  from: NullableTime,
  price: Type.Number({ description: "The sub-account's price (credits)" }),
  parent_price: Type.Number({ description: "Its parent's price of the same unit (credits)" }),
});

/** A sub-account whose own card prices some unit below its parent's price. */
export const SubAccountBelowParent = Type.Object({
  username: Type.String(),
  parent: Type.String(),
  price_card: Type.String({ description: "The sub-account's own card" }),
  units_below: Type.Integer({ description: "Units (channel, route, prefix, moment) priced below" }),
  units: Type.Array(BelowUnit, { description: "The first five of them" }),
  message: Type.String(),
});

export const WrittenPriceCard = Type.Object({
  name: Type.String({ description: "The card's name as stored (names compare without case)" }),
  rows: Type.Integer(),
  below_parent: Type.Array(SubAccountBelowParent, {
    description: "Sub-accounts the card, as saved, leaves priced below their parent's price (saved anyway)",
  }),
});

export const DeletedPriceCard = Type.Object({ name: Type.String(), deleted: Type.Boolean() });

export const CostCard = Type.Object({ connector: Type.String(), rows: Type.Array(PriceCardRow) });

export const WrittenCostCard = Type.Object({ connector: Type.String(), rows: Type.Integer() });
