// The Verify API's pumping and abuse guards on both engines: 300 starts to one prefix that are
// never checked are cut off after VERIFY_PUMPING_MIN_SAMPLES (50 by default), charging nothing
// for the refused ones, while real start → check flows to other prefixes keep passing and the
// operator is alerted once and can allow the prefix; the account's countries; the per-address
// limit; and an SMS that is never delivered followed by a call on resend.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { auditLedger, milli } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";
import { advance, capturedCode, freshNumber, start, verifyAccount, verifyCall, verifyEnv } from "./helpers.js";

async function refusalsCounted(t: TestGateway, code: string): Promise<number> {
  const { values } = await t.gateway.ctx.metrics.verifyRefusals.get();
  return values.find((v) => v.labels.code === code)?.value ?? 0;
}

describeEachEngine("Verify pumping and abuse guards", (engine) => {
  const { env, captureFile } = verifyEnv();
  const gateway = useTestGateway(engine, {
    clock: new ManualClock("2026-11-22T06:30:00Z"),
    env: { ...env, VERIFY_STARTS_PER_ADDRESS_PER_HOUR: "3" },
  });

  it("cuts off 300 unchecked starts to one prefix after the threshold, charging none of the refused", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const alerts = await operatorCall(t, operator, "PUT", "/alerts", { url: "http://127.0.0.1:9/alerts" });
    expect(alerts.status, alerts.text).toBe(200);
    const account = await verifyAccount(t, { credits: 100_000 });
    const before = await milli(t, account.id);
    const answers: number[] = [];
    let real = 0;
    // 250 refused after the 50 the threshold lets through show that the cut holds; the 1,000
    // starts this sent before (950 refused) showed nothing more, at three times the requests.
    for (let i = 0; i < 300; i++) {
      const pumped = await verifyCall(t, account, "POST", "", { recipient: `98761${String(i).padStart(5, "0")}` });
      answers.push(pumped.status);
      if (pumped.status === 403) expect(pumped.body.error.code).toBe("verify_prefix_blocked");
      if (i >= 50 && i % 25 === 0) {
        // A real user on another prefix: started, code read, approved.
        const id = (await start(t, account, { recipient: freshNumber() })).body.data.verification_id;
        const messageId = (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;
        const code = await capturedCode(captureFile, messageId);
        expect((await verifyCall(t, account, "POST", `/${id}/check`, { code })).body.data.status).toBe("approved");
        real++;
      }
    }
    expect(answers.filter((s) => s === 200)).toHaveLength(50);
    expect(answers.slice(50).every((s) => s === 403)).toBe(true);
    expect(real).toBe(10);
    const messages = await t.db.store.db
      .selectFrom("messages")
      .select("recipient")
      .where("account_id", "=", account.id)
      .execute();
    expect(messages.filter((m) => m.recipient.startsWith("98761"))).toHaveLength(50);
    expect(messages).toHaveLength(60);
    const entries = await t.db.store.db
      .selectFrom("ledger_entries")
      .select(["kind", "amount"])
      .where("account_id", "=", account.id)
      .where("kind", "in", ["debit", "refund"])
      .execute();
    // One debit per message sent (a refund for each the simulator failed), none for the refused.
    expect(entries.filter((e) => e.kind === "debit")).toHaveLength(60);
    expect(await milli(t, account.id)).toBe(before + entries.reduce((sum, e) => sum + Number(e.amount), 0));
    await auditLedger(t);
    expect(await refusalsCounted(t, "verify_prefix_blocked")).toBe(250);

    const alerted = await t.db.store.db
      .selectFrom("webhook_deliveries")
      .select("payload")
      .where("event", "=", "alert")
      .execute();
    expect(alerted).toHaveLength(1);
    expect(JSON.parse(String(alerted[0]!.payload))).toMatchObject({
      alert: "verify_prefix_blocked",
      subject: `account:${account.id} 919876`,
      value: 0,
    });
    const listed = await operatorCall(t, operator, "GET", `/accounts/${account.username}/verify/prefixes`);
    expect(listed.body.data).toMatchObject([{ prefix: "919876", state: "blocked", samples: 50, conversion: 0 }]);

    // The operator allows the prefix: starts to it pass again.
    const allowed = await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify/prefixes/919876`, {
      allowed: true,
    });
    expect(allowed.status, allowed.text).toBe(200);
    expect(allowed.body.data[0].state).toBe("allowed");
    await start(t, account, { recipient: "9876199999" });
    const bad = await call(t, "PUT", `/admin/api/accounts/${account.username}/verify/prefixes/98`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { allowed: true },
    });
    expect(bad.status).toBe(400);
  }, 300_000);

  it("refuses countries the account may not verify, until the operator adds them", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await verifyAccount(t);
    const before = await milli(t, account.id);
    const singapore = await verifyCall(t, account, "POST", "", { recipient: "+6591234567" });
    expect(singapore.status, singapore.text).toBe(403);
    expect(singapore.body.error.code).toBe("verify_country_not_allowed");
    expect(singapore.body.message).toContain("of SG");
    expect(await milli(t, account.id)).toBe(before);
    const set = await operatorCall(t, operator, "PUT", `/accounts/${account.username}/verify`, {
      verify_countries: ["in", "SG"],
    });
    expect(set.body.data.verify_countries).toEqual(["IN", "SG"]);
    const again = await verifyCall(t, account, "POST", "", { recipient: "+6591234567" });
    expect(again.body.error?.code).not.toBe("verify_country_not_allowed");
    const invalid = await call(t, "PUT", `/admin/api/accounts/${account.username}/verify`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { verify_countries: ["India"] },
    });
    expect(invalid.status).toBe(400);
    expect(await refusalsCounted(t, "verify_country_not_allowed")).toBeGreaterThanOrEqual(1);
  });

  it("limits starts per end-user address (client_ip)", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    for (let i = 0; i < 3; i++) await start(t, account, { recipient: freshNumber(), client_ip: "203.0.113.7" });
    const fourth = await verifyCall(t, account, "POST", "", { recipient: freshNumber(), client_ip: "203.0.113.7" });
    expect(fourth.status).toBe(429);
    expect(fourth.body.error.code).toBe("verify_address_limited");
    expect(Number(fourth.headers.get("retry-after"))).toBe(3600);
    await start(t, account, { recipient: freshNumber(), client_ip: "198.51.100.2" });
    await start(t, account, { recipient: freshNumber() });
    advance(t, 3_600_000);
    await start(t, account, { recipient: freshNumber(), client_ip: "203.0.113.7" });
  });

  it("counts an address however it is written, an IPv6 address by its /64, and refuses what is no address", async () => {
    const t = gateway();
    const account = await verifyAccount(t);
    // The same IPv4 address, mapped into IPv6 and padded; then four addresses of one IPv6 /64.
    for (const ip of ["198.51.100.9", "::ffff:198.51.100.9", " 198.51.100.9 "]) {
      await start(t, account, { recipient: freshNumber(), client_ip: ip });
    }
    const mapped = await verifyCall(t, account, "POST", "", {
      recipient: freshNumber(),
      client_ip: "::FFFF:c633:6409",
    });
    expect(mapped.status, mapped.text).toBe(429);
    expect(mapped.body.error.code).toBe("verify_address_limited");
    for (const ip of ["2001:db8:5:6::1", "2001:DB8:5:6:ffff::2", "2001:0db8:0005:0006:0:0:0:3"]) {
      await start(t, account, { recipient: freshNumber(), client_ip: ip });
    }
    const rotated = await verifyCall(t, account, "POST", "", {
      recipient: freshNumber(),
      client_ip: "2001:db8:5:6:a:b:c:d",
    });
    expect(rotated.status, rotated.text).toBe(429);
    // Another /64 is another subscriber.
    await start(t, account, { recipient: freshNumber(), client_ip: "2001:db8:5:7::1" });
    for (const ip of ["not-an-ip", "203.0.113.256", "2001:db8::/64", "1.2.3"]) {
      const refused = await verifyCall(t, account, "POST", "", { recipient: freshNumber(), client_ip: ip });
      expect(refused.status, `${ip}: ${refused.text}`).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "invalid_request", field: "client_ip" });
      expect(refused.body.message).toContain("is not an IP address");
    }
    // A refused start leaves nothing: no verification, no message, no charge.
    const started = await t.db.store.db
      .selectFrom("verifications")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    expect(Number(started.n)).toBe(7);
  });

  it("calls on resend when the SMS was never delivered (verify_channels sms → voice)", async () => {
    const t = gateway();
    const account = await verifyAccount(t, { channels: ["sms", "voice"], caller: true });
    // The simulator fails SMS to numbers ending 0001.
    const recipient = `${freshNumber().slice(0, 6)}0001`;
    const id = (await start(t, account, { recipient })).body.data.verification_id;
    const sms = (await verifyCall(t, account, "GET", `/${id}`)).body.data.message_id;
    advance(t, 30_000);
    // The gateway's clock is manual: keep it moving while the SMS goes out and fails, so that a
    // retry or lease the dispatcher timed by it comes due (a busy machine once took over 10 s).
    const ticker = setInterval(() => advance(t, 100), 50);
    try {
      await until(async () => {
        const row = await t.db.store.db
          .selectFrom("messages")
          .select("status")
          .where("id", "=", sms)
          .executeTakeFirst();
        return row?.status === "failed";
      }, 25_000);
    } finally {
      clearInterval(ticker);
    }
    const status = await call(t, "GET", `/api/v2/messages/${sms}`, { headers: keyOf(account) });
    expect(status.text).toContain("failed");
    const resent = await verifyCall(t, account, "POST", `/${id}/resend`, {});
    expect(resent.status, resent.text).toBe(200);
    expect(resent.body.data).toMatchObject({ channel: "voice", channels: ["sms", "voice"] });
    const callRow = await t.db.store.db
      .selectFrom("messages")
      .select(["channel", "recipient"])
      .where("id", "=", resent.body.data.message_id)
      .executeTakeFirstOrThrow();
    expect(callRow).toMatchObject({ channel: "voice" });
  });
});
