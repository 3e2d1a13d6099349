// CLI commands for carriers: SMS connectors (smpp, http-sms), their routes and health. They call
// carriers/catalog.ts and config-file.ts, as the operator API and SWITCHBOARD_CARRIERS_FILE do; a
// running worker picks every change up within two seconds.

import { readFile } from "node:fs/promises";
import { type Command, InvalidArgumentError } from "commander";
import { applyCarriersDocument } from "../../delivery/carriers/carriers-document.js";
import {
  describeCarrier,
  describeRoute,
  listCarriers,
  listRoutes,
  readConnectorHealth,
  removeCarrier,
  removeRoute,
  requireCarrier,
  saveCarrier,
  saveRoute,
  setCarrierEnabled,
} from "../../delivery/carriers/catalog.js";
import { readCarriersFile, readDefinitionFile } from "../../delivery/carriers/config-file.js";
import { costCardRows, replaceCostCard, requireCostedConnector } from "../../delivery/carriers/cost-cards.js";
import { describeErrorCodes, replaceErrorCodes } from "../../delivery/carriers/error-code-routes.js";
import { describePriceRow, parsePriceCsv } from "../../domain/accounts/index.js";
import { addCarrierReasonCommands } from "./cli-carrier-reasons.js";
import { groupCommand } from "./cli-group-names.js";
import { cliDeps, print, refuseEmptyImport, table, withStore } from "./cli-support.js";

/** `a:70,b:30,c:0` (weight 1 when left out) as a route's connector list. */
export function connectorList(value: string): { name: string; weight: number }[] {
  return value.split(",").map((item) => {
    const match = /^([a-z0-9][a-z0-9_-]*)(?::(\d+))?$/.exec(item.trim());
    if (!match) throw new InvalidArgumentError(`"${item}" is not name or name:weight`);
    return { name: match[1]!, weight: match[2] === undefined ? 1 : Number(match[2]) };
  });
}

/** `delivery:0.7,latency:0.15,cost:0.15` as an adaptive route's scoring. */
export function scoringWeights(value: string): Record<string, number> {
  return Object.fromEntries(
    value.split(",").map((item) => {
      const match = /^(delivery|latency|cost):(\d+(?:\.\d+)?)$/.exec(item.trim());
      if (!match) throw new InvalidArgumentError(`"${item}" is not delivery|latency|cost:weight`);
      return [match[1]!, Number(match[2])];
    }),
  );
}

/** A share of a route's traffic as a number (its range is checked with the route). */
function share(value: string): number {
  if (!/^\d+(?:\.\d+)?$/.test(value.trim())) throw new InvalidArgumentError(`"${value}" is not a number from 0 to 0.5`);
  return Number(value);
}

