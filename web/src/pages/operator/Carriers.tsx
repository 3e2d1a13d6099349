// Carriers and routes: every connector with its live health (binds, results, throughput, last
// error), refreshed every 2 s, enabled and disabled here, each linked to its error codes page;
// the routes that pick them.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { data } from "../../api.js";
import type { Carrier, CarrierRoute } from "../../operator-types.js";
import { Link } from "../../router.js";
import { useSignedIn } from "../../session.js";
import { Busy, ErrorNotice, Pager, PageTitle, useClientPages } from "../../ui.js";
import { HealthCells, HealthHeads, useSamples } from "./health.js";

function Routes() {
  const routes = useQuery({
    queryKey: ["operator", "routes"],
    queryFn: () => data<CarrierRoute[]>("/admin/api/routes"),
  });
  const pages = useClientPages(routes.data, 25);
  return (
    <section aria-labelledby="routes-title">
      <h2 id="routes-title">Routes</h2>
      <ErrorNotice error={routes.error} />
      {routes.isPending ? <Busy /> : null}
      {routes.data?.length === 0 ? <p>No route: every SMS goes to the simulator.</p> : null}
      {routes.data && routes.data.length > 0 ? (
        <div className="table-wrap">
          <table>
            <caption>Routes by route code, then number prefix</caption>
            <thead>
              <tr>
                <th scope="col">Route</th>
                <th scope="col">Prefix</th>
                <th scope="col">Connectors (weight)</th>
              </tr>
            </thead>
            <tbody>
              {pages.rows.map((route) => (
                <tr key={route.id}>
                  <td>{route.route}</td>
                  <td>{route.prefix || "every number"}</td>
                  <td>{route.connectors.map((c) => `${c.name} (${c.weight})`).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <Pager meta={pages.meta} onPage={pages.setPage} />
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
    onSuccess: () => void queryClient.invalidateQueries({ queryKey: ["operator", "carriers"] }),
  });
  const pages = useClientPages(carriers.data, 25);
  return (
    <>
      <PageTitle>Carriers</PageTitle>
      <p>Health as the workers last reported it (every 5 s), read every 2 s.</p>
      <ErrorNotice error={carriers.error} />
      <ErrorNotice error={toggle.error} title="Not changed" />
      {carriers.isPending ? <Busy /> : null}
      {carriers.data?.length === 0 ? <p>No carrier is configured: SMS go to the simulator.</p> : null}
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
                    <button type="button" disabled={toggle.isPending} onClick={() => toggle.mutate(carrier)}>
                      {carrier.enabled ? `Disable ${carrier.name}` : `Enable ${carrier.name}`}
                    </button>
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
      <Routes />
    </>
  );
}
