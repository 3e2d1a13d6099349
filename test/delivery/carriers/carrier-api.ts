// Carriers set up through the operator API of a test gateway: `admin` calls /admin/api as an
// operator made on first use, `applied` waits until the worker runs what the API wrote, and every
// connector and route is removed after each test. `smppDefinition` is a connector to a fake SMSC.
import { afterEach, expect } from "vitest";
import { listCarriers, listRoutes, removeCarrier, removeRoute } from "../../../src/delivery/carriers/catalog.js";
import { until } from "../../channels/smpp-server/client.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { sendSms, waitForStatus } from "../../helpers/sms.js";
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

/** A send of `account` that `server` takes, then fails with `err` in its receipt: its final status. */
export async function sendFailedWith(
  t: TestGateway,
  account: TestAccount,
  server: FakeSmsc,
  recipient: string,
  err: string,
) {
  const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message: "Your OTP is 4321" });
  expect(sent.status, sent.text).toBe(200);
  await until(() => server.submits.some((s) => s.destination.endsWith(recipient) && s.messageId !== null));
  const submit = server.submits.find((s) => s.destination.endsWith(recipient))!;
  server.sendReceipt(submit.messageId!, { stat: "UNDELIV", err });
  return waitForStatus(t, account, sent.body.data.message_id);
}
