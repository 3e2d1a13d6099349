// The default `simulator` connector (what `npm start` uses offline): statuses that move on their
// own, its magic numbers, its customers' messages, and the demo account's set-up. Also what
// upkeep does with a send whose process stopped between holding the credit and the answer.
import { expect, it } from "vitest";
import { bootstrapIfEmpty } from "../../../src/app/bootstrap.js";
import { newQueueId } from "../../../src/base/core/ids.js";
import { DEMO_WHATSAPP } from "../../../src/channels/whatsapp/index.js";
import { releaseStaleSends } from "../../../src/channels/whatsapp/upkeep.js";
import { holdCredits, tryDebitWallet } from "../../../src/domain/accounts/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { connectSimulatedWhatsApp, expectError, whatsappWallet } from "./helpers.js";

async function simulatedAccount(t: TestGateway, credits = 10) {
  const account = await buildAccount(t, { credits: { whatsapp: credits }, sender: null });
  await connectSimulatedWhatsApp(t, account.id);
  const v2 = (method: string, path: string, json?: unknown) =>
    call(t, method, `/api/v2${path}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });
  return { account, v2 };
}

describeEachEngine("WhatsApp simulator", (engine) => {
  const gateway = useTestGateway(engine, { env: { WHATSAPP_SIMULATOR_LATENCY_MS: "40" } });

  it("sends a template and walks it sent → delivered → read by itself", async () => {
    const t = gateway();
    const { account, v2 } = await simulatedAccount(t);
    const listing = await v2("GET", "/whatsapp/templates");
    expect(listing.status).toBe(200);
    const names = (listing.body.data as Array<{ name: string; is_sendable: boolean }>).map((x) => [
      x.name,
      x.is_sendable,
    ]);
    expect(names).toContainEqual(["hello_world", true]);
    // The demo's paused template is neither listed nor sendable.
    expect(names.map(([name]) => name)).not.toContain("festive_sale");
    const paused = await v2("POST", "/whatsapp/send", {
      to: "919876543210",
      template: "festive_sale",
      params: ["10%"],
    });
    expectError(paused, 404, "template_not_found");

    const sent = await v2("POST", "/whatsapp/send", { to: "919876543210", template: "hello_world" });
    expect(sent.status).toBe(200);
    expect(sent.body.data.message_id).toMatch(/^wamid\.SIM/);
    await until(
      async () => (await v2("GET", `/whatsapp/status/${sent.body.data.id}`)).body.data.status === "read",
      5000,
    );
    const status = (await v2("GET", `/whatsapp/status/${sent.body.data.id}`)).body.data;
    expect(status.delivered_at).not.toBeNull();
    expect(await whatsappWallet(t, account.id)).toEqual({ balance: 9, held: 0 });
  });

  it("fails recipients ending 0002 after sending, refuses 0003 at once (nothing charged), never reads 0001", async () => {
    const t = gateway();
    const { account, v2 } = await simulatedAccount(t, 5);
    const fails = (await v2("POST", "/whatsapp/send", { to: "919876500002", template: "hello_world" })).body.data;
    expectError(
      await v2("POST", "/whatsapp/send", { to: "919876500003", template: "hello_world" }),
      502,
      "upstream_error",
    );
    const unread = (await v2("POST", "/whatsapp/send", { to: "919876500001", template: "hello_world" })).body.data;
    await until(async () => (await v2("GET", `/whatsapp/status/${fails.id}`)).body.data.status === "failed", 5000);
    expect((await v2("GET", `/whatsapp/status/${fails.id}`)).body.data.error).toMatchObject({ code: 131026 });
    await until(async () => (await v2("GET", `/whatsapp/status/${unread.id}`)).body.data.status === "delivered", 5000);
    // The simulator reads a message one step (40 ms here) after delivering it: five steps later,
    // 0001 is still unread. A bounded wait for something that must not happen.
    await new Promise((r) => setTimeout(r, 200));
    expect((await v2("GET", `/whatsapp/status/${unread.id}`)).body.data.status).toBe("delivered");
    expect(await whatsappWallet(t, account.id)).toEqual({ balance: 3, held: 0 });
  });

  it("opens a customer's window when the operator injects their message", async () => {
    const t = gateway();
    const { account, v2 } = await simulatedAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    expectError(await v2("POST", "/whatsapp/send", { to: "919876511111", message: "hi" }), 422, "template_required");
    const injected = await call(t, "POST", `/admin/api/accounts/${account.username}/whatsapp/inbound`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { from: "+91 98765 11111", text: "Hello!" },
    });
    expect(injected.status).toBe(201);
    expect(injected.body.data.from).toBe("919876511111");
    expect((await v2("POST", "/whatsapp/send", { to: "919876511111", message: "Hi, how can we help?" })).status).toBe(
      200,
    );
  });
});

describeEachEngine("WhatsApp demo and upkeep", (engine) => {
  const gateway = useTestGateway(engine);

  it("the first start connects the demo account to the simulated business account", async () => {
    const t = gateway();
    const creds = await bootstrapIfEmpty(t.db.store, t.clock);
    expect(creds).toBeDefined();
    expect(creds!.demo.channels.join("\n")).toContain("whatsapp");
    const v2 = (method: string, path: string, json?: unknown) =>
      call(t, method, `/api/v2${path}`, {
        headers: { authorization: `Bearer ${creds!.demo.api_key}` },
        ...(json !== undefined ? { json } : {}),
      });
    expect((await v2("GET", "/whatsapp/account")).body.data).toMatchObject({
      enabled: true,
      connector: "simulator",
      phone_number_id: DEMO_WHATSAPP.phoneNumberId,
      business_account_connected: true,
    });
    const sent = await v2("POST", "/whatsapp/send", {
      to: DEMO_WHATSAPP.testNumber,
      template: "otp_code",
      params: ["482913"],
    });
    expect(sent.status).toBe(200);
  });

  it("releases the hold of a send whose process stopped before WhatsApp answered; nothing is charged", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { whatsapp: 3 }, sender: null });
    const now = t.clock.now().getTime();
    const id = newQueueId(now);
    await t.db.store.transaction(async (trx) => {
      expect(await holdCredits(trx, { accountId: account.id, wallet: "whatsapp", amount: 1000 })).toBe(true);
      await trx
        .insertInto("idempotency_keys")
        .values({ account_id: account.id, key: "k-crash", request_hash: "h", response: "", created_at: now })
        .execute();
      await trx
        .insertInto("messages")
        .values(
          messageRow({
            id,
            account_id: account.id,
            channel: "whatsapp",
            broadcast_id: "987654",
            recipient: "919876543210",
            sender: "15550001234",
            body: "x",
            route: "whatsapp",
            wallet: "whatsapp",
            status: "sending",
            due_at: now,
            lease_until: now - 1,
            connector: "whatsapp-cloud",
            meta: JSON.stringify({ type: "text", idempotency_key: "k-crash" }),
            created_at: now,
          }),
        )
        .execute();
    });
    expect(await whatsappWallet(t, account.id)).toEqual({ balance: 3, held: 1 });
    expect(await releaseStaleSends(t.db.store, t.clock)).toBe(1);
    expect(await releaseStaleSends(t.db.store, t.clock)).toBe(0);
    expect(await whatsappWallet(t, account.id)).toEqual({ balance: 3, held: 0 });
    const row = await t.db.store.db
      .selectFrom("messages")
      .select(["status", "error_code"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ status: "failed", error_code: "upstream_unknown" });
    // WhatsApp gave no code for it: the status call says so with null, and why in the message.
    await connectSimulatedWhatsApp(t, account.id);
    const status = await call(t, "GET", "/api/v2/whatsapp/status/987654", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(status.body.data).toMatchObject({ status: "failed", error: { code: null, message: expect.any(String) } });
    const key = await t.db.store.db
      .selectFrom("idempotency_keys")
      .select("key")
      .where("key", "=", "k-crash")
      .executeTakeFirst();
    expect(key).toBeUndefined();
  });

  it("held credits are not spendable by other sends (an SMS debit sees balance minus held)", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { whatsapp: 1 }, sender: null });
    await t.db.store.transaction(async (trx) => {
      expect(await holdCredits(trx, { accountId: account.id, wallet: "whatsapp", amount: 1000 })).toBe(true);
      expect(await holdCredits(trx, { accountId: account.id, wallet: "whatsapp", amount: 1000 })).toBe(false);
    });
    const debited = await tryDebitWallet(t.db.store.db, t.clock, {
      accountId: account.id,
      wallet: "whatsapp",
      amount: 1000,
      kind: "debit",
      ref: "x",
    });
    expect(debited).toBeUndefined();
  });
});
