// The SMPP session against the fake SMSC over TCP: binds, the window and the throughput cap,
// time-outs, reconnects, throttling, concatenated and UCS-2 parts, DLT TLVs, receipts and MO.
import smpp from "smpp";
import { describe, expect, it } from "vitest";
import { decodeText } from "../../../src/base/smpp/index.js";
import type { InboundSmppMessage } from "../../../src/delivery/carriers/smpp/inbound.js";
import { SmppSessionPool } from "../../../src/delivery/carriers/smpp/pool.js";
import type { Receipt } from "../../../src/delivery/carriers/smpp/receipt.js";
import type { PartResult } from "../../../src/delivery/carriers/smpp/session.js";
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

  it("on stop, waits for the responses outstanding, fails the parts not sent as retryable, and unbinds", async () => {
    const { smsc, session } = await boundSession({ window: 2 });
    smsc.responseDelayMs = 200;
    const pending = Array.from({ length: 5 }, (_, n) => session.submit(sms(`stop ${n}`, n)));
    await smsc.waitFor(() => smsc.submits.length === 2);
    await session.stop();
    const parts = (await Promise.all(pending)).map((outcome) => outcome.parts[0]);
    expect(parts.slice(0, 2).map(idOf)).toEqual(smsc.submits.map((submit) => submit.messageId));
    expect(parts.slice(2)).toEqual(Array(3).fill({ error: "stopped", message: expect.any(String), retryable: true }));
    expect(smsc.unbinds).toBe(1);
    expect(await session.submit(sms("late"))).toMatchObject({ parts: [{ error: "stopped", retryable: true }] });
  });
});

describe("flow control", () => {
  it("never has more submit_sm outstanding than the window", async () => {
    const { smsc, session } = await boundSession({ window: 4 });
    smsc.responseDelayMs = 100;
    const outcomes = await Promise.all(Array.from({ length: 30 }, (_, n) => session.submit(sms(`window ${n}`, n))));
    expect(outcomes.every((outcome) => idOf(outcome.parts[0]))).toBe(true);
    expect(smsc.submits).toHaveLength(30);
    expect(smsc.peakWaiting).toBe(4);
    expect(session.peakOutstanding).toBe(4);
  });

  it("keeps to the throughput cap: 100 submits at 50/s take about 2 s", async () => {
    const { smsc, session } = await boundSession({ window: 20, throughputPerSecond: 50 });
    const started = Date.now();
    await Promise.all(Array.from({ length: 100 }, (_, n) => session.submit(sms(`cap ${n}`, n))));
    const elapsed = Date.now() - started;
    expect(smsc.submits).toHaveLength(100);
    expect(elapsed).toBeGreaterThanOrEqual(1_900);
    const span = smsc.submits[99]!.receivedAt - smsc.submits[0]!.receivedAt;
    expect(span).toBeGreaterThanOrEqual(1_900);
  });

  it("fails a PDU that gets no answer as retryable and ignores the late response", async () => {
    const { smsc, session } = await boundSession({ responseTimeoutMs: 300 });
    smsc.next(1, "hang");
    const [hung, next] = await Promise.all([session.submit(sms("hung")), session.submit(sms("next", 1))]);
    expect(hung.parts).toEqual([{ error: "timeout", message: expect.stringContaining("300 ms"), retryable: true }]);
    expect(idOf(next.parts[0])).toBeTruthy();
    expect(session.status()).toMatchObject({ bound: true, outstanding: 0 });
  });

  it("ignores a response that comes after the time-out", async () => {
    const { smsc, session } = await boundSession({ responseTimeoutMs: 200 });
    smsc.next(1, { late: 600 });
    const late = await session.submit(sms("late"));
    expect(late.parts).toEqual([{ error: "timeout", message: expect.any(String), retryable: true }]);
    await smsc.waitFor(() => smsc.submits[0]!.messageId !== null, 5_000, "the late answer");
    const next = await session.submit(sms("next"));
    expect(idOf(next.parts[0])).toBe(smsc.submits[1]!.messageId);
    expect(idOf(next.parts[0])).not.toBe(smsc.submits[0]!.messageId);
    expect(session.status()).toMatchObject({ bound: true, binds: 1, outstanding: 0 });
  });

  it("retries throttled and queue-full answers after a back-off, in order", async () => {
    const { smsc, session } = await boundSession({ window: 1, throttleBackoffMs: 100 });
    smsc.next(2, "throttle").next(1, "ok").next(1, "queue_full");
    const outcomes = await Promise.all(["a", "b", "c"].map((text, n) => session.submit(sms(text, n))));
    expect(outcomes.map((outcome) => idOf(outcome.parts[0]))).toEqual(
      smsc.submits.filter((submit) => submit.messageId).map((submit) => submit.messageId),
    );
    expect(smsc.submits.map((submit) => `${submit.text}:${submit.answer}`)).toEqual([
      "a:throttle",
      "a:throttle",
      "a:ok",
      "b:queue_full",
      "b:ok",
      "c:ok",
    ]);
    const gap = (i: number) => smsc.submits[i]!.receivedAt - smsc.submits[i - 1]!.receivedAt;
    // 100 ms after the first throttle, doubled for each in a row; a success resets it.
    expect(gap(1)).toBeGreaterThanOrEqual(90);
    expect(gap(2)).toBeGreaterThanOrEqual(190);
    expect(gap(4)).toBeGreaterThanOrEqual(90);
  });

  it("gives up on a part throttled too often, as retryable", async () => {
    const { smsc, session } = await boundSession({ throttleBackoffMs: 20, maxThrottleRetries: 2 });
    smsc.next(3, "throttle");
    const outcome = await session.submit(sms("busy"));
    expect(outcome.parts).toEqual([{ error: "ESME_RTHROTTLED", message: expect.any(String), retryable: true }]);
    expect(smsc.submits).toHaveLength(3);
  });

  it("fails a refused message as final and a system error as retryable", async () => {
    const { smsc, session } = await boundSession();
    smsc.next(1, { status: 0x0b }).next(1, { status: 0x08 });
    const refused = await session.submit(sms("bad address"));
    const broken = await session.submit(sms("system error"));
    expect(refused.parts).toEqual([{ error: "ESME_RINVDSTADR", message: expect.any(String), retryable: false }]);
    expect(broken.parts).toEqual([{ error: "ESME_RSYSERR", message: expect.any(String), retryable: true }]);
  });
  it("fails a part the library cannot encode as final, and goes on", async () => {
    const { smsc, session } = await boundSession();
    const outcome = await session.submit({ ...sms("x"), dltEntityId: "1".repeat(70_000), dltTemplateId: "1" });
    expect(outcome.parts).toEqual([{ error: "unencodable", message: expect.any(String), retryable: false }]);
    expect(idOf((await session.submit(sms("fine"))).parts[0])).toBe(smsc.submits[0]!.messageId);
  });
});

