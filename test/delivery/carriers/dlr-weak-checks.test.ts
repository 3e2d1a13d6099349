// A delivery-report check that protects nothing is refused when a connector is stored (security
// audit, low): a secret in a header every client sends or sets (Host, Content-Type, …) and an
// allowed range of all or most of the Internet (wider than an IPv4 /8 or an IPv6 /16, IPv4 mapped
// into IPv6 judged as IPv4). Through the operator API on both engines; a connector stored before
// with such a check may be saved again as it was (its carriers file applied at a start).
import { expect, it } from "vitest";
import { CARRIERS_CHANGED } from "../../../src/delivery/carriers/catalog.js";
import { weakCallbackCheck } from "../../../src/delivery/carriers/http-sms/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";

const HOST_SECRET = { type: "header", header: "Host", value: "127.0.0.1:21500" };

it("judges IPv4, IPv6 and IPv4-mapped ranges by how much they take in", () => {
  const check = (allowed_ips: string[]) => weakCallbackCheck({ dlr: { allowed_ips } as never });
  for (const wide of [
    "0.0.0.0/0",
    "128.0.0.0/1",
    "10.0.0.0/7",
    "::/0",
    "2000::/3",
    "2001::/15",
    "::/64",
    "::ffff:0:0/96",
    "::ffff:10.0.0.0/103",
  ]) {
    expect(check([wide]), wide).toMatch(/^dlr\.allowed_ips: ".+" takes in all or most of the Internet/);
  }
  for (const narrow of ["10.0.0.0/8", "203.0.113.7", "2001:db8::/32", "2001::/16", "::1", "::ffff:10.0.0.0/104"]) {
    expect(check([narrow]), narrow).toBeUndefined();
  }
  expect(
    weakCallbackCheck({
      dlr: { secret: { type: "hmac_sha256", header: "content-type", secret: "k".repeat(20) } } as never,
    }),
  ).toMatch(/^dlr\.secret\.header: content-type/);
});

describeEachEngine("a delivery-report check that protects nothing", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });

  it("is refused with 400 naming the field; a real secret header and narrow ranges are taken", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = (method: string, p: string, json?: unknown) =>
      call(t, method, `/admin/api${p}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const base = aggregatorDefinition("http://127.0.0.1:9", "weak");
    const { allowed_ips: _allowed, ...dlr } = base.dlr;
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ secret: HOST_SECRET }, /dlr\.secret\.header: Host is a header every client sends or sets itself/],
      [{ secret: { ...HOST_SECRET, header: "content-type" } }, /dlr\.secret\.header: content-type/],
      [{ secret: { ...HOST_SECRET, header: "User-Agent" } }, /dlr\.secret\.header: User-Agent/],
      [{ allowed_ips: ["0.0.0.0/0"] }, /dlr\.allowed_ips: "0\.0\.0\.0\/0" takes in all or most of the Internet/],
      [{ allowed_ips: ["203.0.113.7", "::/0"] }, /dlr\.allowed_ips: "::\/0"/],
      [{ secret: { ...HOST_SECRET, header: "X-Dlr-Secret" }, allowed_ips: ["0.0.0.0/0"] }, /dlr\.allowed_ips/],
    ];
    for (const [change, problem] of cases) {
      const definition = { ...base, dlr: { ...dlr, ...change } };
      const posted = await admin("POST", "/carriers", definition);
      expect(posted.status, JSON.stringify(change)).toBe(400);
      expect(posted.body.message, JSON.stringify(change)).toMatch(problem);
      expect((await admin("PUT", "/carriers/weak", definition)).status).toBe(400);
    }
    expect((await admin("GET", "/carriers/weak")).status).toBe(404);
    const strong = {
      ...base,
      dlr: { ...dlr, secret: { ...HOST_SECRET, header: "X-Dlr-Secret" }, allowed_ips: ["10.0.0.0/8", "2001:db8::/32"] },
    };
    const taken = await admin("POST", "/carriers", strong);
    expect(taken.status, taken.text).toBe(201);
    await admin("DELETE", "/carriers/weak");
  });

  it("lets a connector stored before with such a check be saved again as it was, not weakened further", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = (method: string, p: string, json?: unknown) =>
      call(t, method, `/admin/api${p}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const base = aggregatorDefinition("http://127.0.0.1:9", "before");
    const before = { ...base, dlr: { ...base.dlr, allowed_ips: ["0.0.0.0/0"] } };
    const now = Date.now();
    await t.db.store.db
      .insertInto("carriers")
      .values({
        name: "before",
        type: "http-sms",
        config: JSON.stringify(before),
        source: "api",
        enabled: 1,
        created_at: now,
        updated_at: now,
      })
      .execute();
    await t.db.store.signals.notify(CARRIERS_CHANGED);
    expect((await admin("PUT", "/carriers/before", { ...before, rate_per_second: 50 })).status).toBe(200);
    const copied = await admin("PUT", "/carriers/before-2", { ...before, name: "before-2" });
    expect(copied.status).toBe(400);
    expect(copied.body.message).toMatch(/dlr\.allowed_ips: "0\.0\.0\.0\/0"/);
    const other = await admin("PUT", "/carriers/before", { ...before, dlr: { ...before.dlr, allowed_ips: ["::/0"] } });
    expect(other.status).toBe(400);
    await admin("DELETE", "/carriers/before");
  });
});
