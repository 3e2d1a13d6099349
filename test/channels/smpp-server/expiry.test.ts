// A message submitted over SMPP whose carrier never reports it fails as expired after
// MESSAGE_VALIDITY_HOURS, on a manual clock through the real gateway on both engines: its
// receipt says stat:EXPIRED with message_state 3 (EXPIRED), dated when it expired.
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { useTestGateway } from "../../helpers/gateway.js";
import { boundEsme, smppAccount, until } from "./client.js";

const HOUR = 60 * 60 * 1000;

describeEachEngine("SMPP server: the receipt of an expired message", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0" },
  });

  it("sends stat:EXPIRED and message_state 3 when the carrier never reported", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    // ...0006: the simulated carrier takes the message and never reports it.
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876500006",
      short_message: "never reported",
      registered_delivery: 1,
    });
    expect(answer.command_status).toBe(0);
    const id = answer.message_id as string;
    const statusOf = async () =>
      (await t.db.store.db.selectFrom("messages").select("status").where("id", "=", id).executeTakeFirstOrThrow())
        .status;
    await until(async () => (await statusOf()) === "submitted", 20_000, "submitted");
    // Submitted is no final state: no receipt. One would be in smpp_outbox, written with the
    // status, until the ESME answered it (and then in client.delivered).
    const receipts = await t.db.store.db.selectFrom("smpp_outbox").select("id").where("message_id", "=", id).execute();
    expect(receipts).toEqual([]);
    expect(client.delivered).toEqual([]);
    clock.advance(48 * HOUR + 60_000);
    await until(async () => (await statusOf()) === "failed", 20_000, "expired");
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(id);
    expect(receipt!.message_state).toBe(3);
    expect(receipt!.source_addr).toBe("9876500006");
    const message = receipt!.short_message as { message?: string } | string;
    const text = typeof message === "string" ? message : String(message.message);
    expect(text).toMatch(
      new RegExp(
        `^id:${id} sub:001 dlvrd:000 submit date:2611220630 done date:2611240631 stat:EXPIRED err:000 text:never reported$`,
      ),
    );
  }, 60_000);
});
