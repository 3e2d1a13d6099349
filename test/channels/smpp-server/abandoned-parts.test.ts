// Every part of a long message answered ESME_ROK that asked for a receipt ends in one (audit ch
// M1, M4), and submit_multi's receipts name the id its answer gave (M3), through real binds on
// both engines: a message refused on its last part gets stat:REJECTD (message_state 8, err the
// last part's command_status) for the parts answered before; parts whose 60 s ran out (on the
// gateway's manual clock) stat:EXPIRED (3); parts whose bind closed first stat:UNDELIV (5), sent
// to the account's next receiver bind. A completed message owes one receipt per part that asked
// (each part's own registered_delivery, a part sent twice counted once).
import type { Pdu } from "smpp";
import { expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeEachEngine } from "../../helpers/engines.js";
import type { TestGateway } from "../../helpers/gateway.js";
import { boundEsme, type EsmeClient, type SmppAccount, smppAccount, until, useSmppTestGateway } from "./client.js";

const SB_NO_CREDITS = 0x403;

/** Part `sequence` of `total` (8-bit UDH reference `reference`), GSM-7 text. */
function part(reference: number, sequence: number, total: number, registered: number, to = "9876543210") {
  return {
    source_addr: "SWBRD",
    destination_addr: to,
    esm_class: 0x40,
    data_coding: 0,
    registered_delivery: registered,
    short_message: Buffer.concat([
      Buffer.from([0x05, 0x00, 0x03, reference, total, sequence]),
      Buffer.from(`part ${sequence}`, "latin1"),
    ]),
  };
}

function textOf(pdu: Pdu): string {
  const message = pdu.short_message as { message?: string | Buffer } | string | Buffer;
  if (typeof message === "string" || Buffer.isBuffer(message)) return message.toString();
  return String(message.message);
}

async function outboxRows(t: TestGateway, id: string): Promise<number> {
  const rows = await t.db.store.db.selectFrom("smpp_outbox").select("id").where("message_id", "=", id).execute();
  return rows.length;
}

async function statusOf(t: TestGateway, id: string): Promise<string | undefined> {
  const row = await t.db.store.db.selectFrom("messages").select("status").where("id", "=", id).executeTakeFirst();
  return row?.status;
}

/** The receipts for `id` once the message is final and every receipt it owed was taken. */
async function receiptsFor(t: TestGateway, client: EsmeClient, id: string): Promise<Pdu[]> {
  await until(async () => (await statusOf(t, id)) === "delivered" && (await outboxRows(t, id)) === 0, 20_000, "final");
  return client.accepted.filter((pdu) => pdu.receipted_message_id === id);
}

function account(t: TestGateway, sms = 10): Promise<SmppAccount> {
  return smppAccount(t, {}, { credits: { sms } });
}

