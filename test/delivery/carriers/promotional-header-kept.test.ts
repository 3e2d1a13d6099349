// The header a carrier got for the generic PROMOTIONAL is the one recorded at its submit (decision
// 0187), through the real server on both engines: sent with PROMOTIONAL_HEADER=A (one taken by the
// SMSC, one refused by it), the gateway restarted with B, the operator's view, its JSON and the
// CLI's `messages show` still say A; a message with nothing recorded (as sent before migration
// 0075) says the header is not known rather than B.
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, startGateway } from "../../../src/app/gateway.js";
import { systemClock } from "../../../src/base/core/clock.js";
import { until } from "../../domain/webhooks/receiver.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  startTestGateway,
  type TestAccount,
  type TestGateway,
  testConfig,
} from "../../helpers/gateway.js";
import { sendSms, waitForStatus } from "../../helpers/sms.js";
import { smppDefinition } from "./carrier-api.js";
import { fakeSmsc } from "./smpp-helpers.js";

const A = "512345";
const B = "598765";
const ENV = { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" };
const promotional = { sender_id: "PROMOTIONAL", route: "promotional", message: "Mega sale this weekend" };

let current: TestGateway | undefined;
afterEach(async () => {
  await current?.gateway.stop();
  await current?.db.drop();
  current = undefined;
});

describeEachEngine("the DLT header a carrier got, kept at submit", (engine) => {
  it("still says PROMOTIONAL_HEADER A after the gateway restarts with B; unknown when nothing was recorded", async () => {
    const server = await fakeSmsc();
    let t = await startTestGateway(engine, { env: { ...ENV, PROMOTIONAL_HEADER: A } });
    current = t;
    const operator = await buildAccount(t, { role: "operator" });
    const admin = (method: string, path: string, json?: unknown) =>
      call(t, method, `/admin/api${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    expect((await admin("PUT", "/carriers/smsc-kept", smppDefinition("smsc-kept", server))).status).toBe(201);
    const route = await admin("PUT", "/routes", { route: "P", prefix: "", connectors: [{ name: "smsc-kept" }] });
    expect(route.status).toBeLessThan(300);
    await t.gateway.workers!.carriers.reload();
    const who = await buildAccount(t, { credits: { sms: 100 } });
    const send = async (account: TestAccount, recipient: string) => {
      const sent = await sendSms(t, account, { ...promotional, recipient });
      expect(sent.status, sent.text).toBe(200);
      const id: string = sent.body.data.message_id;
      return (await waitForStatus(t, account, id, { until: (s) => s !== "queued" && s !== "dispatching" })) && id;
    };
    const taken = await send(who, "9876543210");
    const old = await send(who, "9876543211");
    // The SMSC refuses the next submit (ESME_RINVSRCADR): it got the header all the same.
    server.next(1, { status: 0x0a });
    const refused = await send(who, "9876543212");
    expect(server.submits.map((s) => s.source)).toEqual([A, A, A]);
    expect((await waitForStatus(t, who, refused)).status).toBe("failed");
    // A message sent before the gateway recorded the header (migration 0075) has none.
    await t.db.store.db.updateTable("messages").set({ carrier_source: null }).where("id", "=", old).execute();

    await t.gateway.stop();
    const config = testConfig(t.db, { ...ENV, PROMOTIONAL_HEADER: B });
    const restarted = await startGateway({
      config,
      roles: ["api", "worker"],
      clock: systemClock,
      store: t.db.store,
      logger: createLogger({ logLevel: "silent" }),
      openApiAtStart: false,
    });
    t = { ...t, gateway: restarted, url: restarted.url ?? "", config };
    current = t;

    const header = async (id: string) => {
      const view = await admin("GET", `/messages/${id}`);
      expect(view.status, view.text).toBe(200);
      expect(view.body.data.message.sender_id).toBe("PROMOTIONAL");
      return view.body.data.dlt.header;
    };
    expect(await header(taken)).toBe(A);
    expect(await header(refused)).toBe(A);
    expect(await header(old)).toBeNull();
    // The CLI, in a shell without PROMOTIONAL_HEADER, reads what was recorded, not the server's B.
    const cliEnv = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    expect(await cliOk(["messages", "show", taken], cliEnv)).toContain(`dlt       header ${A},`);
    const shownOld = await cliOk(["messages", "show", old], cliEnv);
    expect(shownOld).toContain("dlt       header unknown (not recorded");
    expect(shownOld).not.toContain(B);
    const json = JSON.parse(await cliOk(["messages", "show", refused, "--json"], cliEnv));
    expect(json.dlt.header).toBe(A);
    // A message sent now goes out with B, and says so.
    await until(() => server.boundConnections > 0, 10_000);
    const now = await send(who, "9876543213");
    expect(server.submits.at(-1)!.source).toBe(B);
    expect(await header(now)).toBe(B);
  });
});

describe("headerSent", () => {
  it("is the sender for every sender but PROMOTIONAL at a real carrier with nothing recorded", async () => {
    const { headerSent } = await import("../../../src/app/admin/message-facts.js");
    const row = { sender: "PROMOTIONAL", connector: "smsc", carrier_source: null };
    expect(headerSent(row)).toBeNull();
    expect(headerSent({ ...row, carrier_source: A })).toBe(A);
    expect(headerSent({ ...row, connector: "simulator" })).toBe("PROMOTIONAL");
    expect(headerSent({ ...row, connector: null })).toBe("PROMOTIONAL");
    expect(headerSent({ ...row, sender: "SWBRD" })).toBe("SWBRD");
  });
});
