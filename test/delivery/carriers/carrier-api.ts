// Carriers set up through the operator API of a test gateway: `admin` calls /admin/api as an
// operator made on first use, `applied` waits until the worker runs what the API wrote, and every
// connector and route is removed after each test. `smppDefinition` is a connector to a fake SMSC.
import { afterEach } from "vitest";
import { listCarriers, listRoutes, removeCarrier, removeRoute } from "../../../src/delivery/carriers/catalog.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import type { FakeSmsc } from "./fake-smsc.js";

export function useCarrierApi(gateway: () => TestGateway) {
  let operator: TestAccount | undefined;
  const operatorAccount = async () => {
    operator ??= await buildAccount(gateway(), { role: "operator" });
    return operator;
  };
  const admin = async (method: string, path: string, json?: unknown) => {
    const key = (await operatorAccount()).apiKey;
    return call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${key}` },
      ...(json !== undefined ? { json } : {}),
    });
  };
  const applied = () => gateway().gateway.workers!.carriers.reload();
  afterEach(async () => {
    const t = gateway();
    const deps = { store: t.db.store, clock: t.clock };
    for (const route of await listRoutes(t.db.store.db)) await removeRoute(deps, route.route, route.prefix);
    for (const carrier of await listCarriers(t.db.store.db)) await removeCarrier(deps, carrier.name);
    await applied();
  });
  return { admin, applied, operatorAccount };
}

export function smppDefinition(name: string, server: FakeSmsc, extra: Record<string, unknown> = {}) {
  return {
    name,
    type: "smpp",
    host: "127.0.0.1",
    port: server.port,
    system_id: server.systemId,
    password: server.password,
    reconnect_initial_ms: 50,
    reconnect_max_ms: 300,
    ...extra,
  };
}
