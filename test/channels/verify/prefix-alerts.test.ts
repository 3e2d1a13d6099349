// The pumping guard's operator alert on both engines: raised with a prefix's block, cleared once by
// the worker's pass when the block's hour ends (the manual clock moved past it), raised again by a
// new block, and cleared at once when the operator allows the prefix. Most of its time is the wait
// for the worker's pass (every 5 s): the two engines wait at the same time.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { advance, start, verifyAccount, verifyCall, verifyEnv } from "./helpers.js";

const SAMPLES = 5;

async function prefixAlerts(t: TestGateway): Promise<Array<Record<string, unknown>>> {
  const rows = await t.db.store.db
    .selectFrom("webhook_deliveries")
    .select(["payload", "order_key"])
    .where("event", "=", "alert")
    .orderBy("id")
    .execute();
  return rows
    .map((row) => JSON.parse(String(row.payload)) as Record<string, unknown>)
    .filter((payload) => payload.alert === "verify_prefix_blocked");
}

/** SAMPLES starts to 91 9876 never checked, then one refused: the prefix is blocked. */
async function pump(t: TestGateway, account: TestAccount, round: number): Promise<void> {
  for (let i = 0; i < SAMPLES; i++)
    await start(t, account, { recipient: `98762${round}${String(i).padStart(4, "0")}` });
  const refused = await verifyCall(t, account, "POST", "", { recipient: `98762${round}9999` });
  expect(refused.status, refused.text).toBe(403);
  expect(refused.body.error.code).toBe("verify_prefix_blocked");
}

describeEnginesTogether("Verify prefix alerts", (engine) => {
  const { env } = verifyEnv();
  const gateway = useTestGateway(engine, {
    clock: new ManualClock("2026-11-22T06:30:00Z"),
    env: { ...env, VERIFY_PUMPING_MIN_SAMPLES: String(SAMPLES) },
  });

  // The test's own expect: expect.poll needs it while the other engine's suite runs.
  it("clears the alert when the block's hour ends, and when the operator allows the prefix", async ({ expect }) => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const set = await operatorCall(t, operator, "PUT", "/alerts", { url: "http://127.0.0.1:9/alerts" });
    expect(set.status, set.text).toBe(200);
    const account = await verifyAccount(t);
    const subject = `account:${account.id} 919876`;

    await pump(t, account, 1);
    expect(await prefixAlerts(t)).toMatchObject([{ subject, state: "raised", since: "2026-11-22T06:30:00Z" }]);
    // Within the hour the worker's passes leave it raised.
    advance(t, 3_599_000);
    expect(await t.gateway.ctx.verifier.clearEndedAlerts()).toBe(0);

    advance(t, 2_000);
    await expect.poll(() => prefixAlerts(t).then((alerts) => alerts.length), { timeout: 20_000 }).toBe(2);
    const [, cleared] = await prefixAlerts(t);
    expect(cleared).toMatchObject({
      subject,
      state: "cleared",
      since: "2026-11-22T06:30:00Z",
      value: 0,
    });
    expect(String(cleared!.detail)).toContain("hour of block ended");
    // Cleared once: another pass finds nothing to clear.
    expect(await t.gateway.ctx.verifier.clearEndedAlerts()).toBe(0);
    const listed = await operatorCall(t, operator, "GET", `/accounts/${account.username}/verify/prefixes`);
    expect(listed.body.data).toMatchObject([{ prefix: "919876", state: "unblocked" }]);

    // A new hour of unchecked starts blocks it again; the operator allows it: cleared in that request.
    await pump(t, account, 2);
    expect((await prefixAlerts(t)).map((alert) => alert.state)).toEqual(["raised", "cleared", "raised"]);
    const allowed = await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify/prefixes/919876`, {
      allowed: true,
    });
    expect(allowed.status, allowed.text).toBe(200);
    const alerts = await prefixAlerts(t);
    expect(alerts.map((alert) => alert.state)).toEqual(["raised", "cleared", "raised", "cleared"]);
    expect(String(alerts[3]!.detail)).toContain("the operator allowed the prefix");
    // Allowing it again (or guarding it again) tells nothing more.
    await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify/prefixes/919876`, { allowed: true });
    await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify/prefixes/919876`, { allowed: false });
    expect(await prefixAlerts(t)).toHaveLength(4);
  }, 120_000);
});