describeEachEngine("SMPP server: every part answered ESME_ROK gets its receipt", (engine) => {
  const clock = new ManualClock(new Date());
  const gateway = useSmppTestGateway(engine, {
    clock,
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });
  let reference = 0;

  it("sends stat:REJECTD for the parts answered before the last part was refused", async () => {
    const t = gateway();
    const client = await boundEsme(t, await account(t, 0));
    const ref = ++reference;
    const first = await client.submit(part(ref, 1, 3, 1));
    const second = await client.submit(part(ref, 2, 3, 2));
    expect([first.command_status, second.command_status]).toEqual([0, 0]);
    const id = first.message_id as string;
    expect(second.message_id).toBe(id);
    const last = await client.submit(part(ref, 3, 3, 1));
    expect(last.command_status).toBe(SB_NO_CREDITS);
    const receipts = await client.waitDelivered(2);
    expect(receipts.map((pdu) => [pdu.receipted_message_id, pdu.message_state, pdu.source_addr])).toEqual([
      [id, 8, "9876543210"],
      [id, 8, "9876543210"],
    ]);
    expect(receipts[0]!.destination_addr).toBe("SWBRD");
    expect(textOf(receipts[0]!)).toMatch(
      new RegExp(`^id:${id} sub:001 dlvrd:000 .* stat:REJECTD err:403 text:part 1part 2$`),
    );
    expect(await statusOf(t, id)).toBeUndefined();
    await until(async () => (await outboxRows(t, id)) === 0, 20_000, "receipts taken");
    expect(client.delivered).toHaveLength(2);
  }, 60_000);

  it("sends stat:EXPIRED for parts whose 60 s ran out, one per part that asked (a part sent twice once)", async () => {
    const t = gateway();
    const client = await boundEsme(t, await account(t));
    const ref = ++reference;
    const answers = [
      await client.submit(part(ref, 1, 3, 1)),
      await client.submit(part(ref, 2, 3, 0)),
      await client.submit(part(ref, 2, 3, 1)),
      await client.submit(part(ref, 1, 3, 1)),
    ];
    expect(answers.map((a) => a.command_status)).toEqual([0, 0, 0, 0]);
    const id = answers[0]!.message_id as string;
    clock.advance(61_000);
    const receipts = await client.waitDelivered(2);
    expect(receipts.map((pdu) => [pdu.receipted_message_id, pdu.message_state])).toEqual([
      [id, 3],
      [id, 3],
    ]);
    expect(textOf(receipts[0]!)).toMatch(/ stat:EXPIRED err:000 text:part 1part 2$/);
    // The message is gone: its last part starts a new one.
    const late = await client.submit(part(ref, 3, 3, 0));
    expect(late.command_status).toBe(0);
    expect(late.message_id).not.toBe(id);
    await until(async () => (await outboxRows(t, id)) === 0, 20_000, "receipts taken");
    expect(client.delivered).toHaveLength(2);
  }, 60_000);

  it("sends stat:UNDELIV to the next receiver bind when the parts' bind closed first", async () => {
    const t = gateway();
    const holder = await account(t);
    const sender = await boundEsme(t, holder, "transmitter");
    const ref = ++reference;
    const answer = await sender.submit(part(ref, 1, 2, 2));
    expect(answer.command_status).toBe(0);
    const id = answer.message_id as string;
    sender.destroy();
    await until(async () => (await outboxRows(t, id)) === 1, 20_000, "the receipt written");
    const receiver = await boundEsme(t, holder, "receiver");
    const [receipt] = await receiver.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(id);
    expect(receipt!.message_state).toBe(5);
    expect(textOf(receipt!)).toMatch(/ stat:UNDELIV err:000 text:part 1$/);
  }, 60_000);
});

// The simulated carrier reports on the gateway's clock: these run on the system's.
describeEachEngine("SMPP server: receipts of completed long messages and of submit_multi", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });
  let reference = 100;

  it("owes a completed message one receipt per part that asked, not the last part's flag times its parts", async () => {
    const t = gateway();
    const client = await boundEsme(t, await account(t));
    const send = async (flags: number[], to: string) => {
      const ref = ++reference;
      const answers = [];
      for (const [index, flag] of flags.entries()) {
        const sequence = index === flags.length - 1 ? 2 : 1;
        answers.push(await client.submit(part(ref, sequence, 2, flag, to)));
      }
      expect(answers.every((a) => a.command_status === 0)).toBe(true);
      return answers[0]!.message_id as string;
    };
    // Part 1 asked, part 2 did not: one receipt.
    const a = await send([1, 0], "9876543221");
    // Part 1 did not, part 2 did: one.
    const b = await send([0, 1], "9876543222");
    // Part 1 sent twice (three ESME_ROK for one id), then part 2, all asking: two.
    const c = await send([1, 1, 1], "9876543223");
    expect((await receiptsFor(t, client, a)).map((pdu) => pdu.message_state)).toEqual([2]);
    expect((await receiptsFor(t, client, b)).map((pdu) => pdu.message_state)).toEqual([2]);
    expect((await receiptsFor(t, client, c)).map((pdu) => pdu.message_state)).toEqual([2, 2]);
  }, 60_000);

  it("names submit_multi's broadcast id in its receipts, with each recipient as source_addr", async () => {
    const t = gateway();
    const client = await boundEsme(t, await account(t));
    const answer = await client.request("submit_multi", {
      source_addr: "SWBRD",
      dest_address: [
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543272" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543273" },
      ],
      registered_delivery: 1,
      data_coding: 0,
      short_message: Buffer.from("to both", "latin1"),
    });
    expect(answer.command_status).toBe(0);
    const broadcastId = answer.message_id as string;
    const receipts = await client.waitDelivered(2);
    expect(receipts.map((pdu) => pdu.receipted_message_id)).toEqual([broadcastId, broadcastId]);
    expect(receipts.map((pdu) => pdu.source_addr).sort()).toEqual(["9876543272", "9876543273"]);
    // The text's bytes are ASCII (data_coding 1): the package reads 1 as GSM 03.38 too, where 0x5f ("_") is "§".
    for (const pdu of receipts) {
      expect(textOf(pdu).replace(/§/g, "_")).toMatch(new RegExp(`^id:${broadcastId} .* stat:DELIVRD `));
    }
  }, 60_000);
});
