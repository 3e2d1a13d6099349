// Who may call an http-sms connector's delivery-report URL (issue 36), through the real server on
// both engines: a new connector says it (dlr.secret, dlr.allowed_ips) or opts out
// (dlr.unauthenticated: true), over the operator API and in the carriers file alike; allowed
// addresses are checked against the caller's; a connector stored before the rule keeps working,
// warned about at every start and counted in /metrics.
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { CARRIERS_CHANGED } from "../../../src/delivery/carriers/catalog.js";
import { applyCarriersFile } from "../../../src/delivery/carriers/config-file.js";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type TestAccount,
  type TestGateway,
  testConfig,
  useTestGateway,
} from "../../helpers/gateway.js";
import { captureLogs, WARN } from "../../helpers/log-capture.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";

/** A definition whose callbacks say nothing of who may call them, as every one did before the rule. */
function openDefinition(baseUrl: string, name: string) {
  const definition = aggregatorDefinition(baseUrl, name);
  const { allowed_ips: _allowed, ...dlr } = definition.dlr;
  return { ...definition, type: "http-sms" as const, dlr };
}

/** Stores a connector as the catalog did before callbacks needed authentication, and says so. */
async function storeAsBefore(t: TestGateway, definition: { name: string; type: "http-sms" }) {
  const now = Date.now();
  await t.db.store.db
    .insertInto("carriers")
    .values({
      name: definition.name,
      type: definition.type,
      config: JSON.stringify(definition),
      source: "api",
      enabled: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await t.db.store.signals.notify(CARRIERS_CHANGED);
}

describeEachEngine("who may call an http-sms connector's delivery-report URL", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let aggregator: FakeAggregator;
  let operator: TestAccount;
  beforeAll(async () => {
    aggregator = await new FakeAggregator().start();
    operator = await buildAccount(gateway(), { role: "operator" });
  });
  afterAll(async () => aggregator?.stop());

  const admin = (method: string, p: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${p}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  const report = (name: string, id: string) =>
    aggregator.callback(`${gateway().url}/carriers/http-sms/${name}/dlr`, {
      method: "GET",
      query: { id, status: "DELIVRD" },
    });
  const gauge = async (reason: string) => {
    const text = (await call(gateway(), "GET", "/metrics")).text;
    const line = text
      .split("\n")
      .find((l) => l.startsWith(`switchboard_carrier_callbacks_unauthenticated{reason="${reason}"}`));
    return Number(line?.split(" ")[1]);
  };

  it("refuses a new connector whose callbacks anyone could call, unless the operator opts out", async () => {
    const open = openDefinition(aggregator.url, "open");
    const refused = await admin("POST", "/carriers", open);
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toMatch(/dlr needs secret or allowed_ips.*dlr\.unauthenticated: true/);
    expect((await admin("PUT", "/carriers/open", open)).status).toBe(400);
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ allowed_ips: ["not-an-address"] }, /allowed_ips: "not-an-address" is not an IP address or CIDR range/],
      [{ allowed_ips: ["10.0.0.0/33"] }, /allowed_ips/],
      [{ allowed_ips: [] }, /allowed_ips/],
      [{ unauthenticated: true, allowed_ips: ["10.0.0.0/8"] }, /unauthenticated: true contradicts/],
      [{ unauthenticated: "yes" }, /unauthenticated/],
    ];
    for (const [dlr, problem] of cases) {
      const answer = await admin("PUT", "/carriers/open", { ...open, dlr: { ...open.dlr, ...dlr } });
      expect(answer.status, JSON.stringify(dlr)).toBe(400);
      expect(answer.body.message, JSON.stringify(dlr)).toMatch(problem);
    }
    expect((await admin("GET", "/carriers/open")).status).toBe(404);

    const optedOut = await admin("PUT", "/carriers/open", { ...open, dlr: { ...open.dlr, unauthenticated: true } });
    expect(optedOut.status, optedOut.text).toBe(201);
    expect((await report("open", "o-1")).status).toBe(200);
    // The gauge follows the catalog's change signal, which PostgreSQL delivers a moment later.
    await expect.poll(() => gauge("opted_out")).toBe(1);
    // Saved again without the flag: refused, it is no connector of before the rule.
    expect((await admin("PUT", "/carriers/open", open)).status).toBe(400);
    expect((await admin("DELETE", "/carriers/open")).status).toBe(200);
    await expect.poll(() => gauge("opted_out")).toBe(0);
  });

  it("takes reports only from dlr.allowed_ips: 403 from any other address, IPv4 and IPv6 ranges alike", async () => {
    const definition = aggregatorDefinition(aggregator.url, "ranges");
    const put = (allowed: string[]) =>
      admin("PUT", "/carriers/ranges", { ...definition, dlr: { ...definition.dlr, allowed_ips: allowed } });
    expect((await put(["10.0.0.0/8", "2001:db8::/32"])).status).toBe(201);
    const refused = await report("ranges", "r-1");
    expect(refused.status).toBe(403);
    expect(refused.text).toBe(
      "Delivery reports of ranges are taken from its dlr.allowed_ips only, and 127.0.0.1 is not one of them.",
    );
    expect((await put(["10.0.0.0/8", "127.0.0.1"])).status).toBe(200);
    expect((await report("ranges", "r-1")).status).toBe(200);
    // A range, not only one address.
    expect((await put(["127.0.0.0/30"])).status).toBe(200);
    expect((await report("ranges", "r-2")).status).toBe(200);
    // Both ways at once: the address and the secret.
    const both = {
      ...definition,
      dlr: { ...definition.dlr, secret: { type: "header", header: "X-Dlr-Token", value: "s3cret-token" } },
    };
    expect((await admin("PUT", "/carriers/ranges", both)).status).toBe(200);
    expect((await report("ranges", "r-3")).status).toBe(401);
    const signed = await aggregator.callback(`${gateway().url}/carriers/http-sms/ranges/dlr`, {
      method: "GET",
      query: { id: "r-3", status: "DELIVRD" },
      headers: { "X-Dlr-Token": "s3cret-token" },
    });
    expect(signed.status).toBe(200);
    await admin("DELETE", "/carriers/ranges");
  });

  it("keeps a connector stored before the rule working, warns about it at every start and counts it in /metrics", async () => {
    const t = gateway();
    const before = openDefinition(aggregator.url, "before");
    await storeAsBefore(t, before);
    const logs = captureLogs();
    let restarted: Gateway | undefined;
    try {
      restarted = await startGateway({
        config: testConfig(t.db),
        roles: ["api"],
        clock: systemClock,
        store: t.db.store,
        logger: logs.logger,
        openApiAtStart: false,
      });
      const warned = logs.matching(/delivery-report callbacks are taken from anyone who reaches the URL/);
      expect(warned.map((line) => [line.level, line.connector])).toEqual([[WARN, "before"]]);
      const metrics = await fetch(`${restarted.url}/metrics`).then((r) => r.text());
      expect(metrics).toContain('switchboard_carrier_callbacks_unauthenticated{reason="legacy"} 1');
    } finally {
      await restarted?.stop();
    }
    expect((await report("before", "b-1")).status).toBe(200);
    // Saved again as it was (one field changed): still taken. Copied to a new name: refused.
    expect((await admin("PUT", "/carriers/before", { ...before, rate_per_second: 50 })).status).toBe(200);
    expect((await admin("PUT", "/carriers/before-2", { ...before, name: "before-2" })).status).toBe(400);
    await expect.poll(() => gauge("legacy")).toBe(1);
    await admin("DELETE", "/carriers/before");
  });

  it("holds the carriers file to the same rule: a new connector in it needs authentication, one stored before keeps working", async () => {
    const t = gateway();
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "sb-dlr-auth-"));
    try {
      const file = path.join(dir, "carriers.json");
      await fs.writeFile(file, JSON.stringify({ connectors: [openDefinition(aggregator.url, "in-file")] }));
      const deps = { store: t.db.store, clock: systemClock };
      await expect(applyCarriersFile(deps, file)).rejects.toThrow(
        /carriers\.json: connectors\[0\]: Invalid http-sms configuration "in-file": dlr needs secret or allowed_ips/,
      );
      await storeAsBefore(t, openDefinition(aggregator.url, "in-file"));
      expect(await applyCarriersFile(deps, file)).toEqual({ connectors: 1, routes: null, cost_cards: 0 });
      expect((await report("in-file", "f-1")).status).toBe(200);
      await admin("DELETE", "/carriers/in-file");
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
