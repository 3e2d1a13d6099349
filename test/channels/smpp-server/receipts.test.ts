// Delivery receipts and MO messages over the SMPP server on both engines, with the `smpp` npm
// package as the ESME: a submit_sm with registered_delivery gets one deliver_sm receipt when the
// message reaches its final state (none for "submitted"), in the standard text (ASCII, labelled
// data_coding 1) with receipted_message_id and message_state; receipts and MO wait in smpp_outbox
// while no receiver is bound and leave in order when one binds; a row goes only when the client
// answered ESME_ROK.
import type { Pdu } from "smpp";
import { beforeAll, expect, it } from "vitest";
import { encodePdu, readDeliverSm, readMessageId } from "../../../src/base/smpp/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { assignNumber } from "../inbound/helpers.js";
import { boundEsme, type EsmeClient, smppAccount, smppPort, until, useSmppTestGateway } from "./client.js";
import { BIND_TRANSCEIVER, RawClient, SUBMIT_SM, submitBody } from "./raw-client.js";

const ESME_RX_T_APPN = 0x64;

describeEnginesTogether("SMPP server: delivery receipts and MO", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      // A refused receipt goes again after 2 s: time for a test to queue more behind it.
      SMPP_SERVER_DELIVER_RETRY_MS: "2000",
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
    },
  });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  it("sends one receipt per message, at its final state, with the standard text and its TLVs", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    const delivered = await submit(client, "9876543210", "receipt please", 1);
    const failed = await submit(client, "9876540001", "this one fails", 1);
    const unasked = await submit(client, "9876543211", "no receipt", 0);
    const failureOnlyDelivered = await submit(client, "9876543212", "failures only", 2);
    const failureOnlyFailed = await submit(client, "9876550001", "failures only", 2);
    await untilFinal(t, [delivered, failed, unasked, failureOnlyDelivered, failureOnlyFailed]);
    await until(async () => (await outboxIds(t, account.id)).length === 0 && client.delivered.length >= 3);
    // Exactly one receipt for each message that asked for one, none for "submitted".
    const receipts = client.delivered;
    expect(receipts.map((pdu) => pdu.receipted_message_id).sort()).toEqual(
      [delivered, failed, failureOnlyFailed].sort(),
    );
    const byId = new Map(receipts.map((pdu) => [pdu.receipted_message_id as string, pdu]));
    const ok = byId.get(delivered)!;
    expect(Number(ok.esm_class) & 0x04).toBe(0x04);
    expect(ok.message_state).toBe(2);
    expect(ok.source_addr).toBe("9876543210");
    expect(ok.destination_addr).toBe("SWBRD");
    expect(textOf(ok)).toMatch(
      new RegExp(
        `^id:${delivered} sub:001 dlvrd:001 submit date:\\d{10} done date:\\d{10} stat:DELIVRD err:000 text:receipt please$`,
      ),
    );
    for (const id of [failed, failureOnlyFailed]) {
      const bad = byId.get(id)!;
      expect(bad.message_state).toBe(5);
      expect(textOf(bad)).toMatch(new RegExp(`^id:${id} sub:001 dlvrd:000 .* stat:UNDELIV err:001 text:`));
    }
  });

  it("reports a carrier's rejection at submit as stat:REJECTD, message_state 8", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    // ...0002: the simulated carrier rejects the submit.
    const id = await submit(client, "9876500002", "rejected", 1);
    await untilFinal(t, [id]);
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(id);
    expect(receipt!.message_state).toBe(8);
    expect(textOf(receipt!)).toMatch(new RegExp(`^id:${id} sub:001 dlvrd:000 .* stat:REJECTD err:001 text:rejected$`));
  });

  it("keeps receipts while no receiver is bound and sends them in order when one binds", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const transmitter = await boundEsme(t, account, "transmitter");
    const ids: string[] = [];
    for (const recipient of ["9876543220", "9876540001", "9876543221", "9876543222"]) {
      ids.push(await submit(transmitter, recipient, `held for ${recipient}`, 1));
    }
    await untilFinal(t, ids);
    await until(async () => (await outboxIds(t, account.id)).length === ids.length);
    // Nothing went to the transmitter bind.
    expect(transmitter.delivered).toHaveLength(0);
    const stored = await t.db.store.db
      .selectFrom("smpp_outbox")
      .select(["id", "message_id", "kind"])
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(stored.every((row) => row.kind === "receipt")).toBe(true);
    expect(stored.map((row) => row.message_id).sort()).toEqual([...ids].sort());
    const receiver = await boundEsme(t, account, "receiver");
    await receiver.waitDelivered(ids.length);
    expect(receiver.delivered.map((pdu) => pdu.receipted_message_id)).toEqual(stored.map((row) => row.message_id));
    await until(async () => (await outboxIds(t, account.id)).length === 0);
    expect(receiver.delivered).toHaveLength(ids.length);
  });

  it("removes a receipt only once the client answered deliver_sm_resp with ESME_ROK", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    client.answerDeliver = () => ESME_RX_T_APPN;
    const id = await submit(client, "9876543230", "refused at first", 1);
    await client.waitDelivered(1);
    // Refused: the row is still there, and counts the attempt.
    await until(async () => {
      const row = await t.db.store.db
        .selectFrom("smpp_outbox")
        .select("attempts")
        .where("message_id", "=", id)
        .executeTakeFirst();
      return row !== undefined && row.attempts >= 1;
    });
    client.answerDeliver = () => 0;
    // Tried again after the pause, accepted this time: gone.
    await client.waitDelivered(2, 60_000);
    await until(async () => (await outboxIds(t, account.id)).length === 0, 30_000);
    expect(client.delivered.every((pdu) => pdu.receipted_message_id === id)).toBe(true);
  }, 90_000);

  it("sends a refused receipt again before the receipts queued after it: they leave in order", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    const first = await submit(client, "9876543280", "first", 1);
    let refusals = 0;
    // The first receipt is refused once; everything else is taken.
    client.answerDeliver = (pdu) => (pdu.receipted_message_id === first && refusals++ === 0 ? ESME_RX_T_APPN : 0);
    await until(() => refusals === 1, 20_000, "the first receipt refused");
    const later = [];
    for (const recipient of ["9876543281", "9876543282", "9876543283"]) {
      later.push(await submit(client, recipient, `after ${recipient}`, 1));
    }
    await untilFinal(t, later);
    // The later receipts are written while the first waits for its retry (2 s): they wait behind it.
    const queued = await t.db.store.db
      .selectFrom("smpp_outbox")
      .select("message_id")
      .where("account_id", "=", account.id)
      .orderBy("id")
      .execute();
    expect(queued[0]?.message_id).toBe(first);
    expect(
      queued
        .slice(1)
        .map((row) => row.message_id)
        .sort(),
    ).toEqual([...later].sort());
    expect(client.accepted).toEqual([]);
    await until(() => client.accepted.length === 4, 30_000, "every receipt taken");
    expect(client.accepted.map((pdu) => pdu.receipted_message_id)).toEqual(queued.map((row) => row.message_id));
    await until(async () => (await outboxIds(t, account.id)).length === 0);
  }, 60_000);

  it("labels a receipt's text data_coding 1 (ASCII), its bytes ASCII: @ and _ as 0x40 and 0x5f", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account, BIND_TRANSCEIVER);
    // "a@b_c" in GSM 03.38 septets (data_coding 0): 61 00 62 11 63.
    raw.send(encodePdu(SUBMIT_SM, 2, 0, submitBody("SWBRD", "9876543213", "a\u0000b\u0011c", 1)));
    const answer = await raw.next();
    expect(answer).toMatchObject({ commandId: 0x80000004, status: 0 });
    const id = readMessageId(answer.body);
    let receipt = await raw.next(20_000);
    while (receipt.commandId !== 0x00000005) receipt = await raw.next(20_000);
    raw.send(encodePdu(0x80000005, receipt.sequence, 0, Buffer.from([0])));
    const fields = readDeliverSm(receipt);
    expect(fields.esmClass).toBe(0x04);
    // What the bytes are: IA5/ASCII, so a client reading data_coding strictly reads "a@b_c", not "a¡b§c".
    expect(fields.dataCoding).toBe(1);
    const text = fields.shortMessage.toString("latin1");
    expect(text).toMatch(new RegExp(`^id:${id} sub:001 dlvrd:001 .* stat:DELIVRD err:000 text:a@b_c$`));
    expect(fields.shortMessage.subarray(-5)).toEqual(Buffer.from([0x61, 0x40, 0x62, 0x5f, 0x63]));
    expect(fields.tlvs.get(0x001e)?.toString("latin1")).toBe(`${id}\0`);
    raw.destroy();
  });

  it("delivers an MO message to the account's receiver, GSM-7 and UCS-2, held while none is bound", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    await assignNumber(t, operator, account, "9220502101");
    const simulator = t.gateway.workers!.simulator;
    // No receiver yet: it waits.
    await simulator.generateInbound({ to: "9220502101", from: "9876543240", message: "hello @ gateway" });
    await simulator.generateInbound({ to: "9220502101", from: "9876543241", message: "नमस्ते" });
    await until(async () => (await outboxIds(t, account.id)).length === 2);
    const receiver = await boundEsme(t, account, "receiver");
    const [plain, unicode] = await receiver.waitDelivered(2);
    expect(Number(plain!.esm_class) & 0x3c).toBe(0);
    expect(plain!.source_addr).toBe("9876543240");
    expect(plain!.destination_addr).toBe("9220502101");
    expect(plain!.data_coding).toBe(0);
    expect(textOf(plain!)).toBe("hello @ gateway");
    expect(unicode!.data_coding).toBe(8);
    expect(textOf(unicode!)).toBe("नमस्ते");
    await until(async () => (await outboxIds(t, account.id)).length === 0);
    // Bound now: the next one comes straight away.
    await simulator.generateInbound({ to: "9220502101", from: "9876543242", message: "third" });
    const third = (await receiver.waitDelivered(3))[2]!;
    expect(textOf(third)).toBe("third");
  });
});

async function submit(client: EsmeClient, destination: string, text: string, registered: number): Promise<string> {
  const answer = await client.submit({
    source_addr: "SWBRD",
    destination_addr: destination,
    short_message: text,
    registered_delivery: registered,
  });
  expect(answer.command_status).toBe(0);
  return answer.message_id as string;
}

/** The short_message as text (the smpp package decodes it by data_coding, GSM-7 and UCS-2). */
function textOf(pdu: Pdu): string {
  const message = pdu.short_message as { message?: string } | string | Buffer;
  if (typeof message === "string") return message;
  if (Buffer.isBuffer(message)) return message.toString("latin1");
  return String(message.message);
}

async function outboxIds(t: TestGateway, accountId: number): Promise<number[]> {
  const rows = await t.db.store.db.selectFrom("smpp_outbox").select("id").where("account_id", "=", accountId).execute();
  return rows.map((row) => Number(row.id));
}

async function untilFinal(t: TestGateway, ids: string[]): Promise<void> {
  await until(async () => {
    const rows = await t.db.store.db.selectFrom("messages").select("status").where("id", "in", ids).execute();
    return rows.length === ids.length && rows.every((row) => row.status === "delivered" || row.status === "failed");
  });
}
