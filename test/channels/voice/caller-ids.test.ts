// Caller numbers: an operator approves the numbers an account may call from (operator API and
// CLI), a send from any other number answers -10, and the demo account can call at once.
import { expect, it, vi } from "vitest";
import { bootstrapIfEmpty } from "../../../src/app/bootstrap.js";
import { cliOk, runCli, STACK_TRACE } from "../../helpers/cli.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import {
  buildVoiceAccount,
  CALLER,
  callParams,
  expectBroadcastId,
  FAST_VOICE_SIMULATOR,
  placeCall,
  waitForCall,
} from "./helpers.js";

// The CLI steps each start a Node process.
vi.setConfig({ testTimeout: 60_000 });

describeEachEngine("voice caller numbers", (engine) => {
  const gateway = useTestGateway(engine, { env: FAST_VOICE_SIMULATOR });

  it("are approved, listed and removed by an operator; a send answers -10 from any other number", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildVoiceAccount(t, { caller: null });
    const path = `/accounts/${account.username}/voice/caller-ids`;

    expect((await placeCall(t, "GET", callParams(account))).text).toBe("-10");
    const created = await operatorCall(t, operator, "POST", path, { number: "(080) 4711-0000" });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ number: CALLER, account: account.username });
    // Written another way it is the same number: approved already.
    expect((await operatorCall(t, operator, "POST", path, { number: "+91 80 4711 0000" })).status).toBe(200);
    await operatorCall(t, operator, "POST", path, { number: "+44 20 7946 0000" });
    expect((await operatorCall(t, operator, "GET", path)).body.data.map((c: { number: string }) => c.number)).toEqual([
      CALLER,
      "+442079460000",
    ]);

    // Written any way the caller number is read, it is the approved one.
    for (const from of [CALLER, "080 4711 0000", "918047110000", "0091 80 4711 0000"]) {
      expectBroadcastId(await placeCall(t, "FORM", callParams(account, { from })), account, from);
    }
    expectBroadcastId(await placeCall(t, "JSON", callParams(account, { from: "+442079460000" })), account);

    await operatorCall(t, operator, "DELETE", `${path}/${encodeURIComponent("+918047110000")}`);
    expect((await placeCall(t, "GET", callParams(account))).text).toBe("-10");
    const again = await call(t, "DELETE", `/admin/api${path}/${encodeURIComponent("+918047110000")}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(again.status).toBe(404);
    expect(again.body).toMatchObject({ status: "error", error: { code: "not_found" } });
  });

  it("refuse customers' keys, a missing key and numbers that are not numbers", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildVoiceAccount(t, { caller: null });
    const path = `/admin/api/accounts/${account.username}/voice/caller-ids`;
    const asCustomer = await call(t, "POST", path, {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { number: CALLER },
    });
    expect(asCustomer.status).toBe(403);
    expect(asCustomer.body.error.code).toBe("operator_only");
    expect((await call(t, "GET", path)).status).toBe(401);
    const bad = await call(t, "POST", path, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { number: "12345" },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: "invalid_request", field: "number" });
    const unknown = await call(t, "GET", "/admin/api/accounts/nobody_here/voice/caller-ids", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(unknown.status).toBe(404);
  });

  it("are managed from the CLI too", async () => {
    const t = gateway();
    const account = await buildVoiceAccount(t, { caller: null });
    const env = { DATABASE_URL: t.db.url, SQLITE_SYNCHRONOUS: "NORMAL" };
    const approved = JSON.parse(
      await cliOk(
        ["voice-caller-ids", "approve", "--account", account.username, "--number", "080 4711 0000", "--json"],
        env,
      ),
    );
    expect(approved).toMatchObject({ number: CALLER, account: account.username });
    expectBroadcastId(await placeCall(t, "GET", callParams(account)), account);
    expect(await cliOk(["voice-caller-ids", "list", "--account", account.username], env)).toBe(`NUMBER\n${CALLER}\n`);
    expect(await cliOk(["voice-caller-ids", "remove", "--account", account.username, "--number", CALLER], env)).toBe(
      `removed ${CALLER} from ${account.username}\n`,
    );
    const bad = await runCli(["voice-caller-ids", "approve", "--account", account.username, "--number", "12345"], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("is not a valid phone number");
    expect(bad.stderr).not.toMatch(STACK_TRACE);
  });
});

describeEachEngine("voice demo account", (engine) => {
  it("can place a call offline on first start, from the caller number the banner shows", async () => {
    const t = await startTestGateway(engine, { env: FAST_VOICE_SIMULATOR });
    try {
      const credentials = await bootstrapIfEmpty(t.db.store, t.clock);
      expect(credentials).toBeDefined();
      const banner = credentials!.demo.channels.join("\n");
      expect(banner).toContain(`caller number ${CALLER} approved`);
      expect(banner).toContain("/voicecall/v1/send?apikey=<api key>&from=%2B918047110000&to=9876543210");
      const demo = { id: 0, username: "demo", password: "", apiKey: credentials!.demo.api_key };
      const answer = await placeCall(t, "GET", {
        apikey: demo.apiKey,
        from: CALLER,
        to: "9876543210",
        text: "Hello from Switchboard",
      });
      expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
      const report = await waitForCall(t, demo, answer.text, (r) => r.status === "delivered");
      expect(report).toMatchObject({ sender_id: CALLER, call: { status: "completed" } });
    } finally {
      await t.gateway.stop();
      await t.db.drop();
    }
  });
});
