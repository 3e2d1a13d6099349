// An adaptive route's shares say what routing does, through the real server on both engines: a
// connector disabled, or down (an SMPP account that cannot bind), takes none of the route's traffic
// (the router leaves it out), so GET /admin/api/routes/scores answers share 0 for it with why
// (`idle`), the others' shares being of the traffic they carry (adding up to 1), and
// switchboard_route_share on /metrics and a message's routing note say the same numbers.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";
import { FAST_SIMULATOR, sendSms } from "../../helpers/sms.js";

/** An http-sms connector nobody answers (never sent to here). */
const quiet = (name: string) => ({
  name,
  type: "http-sms",
  method: "GET",
  url: "http://127.0.0.1:9/send?to={to}",
  auth: { type: "none" },
  response: { type: "json", id_path: "id" },
  timeout_ms: 1000,
  max_connections: 1,
  rate_per_second: 1,
});

interface Score {
  connector: string;
  share: number;
  idle: string | null;
}

describeEachEngine("adaptive route shares of the connectors that carry traffic", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_SIMULATOR });

  it("gives a disabled and a down connector share 0 with why, the others the whole route, in the API, the metric and the note", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const admin = (path: string, method = "GET", json?: unknown) =>
      call(t, method, `/admin/api${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json === undefined ? {} : { json }),
      });
    for (const name of ["spare", "off"]) expect((await admin("/carriers", "POST", quiet(name))).status).toBe(201);
    // Nothing listens on port 9: no bind, so its workers report it down.
    const dead = await admin("/carriers", "POST", {
      name: "dead",
      type: "smpp",
      host: "127.0.0.1",
      port: 9,
      system_id: "acme",
      password: "secret",
      reconnect_initial_ms: 50,
      reconnect_max_ms: 300,
    });
    expect(dead.status, dead.text).toBe(201);
    const route = await admin("/routes", "PUT", {
      route: "T",
      prefix: "91",
      strategy: "adaptive",
      connectors: [{ name: "simulator" }, { name: "spare" }, { name: "off" }, { name: "dead" }],
    });
    expect(route.status, route.text).toBe(201);
    expect((await admin("/carriers/off", "PATCH", { enabled: false })).status).toBe(200);
    await expect
      .poll(async () => (await admin("/carriers/dead")).body.data.health.state, { timeout: 10_000 })
      .toBe("down");

    // All four on trial: a quarter each as scored; the two that carry traffic share it evenly.
    const expected = [
      ["simulator", 0.5, null],
      ["spare", 0.5, null],
      ["off", 0, "disabled"],
      ["dead", 0, "down"],
    ];
    const shares = async () =>
      ((await admin("/routes/scores")).body.data as Score[]).map((s) => [s.connector, s.share, s.idle]);
    await expect.poll(shares, { timeout: 10_000 }).toEqual(expected);
    // The worker's gauge, refreshed at the configuration's change and every 5 s.
    const gauge = async () => {
      const text = (await call(t, "GET", "/metrics")).text;
      return expected.map(([name]) => {
        const line = text.match(
          new RegExp(`^switchboard_route_share\\{route="T/91",connector="${name}"\\} (\\S+)$`, "m"),
        );
        return [name, line ? Number(line[1]) : undefined];
      });
    };
    await expect.poll(gauge, { timeout: 10_000 }).toEqual(expected.map(([name, share]) => [name, share]));

    // A message's routing note gives the share its connector has of the traffic carried.
    const shop: TestAccount = await buildAccount(t, { credits: { sms: 10 } });
    const answer = await sendSms(t, shop, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your code is 1234",
    });
    expect(answer.status, answer.text).toBe(200);
    await waitUntilAllFinal(t.db.store, 20_000);
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["connector", "route_note"])
      .where("account_id", "=", shop.id)
      .executeTakeFirstOrThrow();
    expect(row.route_note).toMatch(/^adaptive: (simulator|spare): .*; score [\d.]+, share 50 %$/);
  }, 30_000);
});
