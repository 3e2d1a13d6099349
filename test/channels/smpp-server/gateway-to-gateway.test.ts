// Switchboard's own SMPP carrier connector bound to another Switchboard's SMPP server: gateway A's
// carrier `gw-b` is an account of gateway B, two real gateways on their own databases, both
// engines. A's messages (single and multipart, GSM-7 and UCS-2) are accepted by B as one message
// each with A's DLT ids, and B's receipts make them delivered at A; a receipt B holds while A's
// connector is unbound reaches A when it binds again; B's throttling slows A down without losing
// a message; a wrong password leaves the connector down; an MO message B receives for the
// account reaches A's inbound SMS.
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { sendSms, waitForStatus } from "../../helpers/sms.js";
import { assignNumber } from "../inbound/helpers.js";
import { type SmppAccount, smppAccount, smppPort, until } from "./client.js";

// Its slowest tests take up to 11 s amid the whole suite on a slow two-core machine, where a
// test of the same kind once took four times as long as usual: twice the default bound.
vi.setConfig({ testTimeout: 60_000 });

const ENTITY = "1101234567890123456";
const TEMPLATE = "1107161234567890123";

describeEnginesTogether("gateway A's SMPP connector bound to gateway B's SMPP server", (engine) => {
  let a: TestGateway;
  let b: TestGateway;
  let operatorA: TestAccount;
  let operatorB: TestAccount;
  /** B's account that A binds as. */
  let relay: SmppAccount;

  beforeAll(async () => {
    // B's carrier (its simulator) reports after 1 to 3 s, so a test can unbind A before it does.
    b = await startTestGateway(engine, {
      env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "2000", SIMULATOR_FAILURE_RATE: "0" },
    });
    a = await startTestGateway(engine, { env: { SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" } });
    operatorA = await buildAccount(a, { role: "operator", sender: null });
    operatorB = await buildAccount(b, { role: "operator", sender: null });
    relay = await smppAccount(b, {}, { credits: { sms: 1000 } });
    expect(await adminA("POST", "/carriers", connector("gw-b", relay.smppPassword))).toMatchObject({ status: 201 });
    expect(await adminA("PUT", "/routes", { route: "T", prefix: "", connectors: [{ name: "gw-b" }] })).toMatchObject({
      status: 201,
    });
    await a.gateway.workers!.carriers.reload();
    await until(async () => (await healthOf("gw-b")) === "up", 15_000, "gw-b bound");
  }, 60_000);

  afterAll(async () => {
    await a?.gateway.stop();
    await b?.gateway.stop();
    await a?.db.drop();
    await b?.db.drop();
  });

  function connector(name: string, password: string) {
    return {
      name,
      type: "smpp",
      host: "127.0.0.1",
      port: smppPort(b),
      system_id: relay.username,
      password,
      reconnect_initial_ms: 50,
      reconnect_max_ms: 300,
    };
  }

  async function adminA(method: string, path: string, json?: unknown) {
    return call(a, method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operatorA.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  }

  async function healthOf(name: string): Promise<string | undefined> {
    return (await adminA("GET", `/carriers/${name}`)).body.data?.health?.state;
  }

  async function send(account: TestAccount, fields: Record<string, unknown>): Promise<string> {
    const answer = await sendSms(a, account, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      dlt_entity_id: ENTITY,
      dlt_template_id: TEMPLATE,
      ...fields,
    });
    expect(answer.status, answer.text).toBe(200);
    return answer.body.data.message_id as string;
  }

  /** B's message for A's message: the id B answered is A's upstream_id. */
  async function atB(idAtA: string) {
    const { upstream_id } = await a.db.store.db
      .selectFrom("messages")
      .select("upstream_id")
      .where("id", "=", idAtA)
      .executeTakeFirstOrThrow();
    return b.db.store.db
      .selectFrom("messages")
      .select([
        "id",
        "body",
        "encoding",
        "segments",
        "recipient",
        "sender",
        "dlt_entity_id",
        "dlt_template_id",
        "status",
      ])
      .where("id", "=", upstream_id!)
      .executeTakeFirstOrThrow();
  }

  it("sends single and multipart GSM-7 and UCS-2 through B, one message each at B, delivered at A by B's receipts", async () => {
    const account = await buildAccount(a, { credits: { sms: 50 } });
    const texts = {
      short: "Your OTP is 4321 @ shop",
      long: "Your parcel is on its way. ".repeat(12).trim(),
      hindi: "आपका OTP 4321 है",
      longHindi: "आपका पार्सल रास्ते में है। ".repeat(5).trim(),
    };
    const ids = {
      short: await send(account, { message: texts.short, recipient: "9876543301" }),
      long: await send(account, { message: texts.long, recipient: "9876543302" }),
      hindi: await send(account, { message: texts.hindi, recipient: "9876543303", unicode: true }),
      longHindi: await send(account, { message: texts.longHindi, recipient: "9876543304", unicode: true }),
    };
    for (const id of Object.values(ids)) {
      const report = await waitForStatus(a, account, id, { timeoutMs: 30_000 });
      expect(report.status, JSON.stringify(report)).toBe("delivered");
    }
    for (const [name, id] of Object.entries(ids) as Array<[keyof typeof texts, string]>) {
      const row = await atB(id);
      expect(row, name).toMatchObject({
        body: texts[name],
        sender: "SWBRD",
        dlt_entity_id: ENTITY,
        dlt_template_id: TEMPLATE,
        status: "delivered",
      });
      expect(row.encoding, name).toBe(name.toLowerCase().includes("hindi") ? "ucs2" : "gsm7");
    }
    expect((await atB(ids.long)).segments).toBeGreaterThan(1);
    expect((await atB(ids.longHindi)).segments).toBeGreaterThan(1);
    // B charged its account once per segment of each whole message.
    const charged = await b.db.store.db
      .selectFrom("messages")
      .select("segments")
      .where("account_id", "=", relay.id)
      .where("id", "in", await Promise.all(Object.values(ids).map(async (id) => (await atB(id)).id)))
      .execute();
    expect(charged).toHaveLength(4);
  }, 90_000);

  it("gets a receipt B held while A's connector was unbound once it binds again", async () => {
    const account = await buildAccount(a, { credits: { sms: 10 } });
    const id = await send(account, { message: "held at B", recipient: "9876543305" });
    await until(async () => (await waitForStatus(a, account, id, { until: (s) => s === "submitted" })) !== undefined);
    expect((await adminA("PATCH", "/carriers/gw-b", { enabled: false })).status).toBe(200);
    await a.gateway.workers!.carriers.reload();
    // B delivers meanwhile; its receipt waits in B's outbox.
    const upstream = (await atB(id)).id;
    await until(
      async () => {
        const rows = await b.db.store.db.selectFrom("smpp_outbox").select("message_id").execute();
        return rows.some((row) => row.message_id === upstream);
      },
      20_000,
      "B holding the receipt",
    );
    expect((await waitForStatus(a, account, id, { until: () => true })).status).toBe("submitted");
    expect((await adminA("PATCH", "/carriers/gw-b", { enabled: true })).status).toBe(200);
    await a.gateway.workers!.carriers.reload();
    const report = await waitForStatus(a, account, id, { timeoutMs: 20_000 });
    expect(report.status).toBe("delivered");
  }, 60_000);

  it("is slowed by B's throttling without losing a message", async () => {
    await setSmppSettings(b.db.store, b.clock, relay.username, { submitsPerSecond: 3 });
    // Open binds follow a new limit within a second.
    const relayBinds = () => b.gateway.smpp!.list().filter((bind) => bind.username === relay.username);
    await until(
      () => relayBinds().length > 0 && relayBinds().every((bind) => bind.submitsPerSecondLimit === 3),
      5_000,
      "A's binds at B held to 3 submits a second",
    );
    try {
      const account = await buildAccount(a, { credits: { sms: 20 } });
      const ids = [];
      for (let i = 0; i < 8; i++)
        ids.push(await send(account, { message: `burst ${i}`, recipient: `98765433${10 + i}` }));
      for (const id of ids) {
        expect((await waitForStatus(a, account, id, { timeoutMs: 60_000 })).status).toBe("delivered");
      }
      const metrics = (await call(b, "GET", "/metrics")).text;
      expect(metrics).toMatch(
        new RegExp(`switchboard_smpp_submits_total\\{account_id="${relay.id}",result="throttled"\\} [1-9]`),
      );
      const atBRows = await Promise.all(ids.map(atB));
      expect(new Set(atBRows.map((row) => row.body)).size).toBe(8);
    } finally {
      await setSmppSettings(b.db.store, b.clock, relay.username, { submitsPerSecond: 0 });
    }
  }, 120_000);

  it("stays down with a wrong password, B counting the failures against the account", async () => {
    const victim = await smppAccount(b);
    expect(
      (
        await adminA("POST", "/carriers", {
          ...connector("gw-b-wrong", "nope"),
          system_id: victim.username,
          reconnect_initial_ms: 200,
          reconnect_max_ms: 1000,
        })
      ).status,
    ).toBe(201);
    try {
      await a.gateway.workers!.carriers.reload();
      await until(
        async () => {
          const health = (await adminA("GET", "/carriers/gw-b-wrong")).body.data.health;
          return health?.state === "down" && JSON.stringify(health).includes("ESME_RINVPASWD");
        },
        15_000,
        "gw-b-wrong down, bind refused",
      );
      const failures = await b.db.store.db
        .selectFrom("login_failures")
        .select("account_id")
        .where("account_id", "=", victim.id)
        .execute();
      expect(failures.length).toBeGreaterThan(0);
      expect(b.gateway.smpp!.list().filter((bind) => bind.username === victim.username)).toEqual([]);
    } finally {
      await adminA("DELETE", "/carriers/gw-b-wrong");
      await a.gateway.workers!.carriers.reload();
    }
  }, 30_000);

  it("passes an MO message B receives for the account to A's inbound SMS", async () => {
    const ownerAtA = await buildAccount(a);
    await assignNumber(a, operatorA, ownerAtA, "9220502301");
    await assignNumber(b, operatorB, relay, "9220502301");
    const simulatorB = b.gateway.workers!.simulator;
    await simulatorB.generateInbound({ to: "9220502301", from: "9876543399", message: "Reply via B" });
    await simulatorB.generateInbound({ to: "9220502301", from: "9876543398", message: "बी से जवाब" });
    const inbound = async () =>
      a.db.store.db
        .selectFrom("inbound_messages")
        .select(["body", "sender", "number"])
        .where("account_id", "=", ownerAtA.id)
        .orderBy("id")
        .execute();
    await until(async () => (await inbound()).length === 2, 20_000, "both MO at A");
    const [plain, unicode] = await inbound();
    expect(plain).toMatchObject({ body: "Reply via B", number: "9220502301" });
    expect(plain!.sender).toContain("9876543399");
    expect(unicode).toMatchObject({ body: "बी से जवाब" });
  }, 60_000);
});
