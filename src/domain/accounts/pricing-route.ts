// GET /api/v2/pricing?channel=sms&route=I&recipient=…: what one unit (SMS segment or voice call
// unit) to that number costs the account by its price card, and the prefix that set the price.
import { Type } from "typebox";
import { fromMilli } from "../../base/core/credits.js";
import { parseE164 } from "../../base/core/e164.js";
import { GatewayError } from "../../base/core/errors.js";
import { normalizeIndianMobile } from "../../base/core/indian-mobile.js";
import { parseTrafficClass, trafficClassCode } from "../../base/core/traffic-class.js";
import { resourceAnswer } from "../../base/http/answer-schemas.js";
import type { TypedRoutes } from "../../base/http/typed-routes.js";
import type { Runtime } from "../../base/runtime/runtime.js";
import type { PriceBook } from "./price-lookup.js";
import type { PriceChannel } from "./price-rows.js";
import { shownCardName } from "./resellers.js";
import { PriceQuote } from "./v2-schemas.js";

type Deps = Pick<Runtime, "clock"> & { prices: PriceBook };

const resource = { envelope: "status" } as const;

function invalid(field: string, message: string): GatewayError {
  return new GatewayError("invalid_request", message, { field });
}

/** The number's digits with its country code (Indian mobiles: 91 and the 10 digits). */
function destination(channel: PriceChannel, route: string, raw: string): string {
  const mobile = route === "I" ? undefined : normalizeIndianMobile(raw);
  if (mobile) return `91${mobile}`;
  const parsed = parseE164(raw);
  if (parsed && (channel === "voice" || (route === "I" && parsed.country !== "IN"))) return parsed.digits;
  throw invalid(
    "recipient",
    route === "I"
      ? `"${raw.slice(0, 40)}" is not a valid international number with its country code (Indian numbers use routes T, P, PS).`
      : channel === "voice"
        ? `"${raw.slice(0, 40)}" is not a phone number: give an Indian mobile or a number with its country code (+…).`
        : `"${raw.slice(0, 40)}" is not a 10-digit Indian mobile number.`,
  );
}

export function registerV2PricingRoute(v2: TypedRoutes, ctx: Deps): void {
  v2.get(
    "/pricing",
    {
      config: resource,
      schema: {
        operationId: "getPricing",
        summary: "What one SMS segment or voice unit to a number costs by the account's price card",
        tags: ["account"],
        querystring: Type.Object({
          channel: Type.Optional(Type.String({ maxLength: 10 })),
          route: Type.Optional(Type.String({ maxLength: 20 })),
          recipient: Type.Optional(Type.String({ maxLength: 40 })),
        }),
        response: { 200: resourceAnswer(PriceQuote) },
      },
    },
    async (request) => {
      const { query } = request;
      const channel = (query.channel ?? "sms").trim().toLowerCase();
      if (channel !== "sms" && channel !== "voice") throw invalid("channel", "channel must be sms or voice.");
      let route = "V";
      if (channel === "sms") {
        try {
          route = trafficClassCode(parseTrafficClass(query.route));
        } catch (error) {
          throw invalid("route", error instanceof Error ? error.message : String(error));
        }
      } else if (query.route !== undefined && query.route.trim().toUpperCase() !== "V") {
        throw invalid("route", "A voice call's route is V.");
      }
      if (!query.recipient?.trim()) throw invalid("recipient", "Missing recipient: the number to price.");
      const digits = destination(channel, route, query.recipient.trim());
      const card = await ctx.prices.cardFor(request.principal!.accountId);
      const unit = card.price(channel, route, digits, ctx.clock.now().getTime());
      return {
        status: "success",
        data: {
          price: fromMilli(unit.price),
          unit: channel === "sms" ? "sms_segment" : "voice_unit",
          prefix: unit.prefix,
          route,
          // A sub-account's quote names no card of the operator's nor its parent's markup (decision 0150).
          card: shownCardName(card.upline.length > 0, card.name),
        },
      };
    },
  );
}
