// What a client's submits may look like, on both engines with the `smpp` npm package: a long
// message in parts (UDH concatenation, SAR TLVs) or whole in message_payload becomes one
// message with one id; data_coding 0 (GSM 03.38) and 8 (UCS-2) are read as such; submit_multi
// answers the broadcast id and names each refused destination with its command_status;
// scheduled delivery is refused with ESME_RINVSCHED.
import { expect, it } from "vitest";
import { encodeGsm7 } from "../../../src/base/smpp/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { boundEsme, smppAccount } from "./client.js";

const ESME_RINVDSTADR = 0x0b;
const ESME_RINVSCHED = 0x61;
const ESME_RINVDCS = 0x104;

describeEachEngine("SMPP server: long messages, data_coding, submit_multi", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });

  it("joins UDH-concatenated GSM-7 parts into one message with one id, whatever order they come in", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const parts = ["A".repeat(153), `${"B".repeat(150)}{@}`, "the end €"];
    const answers = [];
    for (const [index, sequence] of [
      [2, 3],
      [0, 1],
      [1, 2],
    ] as const) {
      const udh = Buffer.from([0x05, 0x00, 0x03, 0x2a, 3, sequence]);
      answers.push(
        await client.submit({
          source_addr: "SWBRD",
          destination_addr: "9876543210",
          esm_class: 0x40,
          data_coding: 0,
          short_message: Buffer.concat([udh, encodeGsm7(parts[index]!)]),
        }),
      );
    }
    expect(answers.map((a) => a.command_status)).toEqual([0, 0, 0]);
    const ids = new Set(answers.map((a) => a.message_id));
    expect(ids.size).toBe(1);
    const row = await messageRow(t, answers[2]!.message_id as string);
    expect(row).toMatchObject({ body: parts.join(""), account_id: account.id });
    expect(row.segments).toBeGreaterThanOrEqual(3);
    expect(await countMessages(t, account.id)).toBe(1);
  });

  it("joins UCS-2 parts sent with the SAR TLVs, data_coding 8", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const parts = ["नमस्ते ".repeat(10), "दुनिया ".repeat(5)];
    const answers = [];
    for (const [index, part] of parts.entries()) {
      answers.push(
        await client.submit({
          source_addr: "SWBRD",
          destination_addr: "9876543211",
          data_coding: 8,
          short_message: Buffer.from(part, "utf16le").swap16(),
          sar_msg_ref_num: 0x1234,
          sar_total_segments: 2,
          sar_segment_seqnum: index + 1,
        }),
      );
    }
    expect(answers.map((a) => a.command_status)).toEqual([0, 0]);
    expect(answers[0]!.message_id).toBe(answers[1]!.message_id);
    const row = await messageRow(t, answers[1]!.message_id as string);
    expect(row.body).toBe(parts.join(""));
    expect(row.encoding).toBe("ucs2");
  });

  it("takes a long message whole from message_payload, GSM-7 and UCS-2", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 20 } });
    const client = await boundEsme(t, account, "transmitter");
    const text = `${"Your order has shipped. ".repeat(15)}[done]`;
    const gsm = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543212",
      data_coding: 0,
      message_payload: encodeGsm7(text),
    });
    expect(gsm.command_status).toBe(0);
    const gsmRow = await messageRow(t, gsm.message_id as string);
    expect(gsmRow.body).toBe(text);
    expect(gsmRow.segments).toBe(3);
    expect(gsmRow.encoding).toBe("gsm7");
    const hindi = "आपका ऑर्डर भेज दिया गया है। ".repeat(4);
    const ucs2 = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543213",
      data_coding: 8,
      message_payload: Buffer.from(hindi, "utf16le").swap16(),
    });
    expect(ucs2.command_status).toBe(0);
    const ucs2Row = await messageRow(t, ucs2.message_id as string);
    expect(ucs2Row.body).toBe(hindi);
    expect(ucs2Row.encoding).toBe("ucs2");
    expect(ucs2Row.segments).toBeGreaterThan(1);
  });

  it("reads short_message by data_coding: 0 as GSM 03.38, 8 as UCS-2", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const gsm = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543214",
      data_coding: 0,
      short_message: encodeGsm7("Price: 10€ @ shop_1"),
    });
    expect(gsm.command_status).toBe(0);
    expect((await messageRow(t, gsm.message_id as string)).body).toBe("Price: 10€ @ shop_1");
    const ucs2 = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543215",
      data_coding: 8,
      short_message: Buffer.from("Привет 👋", "utf16le").swap16(),
    });
    expect(ucs2.command_status).toBe(0);
    const row = await messageRow(t, ucs2.message_id as string);
    expect(row.body).toBe("Привет 👋");
    expect(row.encoding).toBe("ucs2");
    const odd = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543215",
      data_coding: 8,
      short_message: Buffer.from([0x04, 0x1f, 0x04]),
    });
    expect(odd.command_status).not.toBe(0);
  });

  it("refuses data_coding 0 bytes that are no GSM 03.38 septet with ESME_RINVDCS, not rewriting them", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const submit = (bytes: number[]) =>
      client.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543219",
        data_coding: 0,
        short_message: Buffer.from(bytes),
      });
    // "café \x80" in Latin-1 was sent as "cafi @"; an escape before a code of no extension as a space.
    expect((await submit([0x63, 0x61, 0x66, 0xe9, 0x20, 0x80])).command_status).toBe(ESME_RINVDCS);
    expect((await submit([0x61, 0x1b, 0x41])).command_status).toBe(ESME_RINVDCS);
    expect(await countMessages(t, account.id)).toBe(0);
    // Unpacked septets: "@" is 0x00, "$" 0x02, "_" 0x11.
    const ok = await submit([0x00, 0x02, 0x11]);
    expect(ok.command_status).toBe(0);
    expect((await messageRow(t, ok.message_id as string)).body).toBe("@$_");
  });

  it("reads data_coding 3 as Latin-1: GSM text stays GSM-7, the rest goes as UCS-2", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const gsm = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543216",
      data_coding: 3,
      short_message: Buffer.from("Café für Jürgen, £5", "latin1"),
    });
    expect(gsm.command_status).toBe(0);
    expect(await messageRow(t, gsm.message_id as string)).toMatchObject({
      body: "Café für Jürgen, £5",
      encoding: "gsm7",
    });
    const latin = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543216",
      data_coding: 3,
      short_message: Buffer.from("naïve façade ±2°", "latin1"),
    });
    expect(latin.command_status).toBe(0);
    expect(await messageRow(t, latin.message_id as string)).toMatchObject({
      body: "naïve façade ±2°",
      encoding: "ucs2",
    });
    const unknown = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543216",
      data_coding: 4,
      short_message: Buffer.from([1, 2, 3]),
    });
    expect(unknown.command_status).toBe(ESME_RINVDCS);
  });

  it("joins parts per bind: two binds reusing one UDH reference for the same addresses send two messages", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 20 } });
    const first = await boundEsme(t, account, "transmitter");
    const second = await boundEsme(t, account, "transmitter");
    const part = (client: typeof first, sequence: number, text: string) =>
      client.submit({
        source_addr: "SWBRD",
        destination_addr: "9876543290",
        esm_class: 0x40,
        short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, 0x07, 2, sequence]), encodeGsm7(text)]),
      });
    const a1 = await part(first, 1, "A".repeat(153));
    const b1 = await part(second, 1, "B".repeat(153));
    const a2 = await part(first, 2, "end of A");
    const b2 = await part(second, 2, "end of B");
    for (const answer of [a1, b1, a2, b2]) expect(answer.command_status).toBe(0);
    expect(a1.message_id).toBe(a2.message_id);
    expect(b1.message_id).toBe(b2.message_id);
    expect(a1.message_id).not.toBe(b1.message_id);
    expect((await messageRow(t, a2.message_id as string)).body).toBe(`${"A".repeat(153)}end of A`);
    expect((await messageRow(t, b2.message_id as string)).body).toBe(`${"B".repeat(153)}end of B`);
    expect(await countMessages(t, account.id)).toBe(2);
  });

  it("answers submit_multi with the broadcast id and each refused destination with its status", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const answer = await client.request("submit_multi", {
      source_addr: "SWBRD",
      dest_address: [
        { dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: "919876543216" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "12" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543217" },
      ],
      data_coding: 0,
      short_message: encodeGsm7("to many"),
    });
    expect(answer.command_status).toBe(0);
    const broadcastId = answer.message_id as string;
    expect(broadcastId).not.toBe("");
    expect(answer.unsuccess_sme).toEqual([
      expect.objectContaining({ destination_addr: "12", error_status_code: ESME_RINVDSTADR }),
    ]);
    const rows = await t.db.store.db
      .selectFrom("messages")
      .select(["id", "recipient", "body"])
      .where("account_id", "=", account.id)
      .orderBy("recipient")
      .execute();
    expect(rows.map((r) => r.recipient)).toEqual(["9876543216", "9876543217"]);
    expect(rows.every((r) => r.body === "to many")).toBe(true);
  });

  it("refuses scheduled delivery with ESME_RINVSCHED", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543218",
      short_message: "later",
      schedule_delivery_time: "000001000000000R",
    });
    expect(answer.command_status).toBe(ESME_RINVSCHED);
    expect(await countMessages(t, account.id)).toBe(0);
  });
});

async function messageRow(t: TestGateway, id: string) {
  return t.db.store.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

async function countMessages(t: TestGateway, accountId: number): Promise<number> {
  const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", accountId).execute();
  return rows.length;
}
