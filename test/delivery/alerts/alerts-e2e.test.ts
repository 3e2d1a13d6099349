// The operator's alerts through the real server, on both engines: each kind (low balance,
// webhook endpoint failing, connector down, delivery rate) raised once and cleared once, seen by
// a local receiver that verifies the signature and by a local SMTP relay; evaluations repeated
// by a second store on the same database (another process) raise nothing twice; the account's
// low_balance event reaches its opt-in URL only; bad settings answer 400 naming the field.
import { simpleParser } from "mailparser";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createLogger } from "../../../src/app/gateway.js";
import { createMetrics } from "../../../src/base/runtime/metrics.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { operatorMailer } from "../../../src/channels/email/index.js";
import { evaluateAlerts } from "../../../src/delivery/alerts/index.js";
import { BOUNCE_DOMAIN, closedPort, FakeRelay } from "../../channels/email/helpers.js";
import { Receiver, retryNow, suiteReceivers, until, verify } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, sendSms, waitForStatus } from "../../helpers/sms.js";
import { FakeSmsc } from "../carriers/fake-smsc.js";

const ENTITY = "1101234567890123456";
const TEMPLATE = "1107161234567890123";
const OPS = "ops@example.org";

// The engines' suites run at the same time (their time is waits: alert checks, a webhook's
// retry); each keeps its own receivers, stopped after each of its tests.
describeEnginesTogether("alerts end to end", (engine) => {
  const relay = new FakeRelay();
  const ops = new Receiver();
  const receiver = suiteReceivers();
  let t: TestGateway;
  let operator: TestAccount;
  let secret: string;
  let second: Store;

  beforeAll(async () => {
    await relay.start();
    await ops.start();
    t = await startTestGateway(engine, {
      env: {
        ...FAST_SIMULATOR,
        SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
        ALERT_CHECK_SECONDS: "1",
        SMTP_URL: relay.url,
        SMTP_TLS_INSECURE: "1",
        EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
      },
    });
    operator = await buildAccount(t, { role: "operator", sender: null });
    const set = await admin("PUT", "/alerts", {
      url: ops.url,
      email: OPS,
      connector_down: { seconds: 1 },
      webhook_failing: { minutes: 0 },
      delivery_rate: { messages: 2, percent: 50 },
    });
    expect(set.status).toBe(200);
    secret = set.body.data.secret;
    expect(secret).toMatch(/^whsec_/);
    second = await openStore(t.db.target, t.db.schema ? { pgSchema: t.db.schema } : {});
  });
  afterAll(async () => {
    await second?.close();
    await t?.gateway.stop();
    await t?.db.drop();
    await relay.stop();
    await ops.stop();
  });

  function admin(method: string, path: string, json?: unknown, key = operator.apiKey) {
    return call(t, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${key}` },
      ...(json !== undefined ? { json } : {}),
    });
  }

  /** The operator's alert webhooks about one alert, each verified against the secret. */
  function told(alert: string, subject: string, state: "raised" | "cleared") {
    return ops.received
      .map((r) => verify(secret, r) as Record<string, unknown>)
      .filter((b) => b.event === "alert" && b.alert === alert && b.subject === subject && b.state === state);
  }

  /** The alert mails the relay took for the operator about one alert (subjects read by mailparser). */
  async function mails(alert: string, subject: string, state: "raised" | "cleared") {
    const title = `[Switchboard] ${state === "raised" ? "ALERT" : "Cleared"}: ${alert} ${subject}`;
    const parsed = await Promise.all(relay.received.filter((m) => m.to.includes(OPS)).map((m) => simpleParser(m.raw)));
    return parsed.filter((mail) => mail.subject === title);
  }

  /**
   * Three more evaluations by this process's store and three by a second one (another process)
   * at once: none raises or clears `subject` again.
   */
  async function evaluateTwice(subject: string) {
    const mailer = operatorMailer(t.config)!;
    const deps = (store: Store) => ({
      store,
      clock: t.clock,
      logger: createLogger({ logLevel: "silent" }),
      metrics: createMetrics({ defaultMetrics: false }),
    });
    const rounds = await Promise.all(
      [t.db.store, t.db.store, t.db.store, second, second, second].map((store) =>
        evaluateAlerts(deps(store), mailer.send),
      ),
    );
    mailer.close();
    expect(rounds.flat().filter((transition) => transition.subject === subject)).toEqual([]);
  }

  const send = (account: TestAccount) =>
    sendSms(t, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 4321",
      dlt_entity_id: ENTITY,
      dlt_template_id: TEMPLATE,
    });

  // The test's own expect: expect.poll needs it while the other engine's suite runs.
  it("raises low_balance once below the account's threshold and clears it once after a top-up; the account's opt-in URL alone gets the event", async ({
    expect,
  }) => {
    const optedIn = await buildAccount(t, { credits: { sms: 10 } });
    const other = await buildAccount(t, { credits: { sms: 10 } });
    const mine = await receiver();
    const theirs = await receiver();
    const accountSecret = (await admin("PUT", `/accounts/${optedIn.username}/webhooks`, { low_balance: mine.url })).body
      .data.secret as string;
    expect((await admin("PUT", `/accounts/${other.username}/webhooks`, { delivery_report: theirs.url })).status).toBe(
      200,
    );
    for (const account of [optedIn, other]) {
      const set = await admin("PUT", `/accounts/${account.username}/low-balance-threshold`, { threshold: 8 });
      expect(set.body.data).toEqual({ account: account.username, wallet: "sms", threshold: 8 });
    }
    for (const account of [optedIn, other]) {
      for (let i = 0; i < 3; i++) {
        const sent = await send(account);
        expect(sent.status).toBe(200);
        await waitForStatus(t, account, sent.body.data.message_id);
      }
    }
    await until(() => told("low_balance", optedIn.username, "raised").length === 1, 15_000);
    await until(() => told("low_balance", other.username, "raised").length === 1, 15_000);
    expect(told("low_balance", optedIn.username, "raised")[0]).toMatchObject({ value: 7, state: "raised" });
    await until(() => mine.received.length === 1);
    expect(verify(accountSecret, mine.received[0]!)).toMatchObject({
      event: "low_balance",
      account: optedIn.username,
      wallet: "sms",
      balance: 7,
      threshold: 8,
    });
    await evaluateTwice(optedIn.username);

    const alerts = await admin("GET", "/alerts");
    expect(alerts.body.data.active.map((a: { subject: string }) => a.subject)).toEqual(
      expect.arrayContaining([optedIn.username, other.username]),
    );
    const metrics = async () => (await call(t, "GET", "/metrics")).text;
    await expect
      .poll(metrics)
      .toContain(`switchboard_alert_active{alert="low_balance",subject="account:${optedIn.id}"} 1`);

    const topUp = await admin("POST", `/accounts/${optedIn.username}/credits`, { wallet: "sms", amount: 10 });
    expect(topUp.status).toBe(200);
    await until(() => told("low_balance", optedIn.username, "cleared").length === 1, 15_000);
    await until(async () => (await mails("low_balance", optedIn.username, "cleared")).length === 1, 10_000);
    await evaluateTwice(optedIn.username);
    expect(told("low_balance", optedIn.username, "raised")).toHaveLength(1);
    expect(told("low_balance", optedIn.username, "cleared")).toHaveLength(1);
    expect(await mails("low_balance", optedIn.username, "raised")).toHaveLength(1);
    expect(await mails("low_balance", optedIn.username, "cleared")).toHaveLength(1);
    // The other account is still low; it set no low_balance URL, so only delivery reports reached it.
    expect(told("low_balance", other.username, "cleared")).toHaveLength(0);
    expect(theirs.bodies().every((b) => b.event === "delivery_report")).toBe(true);
    expect(mine.received).toHaveLength(1);
    await expect.poll(metrics).not.toContain(`subject="account:${optedIn.id}"} 1`);
    expect(await metrics()).toContain(`switchboard_alert_active{alert="low_balance",subject="account:${other.id}"} 1`);
    await admin("PUT", `/accounts/${other.username}/low-balance-threshold`, { threshold: null });
  });

  it("raises webhook_failing for an endpoint that keeps failing, once, and clears it once it answers", async () => {
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const hook = await receiver();
    hook.answer = () => 500;
    await admin("PUT", `/accounts/${account.username}/webhooks`, { delivery_report: hook.url });
    const sent = await send(account);
    await waitForStatus(t, account, sent.body.data.message_id);
    const subject = `account:${account.id} ${hook.url}`;
    await until(() => told("webhook_failing", subject, "raised").length === 1, 15_000);
    await evaluateTwice(subject);
    hook.answer = () => 200;
    // The sender's next retry delivers (its 5 s back-off brought forward: the alert is under
    // test, not the schedule); the endpoint drops out.
    await retryNow(t.db.store, hook.url);
    await until(() => told("webhook_failing", subject, "cleared").length === 1, 30_000);
    await until(async () => (await mails("webhook_failing", subject, "cleared")).length === 1, 10_000);
    expect(told("webhook_failing", subject, "raised")).toHaveLength(1);
    expect(await mails("webhook_failing", subject, "raised")).toHaveLength(1);
  }, 60_000);

  it("raises connector_down after its window and clears it when the connector binds; then delivery_rate over its last 2 final messages", async () => {
    const port = await closedPort();
    const definition = {
      name: "smsc-alert",
      type: "smpp",
      host: "127.0.0.1",
      port,
      system_id: "test",
      password: "secret",
      reconnect_initial_ms: 50,
      reconnect_max_ms: 300,
    };
    expect((await admin("POST", "/carriers", definition)).status).toBe(201);
    await t.gateway.workers!.carriers.reload();
    await until(() => told("connector_down", "smsc-alert", "raised").length === 1, 15_000);
    const raised = told("connector_down", "smsc-alert", "raised")[0]!;
    expect(Date.parse(String(raised.at)) - Date.parse(String(raised.since))).toBeGreaterThanOrEqual(1000);
    await evaluateTwice("smsc-alert");

    const smsc = new FakeSmsc();
    await smsc.start();
    try {
      const back = { ...definition, port: smsc.port, system_id: smsc.systemId, password: smsc.password };
      expect((await admin("PUT", "/carriers/smsc-alert", back)).status).toBe(200);
      await t.gateway.workers!.carriers.reload();
      await until(() => told("connector_down", "smsc-alert", "cleared").length === 1, 15_000);
      await evaluateTwice("smsc-alert");
      expect(told("connector_down", "smsc-alert", "raised")).toHaveLength(1);
      expect(await mails("connector_down", "smsc-alert", "raised")).toHaveLength(1);

      // Delivery rate: the connector's last 2 final messages failed, then 2 delivered.
      expect(
        (await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "smsc-alert" }] })).status,
      ).toBe(201);
      await t.gateway.workers!.carriers.reload();
      const account = await buildAccount(t, { credits: { sms: 20 } });
      const finish = async (stat: "UNDELIV" | "DELIVRD") => {
        const before = smsc.submits.length;
        const ids = [(await send(account)).body.data.message_id, (await send(account)).body.data.message_id];
        await until(() => smsc.answered(before + 2), 10_000);
        for (const submit of smsc.submits.slice(before)) smsc.sendReceipt(submit.messageId!, { stat });
        for (const id of ids) await waitForStatus(t, account, id);
      };
      await finish("UNDELIV");
      await until(() => told("delivery_rate", "smsc-alert", "raised").length === 1, 15_000);
      expect(told("delivery_rate", "smsc-alert", "raised")[0]).toMatchObject({ value: 0 });
      await evaluateTwice("smsc-alert");
      await finish("DELIVRD");
      await until(() => told("delivery_rate", "smsc-alert", "cleared").length === 1, 15_000);
      await evaluateTwice("smsc-alert");
      expect(told("delivery_rate", "smsc-alert", "raised")).toHaveLength(1);
      await until(async () => (await mails("delivery_rate", "smsc-alert", "cleared")).length === 1, 10_000);
    } finally {
      await admin("DELETE", "/routes/T");
      await admin("DELETE", "/carriers/smsc-alert");
      await smsc.stop();
    }
  }, 60_000);

  it("answers 400 naming the field for bad settings, and 403 operator_only to an account key", async () => {
    const cases: [unknown, string][] = [
      [{ delivery_rate: { percent: 0 } }, "delivery_rate.percent"],
      [{ delivery_rate: { messages: 0 } }, "delivery_rate.messages"],
      [{ connector_down: { seconds: -1 } }, "connector_down.seconds"],
      [{ webhook_failing: { minutes: 1.5 } }, "webhook_failing.minutes"],
      [{ low_balance: { threshold: 0.0001 } }, "low_balance.threshold"],
      [{ low_balance: { wallet: "gold" } }, "low_balance.wallet"],
      [{ url: "ftp://example.com/hook" }, "url"],
      [{ email: "not an address" }, "email"],
      [{ bogus: 1 }, "bogus"],
      [{ connector_down: { enabled: "yes" } }, "connector_down.enabled"],
    ];
    const before = (await admin("GET", "/alerts")).body.data;
    for (const [body, field] of cases) {
      const answer = await admin("PUT", "/alerts", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error).toMatchObject({ code: "invalid_request", field });
    }
    const threshold = await admin("PUT", `/accounts/${operator.username}/low-balance-threshold`, { threshold: -1 });
    expect(threshold.status).toBe(400);
    expect(threshold.body.error.field).toBe("threshold");
    expect((await admin("PUT", "/accounts/nobody-here/low-balance-threshold", { threshold: 1 })).status).toBe(404);
    // Nothing changed.
    expect((await admin("GET", "/alerts")).body.data).toMatchObject({
      url: before.url,
      delivery_rate: before.delivery_rate,
      connector_down: before.connector_down,
    });
    const customer = await buildAccount(t);
    for (const [method, body] of [
      ["GET", undefined],
      ["PUT", { email: null }],
    ] as const) {
      const refused = await admin(method, "/alerts", body, customer.apiKey);
      expect(refused.status).toBe(403);
      expect(refused.body.error.code).toBe("operator_only");
    }
    const changed = await admin("PUT", "/alerts", { delivery_rate: { enabled: false } });
    expect(changed.body.data.delivery_rate).toEqual({ enabled: false, messages: 2, percent: 50 });
    expect(changed.body.data.email_configured).toBe(true);
  });
});
