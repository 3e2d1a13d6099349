// UCS-2 text that is not well-formed Unicode (half of a surrogate pair standing alone) is refused
// over SMPP as a v2 send of it is (400 invalid_request): answered ESME_RINVDCS (0x104), nothing
// stored or charged, the refusal in the log of refusals. On both engines, with the `smpp`
// package as the ESME: submit_sm, data_sm (message_payload), submit_multi, and a long message
// whose joined parts leave a half alone (the parts answered before get stat:REJECTD err:104); a
// pair split across two parts is joined into its emoji and taken.
import type { Pdu } from "smpp";
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf } from "../../helpers/sms.js";
import { boundEsme, type SmppAccount, smppAccount, until } from "./client.js";

const ESME_RINVDCS = 0x104;

const ucs2 = (text: string) => Buffer.from(text, "utf16le").swap16();

/** UDH-concatenated part `sequence` of `total`, its text the UCS-2 bytes given. */
function part(reference: number, sequence: number, total: number, bytes: Buffer, registered = 0) {
  return {
    source_addr: "SWBRD",
    destination_addr: "9876543210",
    esm_class: 0x40,
    data_coding: 8,
    registered_delivery: registered,
    short_message: Buffer.concat([Buffer.from([0x05, 0x00, 0x03, reference, total, sequence]), bytes]),
  };
}

async function messagesOf(t: TestGateway, accountId: number) {
  return t.db.store.db.selectFrom("messages").select(["id", "body"]).where("account_id", "=", accountId).execute();
}

async function refusalsOf(t: TestGateway, accountId: number) {
  return t.db.store.db
    .selectFrom("refusals")
    .select(["operation", "answer", "text"])
    .where("account_id", "=", accountId)
    .execute();
}

function textOf(pdu: Pdu): string {
  const message = pdu.short_message as { message?: string | Buffer } | string | Buffer;
  if (typeof message === "string" || Buffer.isBuffer(message)) return message.toString();
  return String(message.message);
}

describeEachEngine("SMPP server: UCS-2 text that is not well-formed Unicode", (engine) => {
  const gateway = useTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });

  it("refuses a lone surrogate in submit_sm, data_sm and submit_multi with ESME_RINVDCS, as v2 refuses it", async () => {
    const t = gateway();
    const account: SmppAccount = await smppAccount(t, {}, { credits: { sms: 10 } });
    const before = await balanceOf(t, account);
    const client = await boundEsme(t, account, "transmitter");
    const lone = Buffer.from([0xd8, 0x3d]);
    const submit = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543210",
      data_coding: 8,
      short_message: lone,
    });
    expect(submit.command_status).toBe(ESME_RINVDCS);
    expect(submit.message_id ?? "").toBe("");
    // A low half alone, in the middle of text, in message_payload.
    const data = await client.request("data_sm", {
      source_addr: "SWBRD",
      destination_addr: "9876543210",
      data_coding: 8,
      message_payload: Buffer.concat([ucs2("ab"), Buffer.from([0xdc, 0x00]), ucs2("cd")]),
    });
    expect(data.command_status).toBe(ESME_RINVDCS);
    const multi = await client.request("submit_multi", {
      source_addr: "SWBRD",
      dest_address: [
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543210" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543211" },
      ],
      data_coding: 8,
      short_message: Buffer.concat([ucs2("hi "), lone]),
    });
    expect(multi.command_status).toBe(ESME_RINVDCS);
    expect(await messagesOf(t, account.id)).toEqual([]);
    expect(await balanceOf(t, account)).toBe(before);
    // The same text over v2: refused as not valid Unicode.
    const v2 = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${account.apiKey}`, "content-type": "application/json" },
      body: '{"sender_id":"SWBRD","recipient":"9876543210","message":"\\ud83d"}',
    });
    expect(v2.status).toBe(400);
    // Logged as every refused submit is, the text as the engines can both store it.
    await until(async () => (await refusalsOf(t, account.id)).length >= 3, 10_000, "refusals logged");
    const logged = await refusalsOf(t, account.id);
    const smppRows = logged.filter((row) => row.operation !== "POST /api/v2/sms/send");
    expect(smppRows.map((row) => [row.operation, row.answer]).sort()).toEqual([
      ["data_sm", "0x00000104 ESME_RINVDCS"],
      ["submit_multi", "0x00000104 ESME_RINVDCS"],
      ["submit_sm", "0x00000104 ESME_RINVDCS"],
    ]);
    expect(smppRows.find((row) => row.operation === "data_sm")?.text).toBe("ab\uFFFDcd");
    // Well-formed text on the same bind is still taken.
    const ok = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543210",
      data_coding: 8,
      short_message: ucs2("Привет 👋"),
    });
    expect(ok.command_status).toBe(0);
  });

  it("joins a pair split across two parts, and refuses a message whose joined parts leave a half alone", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const before = await balanceOf(t, account);
    const client = await boundEsme(t, account);
    const emoji = ucs2("👋"); // D8 3D DC 4B
    // The pair cut between parts 1 and 2: one message, the emoji whole.
    const a1 = await client.submit(part(1, 1, 2, Buffer.concat([ucs2("hi "), emoji.subarray(0, 2)])));
    const a2 = await client.submit(part(1, 2, 2, Buffer.concat([emoji.subarray(2), ucs2(" there")])));
    expect([a1.command_status, a2.command_status]).toEqual([0, 0]);
    expect(await messagesOf(t, account.id)).toEqual([{ id: a1.message_id, body: "hi 👋 there" }]);
    const charged = await balanceOf(t, account);
    expect(charged).toBeLessThan(before);
    // A high half at the end of part 1, no low half at the start of part 2: refused on the last part.
    const b1 = await client.submit(part(2, 1, 2, Buffer.concat([ucs2("hi "), emoji.subarray(0, 2)]), 1));
    expect(b1.command_status).toBe(0);
    const b2 = await client.submit(part(2, 2, 2, ucs2(" there"), 1));
    expect(b2.command_status).toBe(ESME_RINVDCS);
    expect(await messagesOf(t, account.id)).toHaveLength(1);
    expect(await balanceOf(t, account)).toBe(charged);
    // The part answered ESME_ROK is owed its receipt: REJECTD, err the last part's status.
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(b1.message_id);
    expect(receipt!.message_state).toBe(8);
    expect(textOf(receipt!)).toMatch(/ stat:REJECTD err:104 text:hi \?$/);
  }, 60_000);
});
