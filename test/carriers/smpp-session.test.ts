// The SMPP session against the fake SMSC over TCP: binds, the window and the throughput cap,
// time-outs, reconnects, throttling, concatenated and UCS-2 parts, DLT TLVs, receipts and MO.
import { describe, expect, it } from "vitest";
import type { Receipt } from "../../src/carriers/smpp/receipt.js";
import type { PartResult } from "../../src/carriers/smpp/session.js";
import { boundSession, fakeSmsc, sessionTo } from "./smpp-helpers.js";

const sms = (text: string, n = 0) => ({ source: "SWITCH", destination: `+9198000${String(n).padStart(5, "0")}`, text });
const idOf = (part: PartResult | undefined) => (part && "messageId" in part ? part.messageId : null);

describe("bind", () => {
  it("binds as a transceiver with the account's credentials and submits", async () => {
    const { smsc, session } = await boundSession({ systemType: "SMPP" });
    expect(smsc.binds).toEqual([{ connection: 1, mode: "transceiver", systemId: "switchboard", accepted: true }]);
    const outcome = await session.submit(sms("Hello"));
    expect(outcome).toEqual({ dataCoding: 0, reference: null, parts: [{ messageId: smsc.submits[0]!.messageId }] });
    expect(smsc.submits[0]).toMatchObject({
      source: "SWITCH",
      sourceTon: 5,
      destination: "919800000000",
      dataCoding: 0,
      esmClass: 0,
      registeredDelivery: 1,
      udh: null,
      text: "Hello",
    });
  });

  it("binds a transmitter and a receiver when asked", async () => {
    const { smsc, session } = await boundSession({ bind: "transmitter+receiver" });
    expect(smsc.binds.map((bind) => bind.mode).sort()).toEqual(["receiver", "transmitter"]);
    const receipts: Receipt[] = [];
    session.onReceipt((receipt) => void receipts.push(receipt));
    const outcome = await session.submit(sms("tx"));
    smsc.sendReceipt(idOf(outcome.parts[0])!);
    await smsc.waitFor(() => receipts.length === 1);
    expect(receipts[0]?.upstreamId).toBe(idOf(outcome.parts[0]));
  });

  it("keeps retrying a refused bind with back-off, and fails submits as retryable", async () => {
    const smsc = await fakeSmsc();
    const session = sessionTo(smsc, { password: "wrong", queueTimeoutMs: 500 });
    await expect(session.waitBound(1_500)).rejects.toThrow(/ESME_RINVPASWD/);
    expect(smsc.binds.length).toBeGreaterThanOrEqual(2);
    expect(smsc.binds.every((bind) => !bind.accepted)).toBe(true);
    const outcome = await session.submit(sms("never"));
    expect(outcome.parts).toEqual([
      { error: "not_sent", message: expect.stringContaining("ESME_RINVPASWD"), retryable: true },
    ]);
    expect(smsc.submits).toHaveLength(0);
  });

  it("unbinds on stop", async () => {
    const { smsc, session } = await boundSession();
    await session.stop();
    expect(smsc.unbinds).toBe(1);
  });
});
