// kill -9 of a real `switchboard start` between a chain's steps: after the restart the next step
// still goes once, at the due time stored before the crash. And a step whose send was stored but
// not recorded (the process died in between) is taken over and finds the same message.
import { expect, it } from "vitest";
import { systemClock } from "../../../src/base/core/clock.js";
import { updateWhatsAppSettings } from "../../../src/channels/whatsapp/settings.js";
import { walletBalance } from "../../../src/domain/accounts/index.js";
import { until } from "../../domain/webhooks/receiver.js";
import type { ServerProcess } from "../../helpers/cli.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { pipelineAccount, useKilledServers } from "../../helpers/killed-servers.js";
import { SMS_STEP, WHATSAPP_STEP } from "./helpers.js";

// The engines' suites run at the same time: their time is waits for processes and a step's deadline.
describeEnginesTogether("fallback send across a crash", (engine) => {
  const servers = useKilledServers(engine);
  let server: ServerProcess;

  it("sends the next step exactly once after kill -9, at its stored due time", async () => {
    const db = servers.db();
    const account = await pipelineAccount(db, "chains", { sms: 10, whatsapp: 10 });
    await updateWhatsAppSettings(db.store.db, systemClock, account.id, {
      enabled: true,
      phone_number_id: "300000000777",
      display_phone_number: "15550001234",
      waba_id: "300000000001",
      access_token: "simulated",
    });
    const env = {
      DATABASE_URL: db.url,
      WHATSAPP_SIMULATOR_LATENCY_MS: "40",
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
      CHAIN_POLL_MS: "50",
    };
    server = await servers.start(env);
    const v2 = async (method: string, path: string, json?: unknown) => {
      const response = await fetch(`${server.url}/api/v2${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${account.api_key}` },
        ...(json === undefined ? {} : { body: JSON.stringify(json) }),
      });
      return (await response.json()) as { data: { chain_id: string; status: string; steps: Step[] } };
    };
    type Step = { message_id: string | null; status: string; decides_at: string | null };

    // ...0001 is delivered and never read: the SMS goes when the 6 s deadline passes.
    const started = await v2("POST", "/send", {
      recipient: "919876500001",
      steps: [WHATSAPP_STEP, { ...SMS_STEP, to: "9876512345", after: { on: "not_read", within_seconds: 6 } }],
    });
    const chainId = started.data.chain_id;
    const deadline = Date.parse(started.data.steps[1]!.decides_at!);
    await until(async () => (await v2("GET", `/send/${chainId}`)).data.steps[0]!.status === "delivered");
    expect(Date.now()).toBeLessThan(deadline);
    await server.stop("SIGKILL");

    server = await servers.start(env);
    let chain = await v2("GET", `/send/${chainId}`);
    await until(async () => {
      chain = await v2("GET", `/send/${chainId}`);
      return chain.data.status === "completed";
    }, 20_000);
    expect(chain.data.steps.map((s) => s.status)).toEqual(["delivered", "delivered"]);
    const sms = await db.store.db
      .selectFrom("messages")
      .select(["id", "created_at"])
      .where("account_id", "=", account.id)
      .where("channel", "=", "sms")
      .execute();
    expect(sms).toHaveLength(1);
    expect(sms[0]!.id).toBe(chain.data.steps[1]!.message_id);
    expect(Number(sms[0]!.created_at)).toBeGreaterThanOrEqual(deadline);
    expect(await walletBalance(db.store.db, account.id, "sms")).toBe(9_000);

    // As if the process had died after the SMS was stored but before the step recorded it: the
    // step is sending with its lease run out. The pass takes it over and finds the same message.
    await db.store.db
      .updateTable("chain_steps")
      .set({ status: "sending", message_id: null, due_at: Date.now() - 1, decided_at: null, sent_at: null })
      .where("chain_id", "=", chainId)
      .where("position", "=", 1)
      .execute();
    await db.store.db
      .updateTable("send_chains")
      .set({ status: "running", outcome: null, completed_at: null })
      .where("id", "=", chainId)
      .execute();
    await until(async () => (await v2("GET", `/send/${chainId}`)).data.status === "completed", 20_000);
    const again = await v2("GET", `/send/${chainId}`);
    expect(again.data.steps[1]!.message_id).toBe(sms[0]!.id);
    const smsAfter = await db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .where("channel", "=", "sms")
      .execute();
    expect(smsAfter).toHaveLength(1);
    expect(await walletBalance(db.store.db, account.id, "sms")).toBe(9_000);
  }, 120_000);
});
