// Cost cards: what each connector's carrier charges, by (channel, route code, destination prefix),
// in the price cards' shape and unit (domain/accounts/price-rows.ts parses and checks the rows,
// price-lookup.ts's CompiledCard looks them up), so that revenue, cost and margin share one unit.
// A card is a change of the carrier configuration: written whole in one transaction, it bumps the
// carriers version, and every worker's router reloads it with the routes (registry.ts).
import type { Clock } from "../../base/core/clock.js";
import { GatewayError } from "../../base/core/errors.js";
import type { Db, Store } from "../../base/store/store.js";
import { type PriceRow, priceCardChange, storedPriceRow } from "../../domain/accounts/index.js";
import type { Actor } from "../../domain/audit/index.js";
import { BUILT_IN_CONNECTORS, changeCatalog } from "./catalog.js";

type Deps = { store: Store; clock: Clock; actor?: Actor | undefined };

/** Throws not_found unless `connector` is a configured carrier or a built-in connector. */
export async function requireCostedConnector(db: Db, connector: string): Promise<void> {
  if (BUILT_IN_CONNECTORS.has(connector)) return;
  const found = await db.selectFrom("carriers").select("name").where("name", "=", connector).executeTakeFirst();
  if (!found) throw new GatewayError("not_found", `No connector named ${connector}: add it before its cost card.`);
}

/** Writes the rows of `connector`'s card in `trx` (replacing what it had). */
export async function writeCostRows(store: Store, trx: Db, connector: string, rows: readonly PriceRow[]) {
  await trx.deleteFrom("cost_card_rows").where("connector", "=", connector).execute();
  if (rows.length > 0)
    await store.insertMany(
      trx,
      "cost_card_rows",
      rows.map((row) => ({ connector, ...row })),
    );
}

/** Replaces the connector's cost card; the routers reload it as any change of the carriers. */
export async function replaceCostCard(deps: Deps, connector: string, rows: readonly PriceRow[]): Promise<number> {
  await requireCostedConnector(deps.store.db, connector);
  const before = await costCardRows(deps.store.db, connector);
  const change = { action: "cost_card.save", target: `cost card of ${connector}`, ...priceCardChange(before, rows) };
  await changeCatalog(deps, (trx) => writeCostRows(deps.store, trx, connector, rows), change);
  return rows.length;
}

/** The connector's cost rows as stored (none: no card). */
export async function costCardRows(db: Db, connector: string): Promise<PriceRow[]> {
  const rows = await db
    .selectFrom("cost_card_rows")
    .select(["channel", "route", "prefix", "price", "effective_from"])
    .where("connector", "=", connector)
    .orderBy("id")
    .execute();
  return rows.map(storedPriceRow);
}

/** How many cost rows each connector has. */
export async function costCardSizes(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom("cost_card_rows")
    .select(["connector", db.fn.countAll<number>().as("n")])
    .groupBy("connector")
    .execute();
  return new Map(rows.map((row) => [row.connector, Number(row.n)]));
}