export function addCarrierCommands(program: Command): void {
  const carriers = groupCommand(program, "carriers");
  carriers
    .command("list")
    .description("the SMS connectors: name, type, enabled, where they are defined")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = (await listCarriers(store.db)).map(describeCarrier);
        print(rows, opts.json, () =>
          table(
            ["NAME", "TYPE", "STATE", "SOURCE"],
            rows.map((c) => [c.name, c.type, c.enabled ? "enabled" : "disabled", c.source]),
            "no connectors",
          ),
        );
      }),
    );
  carriers
    .command("show")
    .description("one connector's definition, secrets masked")
    .argument("<name>")
    .option("--json", "print JSON")
    .action((name: string, opts) =>
      withStore(async (store) => {
        const carrier = describeCarrier(await requireCarrier(store.db, name));
        print(carrier, opts.json, () => JSON.stringify(carrier, null, 2));
      }),
    );
  carriers
    .command("add")
    .description("add a connector, or replace the one of the same name")
    .requiredOption("--file <file>", "its definition, JSON or YAML (${NAME} takes an environment variable)")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const { created, carrier } = await saveCarrier(cliDeps(store), await readDefinitionFile(opts.file));
        const shown = describeCarrier(carrier);
        print(shown, opts.json, () => `${created ? "added" : "replaced"} ${carrier.type} connector ${carrier.name}`);
      }),
    );
  for (const [command, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const) {
    carriers
      .command(command)
      .description(`${command} a connector`)
      .argument("<name>")
      .option("--json", "print JSON")
      .action((name: string, opts) =>
        withStore(async (store) => {
          const carrier = describeCarrier(await setCarrierEnabled(cliDeps(store), name, enabled));
          print(carrier, opts.json, () => `${name} ${enabled ? "enabled" : "disabled"}`);
        }),
      );
  }
  carriers
    .command("remove")
    .description("remove a connector (refused while a route names it)")
    .argument("<name>")
    .option("--json", "print JSON")
    .action((name: string, opts) =>
      withStore(async (store) => {
        const carrier = describeCarrier(await removeCarrier(cliDeps(store), name));
        print(carrier, opts.json, () => `removed ${name}`);
      }),
    );
  carriers
    .command("apply")
    .description("apply a carriers file (as SWITCHBOARD_CARRIERS_FILE does at start)")
    .requiredOption("--file <file>", "JSON or YAML with connectors and routes")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const applied = await applyCarriersDocument(cliDeps(store), await readCarriersFile(opts.file));
        print(applied, opts.json, () => {
          const parts = [
            `${applied.connectors} connector(s)`,
            ...(applied.routes === null ? [] : [`${applied.routes} route(s)`]),
            ...(applied.cost_cards > 0 ? [`${applied.cost_cards} cost card(s)`] : []),
          ];
          return `applied ${parts.slice(0, -1).join(", ")}${parts.length > 1 ? " and " : ""}${parts.at(-1)}`;
        });
      }),
    );
  carriers
    .command("set-cost")
    .description("replace a connector's cost card with a CSV file (header channel,route,prefix,price[,effective_from])")
    .requiredOption("--connector <name>", "the connector")
    .requiredOption("--file <path>", "the CSV file, prices in credits per SMS segment or voice unit")
    .option("--allow-empty", "accept a file with no rows, emptying the cost card")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = parsePriceCsv(await readFile(opts.file, "utf8"));
        refuseEmptyImport(rows, opts.allowEmpty, `the cost card of ${opts.connector}`);
        const written = await replaceCostCard(cliDeps(store), opts.connector, rows);
        print({ connector: opts.connector, rows: written }, opts.json, () => {
          return `imported ${written} cost rows for ${opts.connector}`;
        });
      }),
    );
  carriers
    .command("set-error-codes")
    .description(
      "replace a connector's own error_codes table (carrier code → reason, description) with a JSON or YAML file",
    )
    .requiredOption("--connector <name>", "the connector")
    .requiredOption(
      "--file <path>",
      'the table, e.g. { "633": { "reason": "dlt_template_mismatch", "description": "…" } }',
    )
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const shown = await replaceErrorCodes(cliDeps(store), opts.connector, await readDefinitionFile(opts.file));
        const own = shown.codes.filter((c) => c.source === "connector").length;
        print(shown, opts.json, () => `${opts.connector} maps ${own} code(s) of its own over the default table`);
      }),
    );
  carriers
    .command("show-error-codes")
    .description("the carrier codes a connector maps to reasons: its own over the default table")
    .requiredOption("--connector <name>", "the connector")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const shown = describeErrorCodes(await requireCarrier(store.db, opts.connector));
        print(shown, opts.json, () =>
          table(
            ["CODE", "REASON", "SOURCE", "DESCRIPTION"],
            shown.codes.map((c) => [c.code, c.reason, c.source, c.description]),
            "no codes mapped",
          ),
        );
      }),
    );
  addCarrierReasonCommands(carriers);
  carriers
    .command("show-cost")
    .description("a connector's cost card (credits per SMS segment or voice unit)")
    .requiredOption("--connector <name>", "the connector")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        await requireCostedConnector(store.db, opts.connector);
        const rows = (await costCardRows(store.db, opts.connector)).map(describePriceRow);
        print({ connector: opts.connector, rows }, opts.json, () =>
          table(
            ["CHANNEL", "ROUTE", "PREFIX", "COST", "EFFECTIVE FROM"],
            rows.map((r) => [r.channel, r.route, r.prefix, String(r.price), r.effective_from ?? "always"]),
            "no cost card: its messages' cost is unknown",
          ),
        );
      }),
    );
  carriers
    .command("health")
    .description("every connector as the running workers last saw it")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const views = await readConnectorHealth(store.db, Date.now());
        print(views, opts.json, () =>
          table(
            ["CONNECTOR", "STATE"],
            views.map((v) => [v.connector, v.state]),
            "no worker is running connectors",
          ),
        );
      }),
    );

  const routes = groupCommand(program, "routes");
  routes
    .command("list")
    .description("the SMS routes: route code, prefix, connectors with weights")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const rows = (await listRoutes(store.db)).map(describeRoute);
        print(rows, opts.json, () =>
          table(
            ["ROUTE", "PREFIX", "STRATEGY", "CONNECTORS"],
            rows.map((r) => [
              r.route,
              r.prefix || "(any)",
              r.strategy,
              r.connectors.map((c) => `${c.name}:${c.weight}`).join(","),
            ]),
            "no routes: SMS go to the simulator",
          ),
        );
      }),
    );
  routes
    .command("set")
    .description(
      "add the route for a route code and prefix, or replace its connectors (its strategy and scoring kept unless given)",
    )
    .requiredOption("--route <code>", "T, P, PS, I, V or * (any SMS route)")
    .option("--prefix <digits>", "leading digits with the country code (9198); every number when left out", "")
    .requiredOption("--connectors <list>", "name[:weight],… in failover order; weight 0 is a standby", connectorList)
    .option("--strategy <strategy>", "weighted (a new route's), least_cost or adaptive; the route's own when left out")
    .option("--scoring <weights>", "adaptive: delivery:0.7,latency:0.15,cost:0.15", scoringWeights)
    .option("--explore-share <share>", "adaptive: the traffic spread over every connector, 0 to 0.5 (0.05)", share)
    .option("--floor-share <share>", "adaptive: the least share of each connector, 0 to 0.5 (0.02)", share)
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        // Replacing the connectors keeps what the route was given besides them: an adaptive route
        // stays adaptive with its scoring unless --strategy says otherwise.
        const before = opts.strategy
          ? undefined
          : (await listRoutes(store.db)).find((r) => r.route === opts.route && r.prefix === opts.prefix);
        const strategy = opts.strategy ?? before?.strategy;
        const kept = strategy === "adaptive" && before?.scoring ? before.scoring : undefined;
        const { created, route } = await saveRoute(cliDeps(store), {
          route: opts.route,
          prefix: opts.prefix,
          connectors: opts.connectors,
          ...(strategy ? { strategy } : {}),
          ...(kept ? { scoring: { delivery: kept.delivery, latency: kept.latency, cost: kept.cost } } : {}),
          ...(kept ? { explore_share: kept.explore_share, floor_share: kept.floor_share } : {}),
          ...(opts.scoring ? { scoring: opts.scoring } : {}),
          ...(opts.exploreShare === undefined ? {} : { explore_share: opts.exploreShare }),
          ...(opts.floorShare === undefined ? {} : { floor_share: opts.floorShare }),
        });
        print(
          describeRoute(route),
          opts.json,
          () => `${created ? "added" : "replaced"} route ${route.route}/${route.prefix || "(any)"}`,
        );
      }),
    );
  routes
    .command("remove")
    .description("remove the route of a route code and prefix")
    .requiredOption("--route <code>", "T, P, PS, I, V or *")
    .option("--prefix <digits>", "its prefix; the route for every number when left out", "")
    .option("--json", "print JSON")
    .action((opts) =>
      withStore(async (store) => {
        const route = describeRoute(await removeRoute(cliDeps(store), opts.route, opts.prefix));
        print(route, opts.json, () => `removed route ${route.route}/${route.prefix || "(any)"}`);
      }),
    );
}