describe("reconnect", () => {
  it("loses no PDU when the SMSC drops mid-window, then rebinds and sends the rest", async () => {
    const { smsc, session } = await boundSession({ window: 5, responseTimeoutMs: 5_000 });
    smsc.responseDelayMs = 50;
    smsc.next(7, "ok").next(1, "drop");
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, n) => session.submit(sms(`m${n}`, n))));
    const parts = outcomes.map((outcome) => outcome.parts[0]!);
    const acknowledged = parts.filter((part) => "messageId" in part);
    const retryable = parts.filter((part) => "retryable" in part && part.retryable);
    expect(acknowledged.length + retryable.length).toBe(20);
    expect(retryable.length).toBeGreaterThan(0);
    expect(retryable.every((part) => "error" in part && part.error === "connection_lost")).toBe(true);
    // Every id handed back is one the SMSC issued; nothing acknowledged was reported failed.
    const issued = new Set(smsc.submits.map((submit) => submit.messageId).filter(Boolean));
    expect(acknowledged.every((part) => issued.has(idOf(part)))).toBe(true);
    expect(smsc.binds.filter((bind) => bind.accepted).length).toBe(2);
    const after = await session.submit(sms("after"));
    expect(idOf(after.parts[0])).toBeTruthy();
  });

  it("sends enquire_link when the link is quiet and reconnects when it goes unanswered", async () => {
    const { smsc, session } = await boundSession({ enquireLinkSeconds: 0.2, responseTimeoutMs: 300 });
    await smsc.waitFor(() => smsc.enquireLinks >= 2, 5_000, "two enquire_link");
    expect(smsc.binds).toHaveLength(1);
    smsc.answerEnquireLink = false;
    await smsc.waitFor(() => smsc.binds.length >= 2, 5_000, "a second bind");
    await session.waitBound(5_000);
    expect(session.status().binds).toBe(2);
  });

  it("answers the SMSC's unbind and binds again", async () => {
    const { smsc, session } = await boundSession();
    smsc.unbindAll();
    await smsc.waitFor(() => smsc.binds.length === 2, 5_000, "a second bind");
    await session.waitBound(5_000);
    const outcome = await session.submit(sms("after unbind"));
    expect(idOf(outcome.parts[0])).toBe(smsc.submits[0]!.messageId);
  });

  it("answers the SMSC's enquire_link", async () => {
    const { smsc } = await boundSession();
    expect(await smsc.enquireLink()).toBe(0);
  });
});

