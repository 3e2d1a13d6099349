// The generic promotional sender at real carriers (decision 0177), through the real server on both
// engines: with PROMOTIONAL_HEADER set, an SMPP carrier gets it as the source address (the TON of a
// short number) and an http-sms aggregator as {from}; the client still reads PROMOTIONAL and the
// operator's view and the CLI's `messages show` show the header used. Unset, a real carrier is not handed PROMOTIONAL, which it
// would drop: the message fails dlt_header_not_whitelisted, refunded.
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../domain/webhooks/receiver.js";
import { cliOk } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { smppDefinition, useCarrierApi } from "./carrier-api.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";
import { fakeSmsc } from "./smpp-helpers.js";

const HEADER = "512345";
const running: Array<{ stop(): Promise<void> }> = [];
afterEach(async () => {
  for (const thing of running.splice(0)) await thing.stop();
});

const promotional = { sender_id: "PROMOTIONAL", route: "promotional", message: "Mega sale this weekend" };

describeEachEngine("the generic PROMOTIONAL sender at carriers", (engine) => {
  describe("with PROMOTIONAL_HEADER", () => {
    const gateway = useTestGateway(engine, {
      env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1", PROMOTIONAL_HEADER: HEADER },
    });
    const { admin, applied } = useCarrierApi(gateway);

    it("sends the operator's numeric header to SMPP and http-sms carriers; the client reads PROMOTIONAL, the operator the header", async () => {
      const server = await fakeSmsc();
      const aggregator = await new FakeAggregator().start();
      running.push(aggregator);
      expect((await admin("PUT", "/carriers/smsc-promo", smppDefinition("smsc-promo", server))).status).toBe(201);
      const http = aggregatorDefinition(aggregator.url, "agg-promo", {
        url: `${aggregator.url}/api/send?to={to}&from={from}&text={text}&dlr={callback_url}`,
      });
      expect((await admin("PUT", "/carriers/agg-promo", http)).status).toBe(201);
      const who = await buildAccount(gateway(), { credits: { sms: 100 } });
      const ids: string[] = [];
      for (const name of ["smsc-promo", "agg-promo"]) {
        const route = await admin("PUT", "/routes", { route: "P", prefix: "", connectors: [{ name }] });
        expect(route.status).toBeLessThan(300);
        await applied();
        const sent = await sendSms(gateway(), who, { ...promotional, recipient: "9876543210" });
        expect(sent.status, sent.text).toBe(200);
        ids.push(sent.body.data.message_id);
        await until(() => server.submits.length + aggregator.requests.length === ids.length, 10_000);
      }
      expect(server.submits[0]!.source).toBe(HEADER);
      expect(server.submits[0]!.sourceTon).toBe(0);
      expect(aggregator.requests[0]!.query.get("from")).toBe(HEADER);
      const status = await waitForStatus(gateway(), who, ids[0]!, { until: (s) => s !== "queued" });
      expect(status.sender_id).toBe("PROMOTIONAL");
      const view = await admin("GET", `/messages/${ids[0]}`);
      expect(view.body.data.dlt.header).toBe(HEADER);
      expect(view.body.data.message.sender_id).toBe("PROMOTIONAL");
      // The CLI, in a shell without PROMOTIONAL_HEADER, shows the header the server sends.
      const shown = await cliOk(["messages", "show", ids[0]!], {
        DATABASE_URL: gateway().db.url,
        SQLITE_SYNCHRONOUS: "NORMAL",
      });
      expect(shown).toContain(`dlt       header ${HEADER},`);
    });
  });

  describe("without PROMOTIONAL_HEADER", () => {
    const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
    const { admin, applied } = useCarrierApi(gateway);

    it("fails a PROMOTIONAL send routed to a real carrier, refunded, and sends nothing to it", async () => {
      const server = await fakeSmsc();
      expect((await admin("PUT", "/carriers/smsc-bare", smppDefinition("smsc-bare", server))).status).toBe(201);
      expect(
        (await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "smsc-bare" }] })).status,
      ).toBeLessThan(300);
      await applied();
      const who = await buildAccount(gateway(), { credits: { sms: 100 } });
      const sent = await sendSms(gateway(), who, { ...promotional, recipient: "9876543211" });
      expect(sent.status, sent.text).toBe(200);
      const done = await waitForStatus(gateway(), who, sent.body.data.message_id);
      expect(done.status).toBe("failed");
      expect(done.error.code).toBe("dlt_header_not_whitelisted");
      expect(await balanceOf(gateway(), who)).toBe(100);
      expect(server.submits).toHaveLength(0);
    });
  });
});
