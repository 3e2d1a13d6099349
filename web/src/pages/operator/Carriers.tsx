// Carriers and routes: every connector with its live health (binds, results, throughput, last
// error), refreshed every 2 s, enabled and disabled here, each linked to its error codes page;
// the routes that pick them, each with its strategy: a weighted route's weights, a least_cost
// route's order, an adaptive route's shares as scored now (GET /admin/api/routes/scores; why on
// the Margin page), its weights being no share.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { data } from "../../api.js";
import type { Carrier, CarrierRoute, RouteScore } from "../../operator-types.js";
import { Link } from "../../router.js";
import { canDo, useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Pager, PageTitle, useClientPages } from "../../ui.js";
import { HealthCells, HealthHeads, idleWhy, useSamples } from "./health.js";

const STRATEGIES: Record<CarrierRoute["strategy"], string> = {
  weighted: "weighted",
  least_cost: "least_cost (cheapest first)",
  adaptive: "adaptive (by measured delivery)",
};

/**
 * What a route's connectors get: its weights, its standbys, or for an adaptive route the shares
 * scored now. A connector disabled or down takes nothing (the router leaves it out), so it says
 * so, and an adaptive route's shares are those the API gives: of the traffic the others carry.
 */
function connectorsOf(
  route: CarrierRoute,
  scores: readonly RouteScore[] | undefined,
  carriers: readonly Carrier[] | undefined,
): string {
  const key = `${route.route}/${route.prefix || "*"}`;
  const why = (name: string) => idleWhy(carriers?.find((carrier) => carrier.name === name));
  const scoreOf = (name: string) => scores?.find((s) => s.route === key && s.connector === name);
  return route.connectors
    .map((c) => {
      if (c.weight === 0) return `${c.name} (standby)`;
      const score = route.strategy === "adaptive" ? scoreOf(c.name) : undefined;
      const idle = why(c.name) ?? score?.idle;
      if (idle) return `${c.name} (${idle}: no traffic)`;
      if (route.strategy === "weighted") return `${c.name} (weight ${c.weight})`;
      if (route.strategy === "least_cost") return c.name;
      return score ? `${c.name} (share ${(score.share * 100).toFixed(1)} %)` : `${c.name} (not scored yet)`;
    })
    .join(", ");
}

function Routes({ carriers }: { carriers: readonly Carrier[] | undefined }) {
  const routes = useQuery({
    queryKey: ["operator", "routes"],
    queryFn: () => data<CarrierRoute[]>("/admin/api/routes"),
  });
  const adaptive = routes.data?.some((route) => route.strategy === "adaptive") ?? false;
  const scores = useQuery({
    queryKey: ["operator", "route-scores"],
    queryFn: () => data<RouteScore[]>("/admin/api/routes/scores"),
    enabled: adaptive,
    // As the workers measure them; a connector enabled or disabled here asks again at once.
    refetchInterval: 5_000,
  });
  const pages = useClientPages(routes.data, 25);
  return (
    <section aria-labelledby="routes-title">
      <h2 id="routes-title">Routes</h2>
      <ErrorNotice error={routes.error} />
      <ErrorNotice error={scores.error} title="Adaptive shares not read" />
      {routes.isPending ? <Busy /> : null}
      {routes.data?.length === 0 ? <p>No route: every SMS goes to the simulator.</p> : null}
      {routes.data && routes.data.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="routes">
            <caption>Routes by route code, then number prefix</caption>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Prefix</th>
                <th scope="col">Strategy</th>
                <th scope="col">Connectors</th>
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((route) => (
                <tr key={route.id}>
                  <td>{route.route}</td>
                  <td>{route.prefix || "every number"}</td>
                  <td>{STRATEGIES[route.strategy]}</td>
                  <td>{connectorsOf(route, scores.data, carriers)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
      {adaptive ? (
        <p className="hint">
          An adaptive route shares its traffic by each connector's measured delivery, latency and cost, not by weight;
          the scores and why: <Link to="/operator/margin">Margin, adaptive routes</Link>.
        </p>
      ) : null}
    </section>
  );
}

export default function Carriers() {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const samples = useSamples();
  const carriers = useQuery({
    queryKey: ["operator", "carriers"],
    queryFn: () => data<Carrier[]>("/admin/api/carriers"),
    refetchInterval: 2_000,
  });
  const toggle = useMutation({
    mutationFn: (carrier: Carrier) =>
      data<Carrier>(`/admin/api/carriers/${encodeURIComponent(carrier.name)}`, {
        method: "PATCH",
        json: { enabled: !carrier.enabled },
      }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ["operator", "carriers"] });
      // An adaptive route's shares change with it: the others take its traffic, or give some back.
      void queryClient.invalidateQueries({ queryKey: ["operator", "route-scores"] });
    },
  });
  const pages = useClientPages(carriers.data, 25);
  return (
    <>
      <PageTitle>Carriers</PageTitle>
      <p>Health as the workers last reported it (every 5 s), read every 2 s.</p>
      <ErrorNotice error={carriers.error} />
      <ErrorNotice error={toggle.error} title="Not changed" />
      {carriers.isPending ? <Busy /> : null}
      {carriers.data?.length === 0 ? (
        <p data-testid="carriers-empty">
          Only the built-in simulator is configured: SMS go to it, and no real carrier carries them.
        </p>
      ) : null}
      {carriers.data && carriers.data.length > 0 ? (
        <div className="table-wrap">
          <table data-testid="carriers">
            <caption>Connectors</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Traffic</th>
                <HealthHeads />
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((carrier) => (
                <tr key={carrier.name} data-testid={`carrier-${carrier.name}`}>
                  <th scope="row">
                    {carrier.name}{" "}
                    <Link to={`/operator/carriers/${encodeURIComponent(carrier.name)}/error-codes`}>
                      Error codes of {carrier.name}
                    </Link>
                  </th>
                  <td>{carrier.type}</td>
                  <td>
                    {carrier.enabled ? "enabled" : "disabled"}{" "}
                    {canDo(session, "staff_admin") ? (
                      <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(carrier)}>
                        {carrier.enabled ? `Disable ${carrier.name}` : `Enable ${carrier.name}`}
                      </button>
                    ) : null}
                  </td>
                  <HealthCells
                    connector={carrier.name}
                    state={carrier.health.state}
                    workers={carrier.health.workers}
                    samples={samples}
                    timeZone={session.time_zone}
                  />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
      <Routes carriers={carriers.data} />
    </>
  );
}