describe("long messages and DLT", () => {
  it("sends a 1,000-character text the library could not take whole as seven parts", async () => {
    expect(() => new smpp.PDU("submit_sm", { short_message: Buffer.alloc(300) }).toBuffer()).toThrow(RangeError);
    const { smsc, session } = await boundSession();
    const text = "0123456789".repeat(100);
    const outcome = await session.submit(sms(text));
    expect(outcome.parts.map(idOf).every(Boolean)).toBe(true);
    expect(smsc.submits.map((submit) => submit.udh?.[5])).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(smsc.submits.map((submit) => submit.text).join("")).toBe(text);
  });

  it("splits long GSM text into parts with a shared reference that reassemble", async () => {
    const { smsc, session } = await boundSession();
    const text = `${"Your order [#42] is ready. ".repeat(12)}€`;
    const outcome = await session.submit({ ...sms(text), reference: 0x33 });
    expect(outcome.reference).toBe(0x33);
    expect(outcome.parts).toHaveLength(3);
    expect(smsc.submits.map((submit) => submit.udh?.toString("hex"))).toEqual([
      "050003330301",
      "050003330302",
      "050003330303",
    ]);
    expect(smsc.submits.every((submit) => submit.esmClass === 0x40 && submit.dataCoding === 0)).toBe(true);
    expect(smsc.submits.map((submit) => submit.text).join("")).toBe(text);
    expect(outcome.parts.map(idOf)).toEqual(smsc.submits.map((submit) => submit.messageId));
  });

  it("sends UCS-2 text with data_coding 8, emoji kept whole", async () => {
    const { smsc, session } = await boundSession();
    const text = `नमस्ते 😀 ${"आपका ऑर्डर तैयार है। ".repeat(5)}`;
    const outcome = await session.submit(sms(text));
    expect(outcome.dataCoding).toBe(8);
    expect(outcome.parts.length).toBe(smsc.submits.length);
    expect(smsc.submits.length).toBeGreaterThan(1);
    expect(smsc.submits.every((submit) => submit.dataCoding === 8)).toBe(true);
    expect(smsc.submits.map((submit) => submit.text).join("")).toBe(text);
    expect(decodeText(Buffer.from("0905", "hex"), 8)).toBe("अ");
  });

  it("puts the DLT entity and template ids on every part, under the configured tags", async () => {
    const { smsc, session } = await boundSession({ dltTags: { entityId: 0x1400, templateId: 0x1401 } });
    await session.submit({ ...sms("x".repeat(200)), dltEntityId: "1201159100000000001", dltTemplateId: "1207161" });
    expect(smsc.submits).toHaveLength(2);
    for (const submit of smsc.submits) {
      expect(submit.tlvs).toEqual({ 5120: "1201159100000000001", 5121: "1207161" });
    }
    await session.submit({
      ...sms("other tags"),
      dltEntityId: "E",
      dltTemplateId: "T",
      tlvTags: { templateId: 0x1402 },
    });
    expect(smsc.submits[2]?.tlvs).toEqual({ 5120: "E", 5122: "T" });
    await session.submit(sms("no DLT"));
    expect(smsc.submits[3]?.tlvs).toEqual({});
  });

  it("ends the DLT ids with a NUL for a carrier that wants C-Octet Strings", async () => {
    const { smsc, session } = await boundSession({ dltNulTerminated: true });
    await session.submit({ ...sms("hello"), dltEntityId: "1201159100000000001", dltTemplateId: "1207161" });
    expect(smsc.submits[0]?.tlvs).toEqual({ 5120: "1201159100000000001\0", 5121: "1207161\0" });
  });
});

