// A whole carrier configuration applied at once (the carriers file, `carriers apply`): its
// connectors, its routes, and each connector's cost card, checked before anything is written.
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Store } from "../../base/store/store.js";
import { type PriceRow, type PriceRowInput, parsePriceCsv, priceRowsOf } from "../../domain/accounts/index.js";
import type { Actor } from "../../domain/audit/index.js";
import {
  BUILT_IN_CONNECTORS,
  type Carrier,
  changeCatalog,
  checkRoute,
  findCarrier,
  upsertCarrier,
  upsertRoute,
} from "./catalog.js";
import { writeCostRows } from "./cost-cards.js";
import {
  CarrierConfigError,
  type CarrierDefinition,
  checkCallbackAuthentication,
  parseCarrierDefinition,
  parseRoutingRule,
} from "./definitions.js";

type Deps = { store: Store; clock: Clock; actor?: Actor | undefined };

export interface CarriersDocument {
  connectors?: unknown[];
  routes?: unknown[];
  /** By connector: its cost rows, or CSV text (the file reader puts a card's file's text here). */
  cost_cards?: Record<string, unknown>;
}

function checkedRoutes(document: CarriersDocument) {
  return document.routes?.map((input, index) => {
    try {
      return parseRoutingRule(input);
    } catch (error) {
      if (error instanceof CarrierConfigError) {
        throw new GatewayError("invalid_request", `routes[${index}]: ${error.message}`);
      }
      throw error;
    }
  });
}

/** Each connector's cost rows; a bad row throws naming the connector, and the row or line. */
function checkedCostCards(document: CarriersDocument): Map<string, PriceRow[]> {
  const cards = new Map<string, PriceRow[]>();
  if (!document.cost_cards) return cards;
  for (const [connector, card] of Object.entries(document.cost_cards ?? {})) {
    try {
      if (typeof card === "string") cards.set(connector, parsePriceCsv(card));
      else if (Array.isArray(card)) cards.set(connector, priceRowsOf(card as PriceRowInput[]));
      else throw new GatewayError("invalid_request", "a cost card is a list of rows or the text of a CSV file.");
    } catch (error) {
      if (error instanceof GatewayError) {
        throw new GatewayError("invalid_request", `cost_cards.${connector}: ${error.message}`);
      }
      throw error;
    }
  }
  return cards;
}

/**
 * Applies a whole configuration in one transaction: its connectors are added or replaced by name,
 * when it has `routes` they replace every route, and each cost card it has replaces that
 * connector's. Connectors it does not name are kept. Everything is checked before anything is written.
 */
export async function applyCarriersDocument(
  deps: Deps,
  document: CarriersDocument,
): Promise<{ connectors: number; routes: number | null; cost_cards: number }> {
  const definitions: CarrierDefinition[] = [];
  for (const [index, input] of (document.connectors ?? []).entries()) {
    try {
      const definition = parseCarrierDefinition(input);
      checkCallbackAuthentication(definition, (await findCarrier(deps.store.db, definition.name))?.definition);
      definitions.push(definition);
    } catch (error) {
      if (error instanceof CarrierConfigError) {
        throw new GatewayError("invalid_request", `connectors[${index}]: ${error.message}`);
      }
      throw error;
    }
  }
  const names = definitions.map((d) => d.name);
  const twice = names.find((name, index) => names.indexOf(name) !== index);
  if (twice) throw new GatewayError("invalid_request", `connectors: ${twice} is defined twice.`);
  const routes = checkedRoutes(document);
  const costCards = checkedCostCards(document);
  await changeCatalog(
    deps,
    async (trx, now) => {
      for (const definition of definitions) await upsertCarrier(trx, definition, "file" as Carrier["source"], now);
      if (routes) {
        await trx.deleteFrom("sms_routes").execute();
        for (const route of routes) {
          await checkRoute(trx, route, BUILT_IN_CONNECTORS);
          if (!(await upsertRoute(trx, route, now))) {
            throw new GatewayError(
              "invalid_request",
              `routes: ${route.route}/${route.prefix || "*"} is defined twice.`,
            );
          }
        }
      }
      if (costCards.size > 0) {
        const known = new Set((await trx.selectFrom("carriers").select("name").execute()).map((row) => row.name));
        for (const [connector, rows] of costCards) {
          if (!known.has(connector) && !BUILT_IN_CONNECTORS.has(connector)) {
            throw new GatewayError("invalid_request", `cost_cards: no connector named ${connector}.`);
          }
          await writeCostRows(deps.store, trx, connector, rows);
        }
      }
    },
    {
      action: "carriers.apply",
      target: "carriers document",
      after: { connectors: names, routes: routes?.length ?? null, cost_cards: [...costCards.keys()] },
    },
  );
  return { connectors: definitions.length, routes: routes?.length ?? null, cost_cards: costCards.size };
}
