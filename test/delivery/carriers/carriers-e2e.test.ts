// Carriers through the real server, on both engines: connectors and routes set over the operator
// API, SMS sent with POST /api/v2/sms/send reaching scriptable SMSCs (our fake, over real SMPP)
// and an HTTP aggregator, receipts and DLR callbacks coming back as delivered/failed, weights
// shared exactly, failover on a retryable refusal and around a connector that is down, health
// in /metrics and the operator API, and every bad configuration refused with a 400 naming it.
import { afterEach, expect, it } from "vitest";
import { assignInboundNumber } from "../../../src/channels/inbound/numbers.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, sendSms, waitForStatus } from "../../helpers/sms.js";
import { smppDefinition, useCarrierApi } from "./carrier-api.js";
import { FakeAggregator } from "./fake-aggregator.js";
import { FakeSmsc } from "./fake-smsc.js";
import { aggregatorDefinition } from "./http-sms-helpers.js";

const ENTITY = "1101234567890123456";
const TEMPLATE = "1107161234567890123";

// The engines' suites run at the same time (their time is waits: binds, receipts, back-offs);
// each stops the SMSCs and aggregators of its own tests after each of them.
describeEnginesTogether("carriers through the gateway", (engine) => {
  const running: Array<{ stop(): Promise<void> }> = [];
  afterEach(async () => {
    for (const thing of running.splice(0).reverse()) await thing.stop();
  });
  const fakeSmsc = async () => {
    const smsc = new FakeSmsc();
    await smsc.start();
    running.push(smsc);
    return smsc;
  };
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const { admin, applied } = useCarrierApi(gateway);

  const customer = (credits = 100) => buildAccount(gateway(), { credits: { sms: credits } });
  const send = (account: TestAccount, fields: Record<string, unknown> = {}) =>
    sendSms(gateway(), account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 4321",
      dlt_entity_id: ENTITY,
      dlt_template_id: TEMPLATE,
      ...fields,
    });

  const healthOf = async (name: string) => (await admin("GET", `/carriers/${name}`)).body.data.health.state;

  it("sends through an SMPP carrier set up over the operator API and turns its receipts into delivered and failed", async () => {
    const t = gateway();
    const server = await fakeSmsc();
    const created = await admin("POST", "/carriers", smppDefinition("smsc-a", server));
    expect(created.status).toBe(201);
    expect(created.body.data.definition.password).toBe("********");
    expect(created.body.data).toMatchObject({ name: "smsc-a", type: "smpp", enabled: true, source: "api" });
    const route = await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "smsc-a" }] });
    expect(route.status).toBe(201);
    expect(route.body.data).toMatchObject({ route: "T", prefix: "", connectors: [{ name: "smsc-a", weight: 1 }] });
    await applied();
    await until(async () => (await healthOf("smsc-a")) === "up", 10_000);

    const account = await customer(20);
    const short = await send(account);
    expect(short.status).toBe(200);
    const long = await send(account, { message: "Your parcel is on its way. ".repeat(15).trim() });
    expect(long.body.data.credits).toBe(3);
    await until(() => server.answered(4), 10_000);

    const single = server.submits.find((s) => s.udh === null)!;
    expect(single).toMatchObject({
      destination: "919876543210",
      source: "SWBRD",
      dataCoding: 0,
      text: "Your OTP is 4321",
    });
    expect(single.tlvs).toEqual({ 5120: ENTITY, 5121: TEMPLATE });
    const parts = server.submits.filter((s) => s.udh !== null);
    expect(parts.map((p) => p.udh![5])).toEqual([1, 2, 3]);

    // Receipts of the long message's parts out of order, one of them failed: the message fails once.
    server.sendReceipt(single.messageId!);
    server.sendReceipt(parts[2]!.messageId!);
    server.sendReceipt(parts[0]!.messageId!, { stat: "UNDELIV", err: "001" });
    const delivered = await waitForStatus(t, account, short.body.data.message_id);
    expect(delivered.status).toBe("delivered");
    // Still waiting for part 2 (the SMSC answered every part; the gateway may still be recording
    // the submit: queued until it commits, never past submitted).
    const pending = await waitForStatus(t, account, long.body.data.message_id, {
      until: (status) => status !== "queued" && status !== "sending",
    });
    expect(pending.status).toBe("submitted");
    server.sendReceipt(parts[1]!.messageId!);
    const failed = await waitForStatus(t, account, long.body.data.message_id);
    expect(failed.status).toBe("failed");
    expect(failed.error).toEqual({
      code: "UNDELIV",
      message:
        "The carrier reported UNDELIV (err 001) for part 1 of 3: the carrier could not deliver the message to the handset.",
    });
    // A carrier failure after submission is charged: 1 + 3 of 20.
    expect(await balanceOf(t, account)).toBe(16);
    // A submit the SMSC refuses for good fails at once, says why in words, and is refunded.
    server.next(1, { status: 0x0b });
    const refused = await send(account, { recipient: "9876543211" });
    const refusal = await waitForStatus(t, account, refused.body.data.message_id);
    expect(refusal).toMatchObject({ status: "failed", sent_time: null });
    expect(refusal.error).toEqual({
      code: "ESME_RINVDSTADR",
      message: "The SMSC answered ESME_RINVDSTADR (0x0000000b): the destination number is not valid.",
    });
    expect(await balanceOf(t, account)).toBe(16);
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select(["connector", "upstream_id"])
      .where("id", "=", long.body.data.message_id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ connector: "smsc-a", upstream_id: parts[0]!.messageId });

    const metrics = await call(t, "GET", "/metrics");
    expect(metrics.text).toContain('switchboard_connector_up{connector="smsc-a",type="smpp"} 1');
    expect(metrics.text).toContain('switchboard_connector_sessions{connector="smsc-a",state="bound"} 1');
    expect(metrics.text).toMatch(/switchboard_connector_results_total\{connector="smsc-a",outcome="ok"\} 2/);
  });

  it("stores an SMS a handset sent through an SMPP carrier as the inbound SMS of the account owning the number", async () => {
    const t = gateway();
    const server = await fakeSmsc();
    await admin("POST", "/carriers", smppDefinition("mo-smsc", server));
    await applied();
    await until(async () => (await healthOf("mo-smsc")) === "up", 10_000);
    const account = await customer();
    await assignInboundNumber(t.db.store.db, t.clock, account.id, "9220500300");
    server.sendMo("919812345678", "919220500300", "Hello from a handset, in two parts ".repeat(6).trim(), {
      parts: 2,
    });
    const stored = async () =>
      t.db.store.db.selectFrom("inbound_messages").selectAll().where("account_id", "=", account.id).execute();
    await until(async () => (await stored()).length === 1, 10_000);
    const [message] = await stored();
    expect(message).toMatchObject({
      number: "9220500300",
      body: "Hello from a handset, in two parts ".repeat(6).trim(),
      connector: "mo-smsc",
    });
    expect(message!.sender).toContain("9812345678");
    // Answered once stored: ESME_ROK for both parts.
    await until(() => server.deliverAnswers.length === 2, 10_000);
    expect(server.deliverAnswers).toEqual([0, 0]);
  });

  it("shares a route by weight exactly and keeps a standby out until it is needed", async () => {
    const [a, b, c] = [await fakeSmsc(), await fakeSmsc(), await fakeSmsc()];
    for (const [name, server] of [
      ["wa", a],
      ["wb", b],
      ["wc", c],
    ] as const) {
      expect((await admin("POST", "/carriers", smppDefinition(name, server))).status).toBe(201);
    }
    const route = {
      route: "T",
      prefix: "91",
      connectors: [
        { name: "wa", weight: 3 },
        { name: "wb", weight: 1 },
        { name: "wc", weight: 0 },
      ],
    };
    expect((await admin("PUT", "/routes", route)).status).toBe(201);
    await applied();
    for (const name of ["wa", "wb", "wc"]) await until(async () => (await healthOf(name)) === "up", 10_000);

    const account = await customer();
    for (let i = 0; i < 40; i++)
      expect((await send(account, { recipient: `98765${String(10000 + i)}` })).status).toBe(200);
    await until(() => a.submits.length + b.submits.length === 40, 15_000);
    expect([a.submits.length, b.submits.length, c.submits.length]).toEqual([30, 10, 0]);
  });

  it("fails a message over to the next connector when the first refuses it with a retryable error, and around one that is down", async () => {
    const t = gateway();
    const [a, b] = [await fakeSmsc(), await fakeSmsc()];
    await admin("POST", "/carriers", smppDefinition("fa", a));
    await admin("POST", "/carriers", smppDefinition("fb", b));
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "fa" }, { name: "fb", weight: 0 }] });
    await applied();
    await until(async () => (await healthOf("fa")) === "up" && (await healthOf("fb")) === "up", 10_000);

    const account = await customer();
    a.next(3, { status: 0x08 }); // ESME_RSYSERR: worth trying again
    const sent = [];
    for (let i = 0; i < 3; i++) sent.push((await send(account, { recipient: `987654321${i}` })).body.data.message_id);
    await until(() => b.answered(3), 10_000);
    expect(a.submits.length).toBe(3);
    for (const submit of b.submits) b.sendReceipt(submit.messageId!);
    for (const id of sent) expect((await waitForStatus(t, account, id)).status).toBe("delivered");
    const metrics = await call(t, "GET", "/metrics");
    expect(metrics.text).toContain('switchboard_connector_failovers_total{from="fa",to="fb"} 3');

    // fa's SMSC goes away: it is down at once (no bind), and traffic goes straight to fb.
    await a.stop();
    await until(async () => (await healthOf("fa")) === "down", 10_000);
    const health = await admin("GET", "/carriers/health");
    const fa = health.body.data.find((h: { connector: string }) => h.connector === "fa");
    expect(fa.workers[0].sessions).toMatchObject({ total: 1, bound: 0 });
    expect((await call(t, "GET", "/metrics")).text).toContain('switchboard_connector_up{connector="fa",type="smpp"} 0');
    const before = a.submits.length;
    const id = (await send(account)).body.data.message_id;
    await until(() => b.answered(4), 10_000);
    expect(a.submits.length).toBe(before);
    b.sendReceipt(b.submits[3]!.messageId!);
    expect((await waitForStatus(t, account, id)).status).toBe("delivered");
  });

  it("sends what waited for a route whose every connector was down as soon as one binds again, not at the end of its back-off", async () => {
    const t = gateway();
    const server = await fakeSmsc();
    await admin("POST", "/carriers", smppDefinition("back", server));
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "back" }] });
    await applied();
    await until(async () => (await healthOf("back")) === "up", 10_000);

    server.refuseConnections = true;
    server.dropAll();
    await until(async () => (await healthOf("back")) === "down", 10_000);
    const account = await customer();
    const id = (await send(account)).body.data.message_id;
    const row = () =>
      t.db.store.db
        .selectFrom("messages")
        .select(["status", "error_code", "attempts"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
    await until(async () => (await row()).error_code === "connectors_down", 10_000);
    // As after a long outage: its back-off has grown to minutes.
    await t.db.store.db
      .updateTable("messages")
      .set({ due_at: Date.now() + 600_000 })
      .where("id", "=", id)
      .execute();

    server.refuseConnections = false;
    await until(() => server.answered(1), 10_000);
    server.sendReceipt(server.submits[0]!.messageId!);
    expect((await waitForStatus(t, account, id)).status).toBe("delivered");
    expect(server.submits).toHaveLength(1);
  });

  it("fails and refunds an SMS no route matches once routes exist, and sends others to the simulator before", async () => {
    const t = gateway();
    const account = await customer(10);
    // No routes: the simulator carries SMS (the developer default).
    const viaSimulator = await send(account);
    expect((await waitForStatus(t, account, viaSimulator.body.data.message_id)).status).toMatch(/delivered|failed/);
    const server = await fakeSmsc();
    await admin("POST", "/carriers", smppDefinition("only-98", server));
    await admin("PUT", "/routes", { route: "T", prefix: "9198", connectors: [{ name: "only-98" }] });
    await applied();
    const unrouted = await send(account, { recipient: "8765432109" });
    const report = await waitForStatus(t, account, unrouted.body.data.message_id);
    expect(report.status).toBe("failed");
    expect(report.error).toEqual({
      code: "no_route",
      message: "No route for route code T and number 918765432109.",
    });
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["error_code", "error_message"])
      .where("id", "=", unrouted.body.data.message_id)
      .executeTakeFirstOrThrow();
    expect(row.error_code).toBe("no_route");
    expect(row.error_message).toContain("918765432109");
    // 10 − 1 (simulator) − 0 (refunded).
    await until(async () => (await balanceOf(t, account)) === 9);
  });

  it("sends through an http-sms aggregator and takes its delivery report on the callback URL it was given", async () => {
    const t = gateway();
    const aggregator = await new FakeAggregator().start();
    running.push(aggregator);
    expect((await admin("PUT", "/carriers/agg-in", aggregatorDefinition(aggregator.url, "agg-in"))).status).toBe(201);
    expect((await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "agg-in" }] })).status).toBe(
      201,
    );
    await applied();
    const account = await customer(5);
    const sent = await send(account);
    await until(() => aggregator.requests.length === 1, 10_000);
    const request = aggregator.requests[0]!;
    expect(request.query.get("to")).toBe("9876543210");
    expect(request.query.get("pe")).toBe(ENTITY);
    expect(request.headers.authorization).toBe("Bearer tok-123456");
    const callback = request.query.get("dlr")!;
    expect(callback).toBe(`${t.url}/carriers/http-sms/agg-in/dlr`);
    await waitForStatus(t, account, sent.body.data.message_id, { until: (s) => s === "submitted" });
    const answer = await aggregator.callback(callback, { method: "GET", query: { id: "up-1", status: "DELIVRD" } });
    expect(answer.status).toBe(200);
    expect((await waitForStatus(t, account, sent.body.data.message_id)).status).toBe("delivered");
    // An unknown connector and a bad callback are refused in plain words.
    expect(
      (await aggregator.callback(`${t.url}/carriers/http-sms/nobody/dlr`, { method: "GET", query: {} })).status,
    ).toBe(404);
    expect((await aggregator.callback(callback, { method: "GET", query: { status: "DELIVRD" } })).status).toBe(400);
  });

  it("takes an aggregator's delivery report that comes before its answer to the send: stored before the 200, applied once the answer is recorded", async () => {
    const t = gateway();
    const aggregator = await new FakeAggregator().start();
    running.push(aggregator);
    // The aggregator answers the send 1.5 s late and calls the report back at once.
    aggregator.answer = () => ({
      status: 200,
      json: { status: "success", data: { message_id: "up-early" } },
      delayMs: 1_500,
    });
    expect((await admin("PUT", "/carriers/agg-early", aggregatorDefinition(aggregator.url, "agg-early"))).status).toBe(
      201,
    );
    expect(
      (await admin("PUT", "/routes", { route: "*", prefix: "", connectors: [{ name: "agg-early" }] })).status,
    ).toBe(201);
    await applied();
    const account = await customer(5);
    const sent = await send(account);
    await until(() => aggregator.requests.length === 1, 10_000);
    const callback = aggregator.requests[0]!.query.get("dlr")!;
    const answer = await aggregator.callback(callback, { method: "GET", query: { id: "up-early", status: "DELIVRD" } });
    expect(answer.status).toBe(200);
    // Acknowledged, so stored: not only in the memory of the process that took it.
    const kept = await t.db.store.db.selectFrom("early_reports").selectAll().execute();
    expect(kept.map((row) => [row.connector, row.upstream_id, row.status])).toEqual([
      ["agg-early", "up-early", "delivered"],
    ]);
    expect((await waitForStatus(t, account, sent.body.data.message_id)).status).toBe("delivered");
    await until(
      async () => (await t.db.store.db.selectFrom("early_reports").selectAll().execute()).length === 0,
      5_000,
    );
  });

  it("fails an aggregator's 503s over to an SMSC, then leaves the aggregator out while its circuit is open", async () => {
    const t = gateway();
    const aggregator = await new FakeAggregator().start();
    running.push(aggregator);
    aggregator.answer = () => ({ status: 503, text: "busy" });
    const server = await fakeSmsc();
    await admin("POST", "/carriers", {
      name: "agg-503",
      type: "http-sms",
      method: "GET",
      url: `${aggregator.url}/send?to={to}&text={text}`,
      auth: { type: "none" },
      response: { type: "json", id_path: "id" },
      timeout_ms: 2_000,
      max_connections: 4,
      rate_per_second: 1_000,
    });
    await admin("POST", "/carriers", smppDefinition("backup", server));
    await admin("PUT", "/routes", {
      route: "T",
      prefix: "",
      connectors: [
        { name: "agg-503", weight: 1 },
        { name: "backup", weight: 0 },
      ],
    });
    await applied();
    await until(async () => (await healthOf("backup")) === "up", 10_000);
    const account = await customer();
    for (let i = 0; i < 12; i++) await send(account, { recipient: `98765000${String(i).padStart(2, "0")}` });
    await until(() => server.submits.length === 12, 15_000);
    // 10 retryable failures in a row open the circuit; the messages after it skip the aggregator.
    expect(aggregator.requests.length).toBeGreaterThanOrEqual(10);
    expect(aggregator.requests.length).toBeLessThanOrEqual(12);
    await until(async () => (await healthOf("agg-503")) === "down", 10_000);
    const shown = (await admin("GET", "/carriers/agg-503")).body.data.health.workers[0];
    expect(shown).toMatchObject({ state: "down", last_error: { code: "upstream_unavailable" } });
    expect(Date.parse(shown.retry_at)).toBeGreaterThan(Date.now());
    const asked = aggregator.requests.length;
    await send(account);
    await until(() => server.answered(13), 10_000);
    expect(aggregator.requests.length).toBe(asked);
    for (const submit of server.submits) server.sendReceipt(submit.messageId!);
    await until(async () => {
      const rows = await t.db.store.db
        .selectFrom("messages")
        .select("status")
        .where("account_id", "=", account.id)
        .execute();
      return rows.length === 13 && rows.every((row) => row.status === "delivered");
    }, 10_000);
  });

  it("refuses bad connector and route definitions with a 400 that names what is wrong", async () => {
    const server = await fakeSmsc();
    const good = smppDefinition("bad-cases", server);
    const cases: Array<[unknown, RegExp]> = [
      [{ ...good, type: undefined }, /type/],
      [{ ...good, type: "kannel" }, /type/],
      [{ ...good, password: "longer-than-8" }, /password/],
      [{ ...good, system_id: "" }, /system_id/],
      [{ ...good, port: 0 }, /port/],
      [{ ...good, port: "2775" }, /port/],
      [{ ...good, name: "Bad Name" }, /name/],
      [{ ...good, name: "simulator" }, /reserved/],
      [{ ...good, window: 0 }, /window/],
      [{ ...good, connections: 100 }, /connections/],
      [{ ...good, bind: "receiver" }, /bind/],
      [{ ...good, dlt_tags: { entity_id: 0x1400, template_id: 0x1400 } }, /differ/],
      [{ ...good, dlt_tags: { entity_id: 0x0100, template_id: 0x1401 } }, /entity_id/],
      [{ ...good, reconnect_initial_ms: 5_000, reconnect_max_ms: 1_000 }, /reconnect/],
      [{ ...good, dlt_format: "nul" }, /dlt_format/],
      [{ ...good, extra: 1 }, /extra|additional/i],
      [
        {
          name: "h",
          type: "http-sms",
          method: "GET",
          url: "http://127.0.0.1/{nope}",
          auth: { type: "none" },
          response: { type: "json", id_path: "id" },
          timeout_ms: 1000,
          max_connections: 1,
          rate_per_second: 1,
        },
        /nope/,
      ],
    ];
    for (const [body, problem] of cases) {
      const answer = await admin("POST", "/carriers", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toMatch(problem);
    }
    expect((await admin("GET", "/carriers")).body.data).toEqual([]);

    expect((await admin("POST", "/carriers", good)).status).toBe(201);
    expect((await admin("POST", "/carriers", good)).status).toBe(409);
    expect((await admin("PUT", "/carriers/bad-cases", { ...good, type: "http-sms" })).status).toBe(400);
    expect((await admin("PUT", "/carriers/other", good)).status).toBe(400);
    // The masked password sent back keeps the stored one.
    const shown = (await admin("GET", "/carriers/bad-cases")).body.data.definition;
    expect((await admin("PUT", "/carriers/bad-cases", { ...shown, window: 20 })).status).toBe(200);
    const t = gateway();
    const row = await t.db.store.db
      .selectFrom("carriers")
      .select("config")
      .where("name", "=", "bad-cases")
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.config)).toMatchObject({ password: server.password, window: 20 });

    const routeCases: Array<[unknown, RegExp]> = [
      // The codes it takes, once, not a schema engine's "must be equal to constant" per branch.
      [
        { route: "X", prefix: "", connectors: [{ name: "bad-cases" }] },
        /^Invalid route: Field "route" must be one of T, P, /,
      ],
      [{ route: "T", prefix: "+91", connectors: [{ name: "bad-cases" }] }, /prefix/],
      [{ route: "T", prefix: "", connectors: [] }, /connectors/],
      [{ route: "T", prefix: "", connectors: [{ name: "ghost" }] }, /no connector named ghost/],
      [{ route: "T", prefix: "", connectors: [{ name: "bad-cases", weight: 0 }] }, /weight above 0/],
      [{ route: "T", prefix: "", connectors: [{ name: "bad-cases" }, { name: "bad-cases" }] }, /twice/],
      [{ route: "V", prefix: "", connectors: [{ name: "bad-cases" }] }, /carries sms/],
      [{ route: "T", prefix: "", connectors: [{ name: "voice-simulator" }] }, /carries voice/],
    ];
    for (const [body, problem] of routeCases) {
      const answer = await admin("PUT", "/routes", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.message, JSON.stringify(body)).toMatch(problem);
    }
    expect(
      (await admin("PUT", "/routes", { route: "P", prefix: "91", connectors: [{ name: "bad-cases" }] })).status,
    ).toBe(201);
    expect(
      (await admin("PUT", "/routes", { route: "P", prefix: "91", connectors: [{ name: "simulator" }] })).status,
    ).toBe(200);
    // A route without a prefix is the route for every number, as the CLI's --prefix left out.
    const anyNumber = await admin("PUT", "/routes", { route: "PS", connectors: [{ name: "bad-cases" }] });
    expect(anyNumber.status, anyNumber.text).toBe(201);
    expect(anyNumber.body.data).toMatchObject({ route: "PS", prefix: "" });
    const same = await admin("PUT", "/routes", { route: "PS", prefix: "", connectors: [{ name: "bad-cases" }] });
    expect(same.status).toBe(200);
    expect(same.body.data.id).toBe(anyNumber.body.data.id);
    const inUse = await admin("DELETE", "/carriers/bad-cases");
    expect(inUse.status).toBe(409);
    expect(inUse.body.message).toContain("PS/*");
    expect((await admin("DELETE", "/routes?route=PS")).status).toBe(200);
    expect((await admin("DELETE", "/routes?route=PS")).status).toBe(404);
    expect((await admin("DELETE", "/carriers/bad-cases")).status).toBe(200);
    expect((await admin("DELETE", "/carriers/bad-cases")).status).toBe(404);

    const customerAccount = await customer();
    const refused = await call(t, "GET", "/admin/api/carriers", {
      headers: { authorization: `Bearer ${customerAccount.apiKey}` },
    });
    expect(refused.status).toBe(403);
    expect((await call(t, "GET", "/admin/api/routes")).status).toBe(401);
  });

  it("stops using a disabled connector and picks a changed one up without a restart", async () => {
    const t = gateway();
    const [a, b] = [await fakeSmsc(), await fakeSmsc()];
    await admin("POST", "/carriers", smppDefinition("dis-a", a));
    await admin("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "dis-a" }] });
    await applied();
    await until(async () => (await healthOf("dis-a")) === "up", 10_000);
    const account = await customer();
    await send(account);
    await until(() => a.submits.length === 1, 10_000);

    // Point the connector at another SMSC: the worker unbinds from the first and binds to the second.
    expect((await admin("PUT", "/carriers/dis-a", { ...smppDefinition("dis-a", b) })).status).toBe(200);
    await applied();
    await until(() => b.boundConnections === 1 && a.boundConnections === 0, 10_000);
    await send(account);
    await until(() => b.submits.length === 1, 10_000);

    expect((await admin("PATCH", "/carriers/dis-a", { enabled: false })).body.data.enabled).toBe(false);
    await applied();
    await until(() => b.boundConnections === 0, 10_000);
    const id = (await send(account)).body.data.message_id;
    // Its route has no connector left: the message waits (retryable), it is not lost or failed.
    await until(async () => {
      const row = await t.db.store.db
        .selectFrom("messages")
        .select(["error_code", "status"])
        .where("id", "=", id)
        .executeTakeFirstOrThrow();
      return row.error_code === "connectors_down" && row.status === "queued";
    }, 10_000);
    await admin("PATCH", "/carriers/dis-a", { enabled: true });
    await applied();
    await until(() => b.submits.length === 2, 15_000);
  });
});