describe("receipts and MO", () => {
  it("hands each part's receipt over, in any order, with its part id", async () => {
    const { smsc, session } = await boundSession();
    const receipts: Receipt[] = [];
    session.onReceipt((receipt) => void receipts.push(receipt));
    const outcome = await session.submit(sms("y".repeat(400)));
    const ids = outcome.parts.map(idOf) as string[];
    expect(ids).toHaveLength(3);
    smsc.sendReceipt(ids[2]!, { stat: "DELIVRD" });
    smsc.sendReceipt(ids[0]!, { stat: "UNDELIV", err: "034", withTlvs: true });
    await smsc.waitFor(() => receipts.length === 2, 5_000, "two receipts");
    smsc.sendReceipt(ids[1]!, { stat: "DELIVRD", withTlvs: true });
    await smsc.waitFor(() => receipts.length === 3, 5_000, "three receipts");
    expect(receipts.map((receipt) => [receipt.upstreamId, receipt.status, receipt.err])).toEqual([
      [ids[2], "delivered", "000"],
      [ids[0], "failed", "034"],
      [ids[1], "delivered", "000"],
    ]);
    // Each receipt is answered once the sink took it: the third answer may still be on its way.
    await smsc.waitFor(() => smsc.deliverAnswers.length === 3, 5_000, "three deliver_sm answers");
    expect(smsc.deliverAnswers).toEqual([0, 0, 0]);
  });

  it("answers a receipt the sink could not take with a temporary error, so the SMSC sends it again", async () => {
    const { smsc, session } = await boundSession();
    session.onReceipt(() => Promise.reject(new Error("database down")));
    smsc.sendReceipt("abc");
    await smsc.waitFor(() => smsc.deliverAnswers.length === 1);
    expect(smsc.deliverAnswers).toEqual([0x64]);
  });

  it("delivers MO messages, concatenated ones reassembled, and acknowledges them once stored", async () => {
    const { smsc, session } = await boundSession();
    const inbound: InboundSmppMessage[] = [];
    session.onInbound(async (message) => {
      inbound.push(message);
    });
    smsc.sendMo("919812345678", "919000000001", "STOP {all}");
    smsc.sendMo("919812345678", "919000000001", `नमस्ते ${"दुनिया ".repeat(20)}`, { ucs2: true, parts: 3 });
    await smsc.waitFor(() => inbound.length === 2, 5_000, "two MO messages");
    expect(inbound[0]).toMatchObject({ from: "919812345678", to: "919000000001", text: "STOP {all}", parts: 1 });
    expect(inbound[1]).toMatchObject({ text: `नमस्ते ${"दुनिया ".repeat(20)}`, dataCoding: 8, parts: 3 });
    await smsc.waitFor(() => smsc.deliverAnswers.length === 4);
    expect(smsc.deliverAnswers).toEqual([0, 0, 0, 0]);
  });
});

describe("several connections", () => {
  it("binds every connection and spreads messages over them, each within its own window", async () => {
    const smsc = await fakeSmsc();
    smsc.responseDelayMs = 50;
    const pool = new SmppSessionPool(
      { host: "127.0.0.1", port: smsc.port, systemId: smsc.systemId, password: smsc.password, window: 2 },
      3,
    );
    pool.start();
    try {
      await Promise.all(pool.sessions.map((session) => session.waitBound(10_000)));
      expect(smsc.boundConnections).toBe(3);
      const receipts: Receipt[] = [];
      pool.onReceipt((receipt) => void receipts.push(receipt));
      const outcomes = await Promise.all(Array.from({ length: 24 }, (_, n) => pool.submit(sms(`pool ${n}`, n))));
      expect(outcomes.every((outcome) => idOf(outcome.parts[0]))).toBe(true);
      expect(new Set(smsc.submits.map((submit) => submit.connection)).size).toBe(3);
      expect(smsc.peakWaiting).toBeLessThanOrEqual(2);
      smsc.sendReceipt(idOf(outcomes[5]!.parts[0])!);
      await smsc.waitFor(() => receipts.length === 1);
      const inbound: InboundSmppMessage[] = [];
      pool.onInbound((message) => void inbound.push(message));
      smsc.sendMo("919812345678", "919000000001", "first half, second half", { parts: 2, spread: true });
      await smsc.waitFor(() => inbound.length === 1, 5_000, "the MO message");
      expect(inbound[0]).toMatchObject({ text: "first half, second half", parts: 2 });
    } finally {
      await pool.stop();
    }
    expect(smsc.unbinds).toBe(3);
  });
});
