// The SMPP server with an ESME that is not ours: Perl's Net::SMPP (Debian's libnet-smpp-perl) over
// real TCP on 127.0.0.1, through the real gateway on both engines. The `smpp` package is on both
// ends of the other tests' wire; here the bytes come from and go to another implementation:
// wrong password, single and multipart GSM-7 and UCS-2 submits (UDH, SAR, message_payload), a
// receipt per submit_sm (two for a message sent in two parts), query_sm of their ids, a receipt
// held while unbound and delivered on rebind, throttling, MO, a DLT telemarketer chain in a vendor
// TLV (issue 40); cancel_sm of a held message (its DELETED receipt and query_sm), twice, and of
// an unknown id.
import { beforeAll, describe, expect, it } from "vitest";
import { encodeGsm7 } from "../../../src/base/smpp/index.js";
import type { Engine } from "../../../src/base/store/engine.js";
import { STATUS } from "../../../src/channels/smpp-server/status.js";
import { perlSmscAvailable } from "../../delivery/carriers/perl-smsc.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { assignNumber } from "../inbound/helpers.js";
import { holdPromotional, type SmppAccount, smppAccount, smppPort, until } from "./client.js";
import { PerlEsme, receiptOf } from "./perl-esme.js";

const ESME_RINVPASWD = 0x0e;
const ESME_RTHROTTLED = 0x58;
const hex = (bytes: Buffer) => bytes.toString("hex");
const ucs2 = (text: string) => Buffer.from(text, "utf16le").swap16();

const perl = perlSmscAvailable();
if (!perl.available && process.env.SWITCHBOARD_REQUIRE_PERL_SMSC === "1") {
  throw new Error(`SWITCHBOARD_REQUIRE_PERL_SMSC=1 but Net::SMPP cannot run: ${perl.reason}`);
}
if (perl.available) {
  describeEachEngine("SMPP server with Net::SMPP as the ESME", suite);
} else {
  console.warn(`Net::SMPP unavailable (${perl.reason}): the Perl ESME suites skipped.`);
  for (const engine of ["sqlite", "postgres"] as const) {
    describe.skip(`SMPP server with Net::SMPP as the ESME [${engine}] (skipped: ${perl.reason})`, () => suite(engine));
  }
}

function suite(engine: Engine): void {
  const gateway = useTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  async function bound(t: TestGateway, account: SmppAccount, mode: "transmitter" | "receiver" | "transceiver") {
    const esme = await PerlEsme.connect(smppPort(t));
    expect(await esme.bind(mode, account.username, account.smppPassword)).toBe(0);
    return esme;
  }

  const balance = async (t: TestGateway, accountId: number) =>
    Number(
      (
        await t.db.store.db
          .selectFrom("wallets")
          .select("balance")
          .where("account_id", "=", accountId)
          .where("wallet", "=", "sms")
          .executeTakeFirstOrThrow()
      ).balance,
    );

  const messageRow = (t: TestGateway, id: string) =>
    t.db.store.db
      .selectFrom("messages")
      .select(["body", "encoding", "segments", "recipient"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();

  it("refuses a wrong password with ESME_RINVPASWD and binds with the right one", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const esme = await PerlEsme.connect(smppPort(t));
    expect(await esme.bind("transceiver", account.username, "wrong")).toBe(ESME_RINVPASWD);
    expect(await esme.bind("transceiver", account.username, account.smppPassword)).toBe(0);
    expect(esme.received("bind_transceiver_resp")[1]!.system_id).toBe("Switchboard");
  });

  it("submits single and multipart GSM-7 and UCS-2 messages, each with its receipt", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 50 } });
    const esme = await bound(t, account, "transceiver");
    const base = { source: "SWBRD", registered_delivery: 1 };
    const single = await esme.submit({
      ...base,
      ref: "single",
      destination: "919876543201",
      short_message: hex(encodeGsm7("Hello from Perl @ 10€")),
    });
    // GSM-7 in two UDH parts.
    const first = "A".repeat(153);
    const udh = (sequence: number) => Buffer.from([5, 0, 3, 0x51, 2, sequence]);
    const part1 = await esme.submit({
      ...base,
      ref: "udh-1",
      destination: "919876543202",
      esm_class: 0x40,
      short_message: hex(Buffer.concat([udh(1), encodeGsm7(first)])),
    });
    const part2 = await esme.submit({
      ...base,
      ref: "udh-2",
      destination: "919876543202",
      esm_class: 0x40,
      short_message: hex(Buffer.concat([udh(2), encodeGsm7("and the rest")])),
    });
    // UCS-2 in two SAR parts.
    const hindi = ["नमस्ते ".repeat(10), "दुनिया"];
    const sar = [];
    for (const [index, text] of hindi.entries()) {
      sar.push(
        await esme.submit({
          ...base,
          ref: `sar-${index}`,
          destination: "919876543203",
          data_coding: 8,
          short_message: hex(ucs2(text)),
          sar: [0x0777, 2, index + 1],
        }),
      );
    }
    // UCS-2 whole in message_payload.
    const payloadText = "Привет, это длинное сообщение из Perl. ".repeat(3);
    const payload = await esme.submit({
      ...base,
      ref: "payload",
      destination: "919876543204",
      data_coding: 8,
      message_payload: hex(ucs2(payloadText)),
    });
    for (const answer of [single, part1, part2, ...sar, payload]) expect(answer.status, answer.ref).toBe(0);
    expect(part1.message_id).toBe(part2.message_id);
    expect(sar[0]!.message_id).toBe(sar[1]!.message_id);
    expect(await messageRow(t, single.message_id!)).toMatchObject({ body: "Hello from Perl @ 10€", segments: 1 });
    expect(await messageRow(t, part2.message_id!)).toMatchObject({
      body: `${first}and the rest`,
      encoding: "gsm7",
      segments: 2,
    });
    expect(await messageRow(t, sar[1]!.message_id!)).toMatchObject({ body: hindi.join(""), encoding: "ucs2" });
    expect(await messageRow(t, payload.message_id!)).toMatchObject({ body: payloadText, encoding: "ucs2" });

    // One receipt per submit_sm: the messages sent in two parts get two, naming the one id.
    const ids = [single, part1, part2, ...sar, payload].map((answer) => answer.message_id!);
    const receipts = (await esme.delivered(6)).map(receiptOf);
    expect(receipts.map((r) => r.receiptedId).sort()).toEqual([...ids].sort());
    for (const receipt of receipts) {
      expect(receipt.state).toBe(2);
      expect(receipt.text).toMatch(new RegExp(`^id:${receipt.receiptedId} sub:001 dlvrd:001 .* stat:DELIVRD err:000`));
    }
    expect(esme.received("deliver_sm").every((event) => (event.esm_class! & 0x04) === 0x04)).toBe(true);
    // Receipts' text is ASCII and says so (data_coding 1, IA5), which Net::SMPP takes as it took 0.
    expect(esme.received("deliver_sm").map((event) => event.data_coding)).toEqual([1, 1, 1, 1, 1, 1]);

    // query_sm of a message and of a long one (its parts' one id): delivered, with its final_date.
    for (const id of [single.message_id!, part2.message_id!]) {
      const answer = await esme.query(`query-${id}`, id, "SWBRD");
      expect(answer).toMatchObject({ status: 0, message_id: id, message_state: 2, error_code: 0 });
      expect(answer.final_date).toMatch(/^\d{13}00\+$/);
    }
    expect((await esme.query("unknown", `q${"0".repeat(26)}`, "SWBRD")).status).toBe(STATUS.ESME_RQUERYFAIL);
  });

  it("cancels a held message with cancel_sm: a DELETED receipt, query_sm DELETED, a second cancel refused", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, account.id);
    const esme = await bound(t, account, "transceiver");
    const before = await balance(t, account.id);
    const submitted = await esme.submit({
      ref: "held",
      source: "SWBRD",
      destination: "9876543240",
      service_type: "P",
      registered_delivery: 1,
      short_message: hex(encodeGsm7("until the morning")),
    });
    expect(submitted.status).toBe(0);
    const id = submitted.message_id!;
    expect(await balance(t, account.id)).toBeLessThan(before);
    expect((await esme.cancel("cancel", { message_id: id, source: "SWBRD" })).status).toBe(STATUS.ESME_ROK);
    expect(await balance(t, account.id)).toBe(before);
    const [receipt] = await esme.delivered(1);
    expect(receiptOf(receipt!)).toMatchObject({ receiptedId: id, state: 4 });
    expect(receiptOf(receipt!).text).toMatch(new RegExp(`^id:${id} .* stat:DELETED err:000 `));
    expect(await esme.query("after", id, "SWBRD")).toMatchObject({ status: 0, message_state: 4 });
    expect((await esme.cancel("again", { message_id: id, source: "SWBRD" })).status).toBe(STATUS.ESME_RCANCELFAIL);
    const unknown = await esme.cancel("unknown", { message_id: `q${"0".repeat(26)}`, source: "SWBRD" });
    expect(unknown.status).toBe(STATUS.ESME_RINVMSGID);
    // By addresses: nothing held from SWBRD to that number any more.
    const byAddress = await esme.cancel("addresses", { message_id: "", source: "SWBRD", destination: "9876543240" });
    expect(byAddress.status).toBe(STATUS.ESME_RCANCELFAIL);
    expect(await balance(t, account.id)).toBe(before);
  });

  it("holds a receipt while the client is unbound and delivers it when it binds again", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const first = await bound(t, account, "transceiver");
    first.unbind();
    await first.waitFor(() => first.closed, "the unbind");
    const transmitter = await bound(t, account, "transmitter");
    const answer = await transmitter.submit({
      ref: "held",
      source: "SWBRD",
      destination: "919876543205",
      short_message: hex(encodeGsm7("held for later")),
      registered_delivery: 1,
    });
    expect(answer.status).toBe(0);
    await until(async () => {
      const rows = await t.db.store.db
        .selectFrom("smpp_outbox")
        .select("message_id")
        .where("account_id", "=", account.id)
        .execute();
      return rows.some((row) => row.message_id === answer.message_id);
    });
    expect(transmitter.received("deliver_sm")).toEqual([]);
    const receiver = await bound(t, account, "receiver");
    const [receipt] = await receiver.delivered(1);
    expect(receiptOf(receipt!)).toMatchObject({ receiptedId: answer.message_id, state: 2 });
    expect(receiptOf(receipt!).text).toContain("text:held for later");
  });

  it("throttles past the account's submits per second with ESME_RTHROTTLED", async () => {
    const t = gateway();
    const account = await smppAccount(t, { submitsPerSecond: 2 }, { credits: { sms: 20 } });
    const esme = await bound(t, account, "transmitter");
    const refs = Array.from({ length: 8 }, (_, i) => `burst-${i}`);
    for (const ref of refs) {
      esme.send({ ref, source: "SWBRD", destination: "919876543206", short_message: hex(encodeGsm7(ref)) });
    }
    const statuses = await Promise.all(refs.map(async (ref) => (await esme.answerTo(ref)).status));
    expect(statuses.filter((s) => s === 0).length).toBeGreaterThanOrEqual(1);
    expect(statuses.filter((s) => s === 0).length).toBeLessThanOrEqual(4);
    expect(statuses.filter((s) => s === ESME_RTHROTTLED).length).toBeGreaterThanOrEqual(4);
  });

  it("takes the DLT telemarketer chain a client sends in its TLV when it is the declared one, 0x40D when not", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { dltScrubbing: true, credits: { sms: 10 } });
    const op = (method: string, path: string, json: unknown) => operatorCall(t, operator, method, path, json);
    const entity = "1101160000000000081";
    await op("POST", `/accounts/${account.username}/dlt/headers`, { header: "SWBRD" });
    await op("POST", `/accounts/${account.username}/dlt/entities`, { entity_id: entity });
    await op("POST", `/accounts/${account.username}/templates`, { name: "otp", content: "OTP {#var#}", approve: true });
    await op("PUT", `/accounts/${account.username}/dlt/chains`, { entity_id: entity, chain: ["1702000000000000011"] });
    const esme = await bound(t, account, "transmitter");
    const submit = (ref: string, chain: string) =>
      esme.submit({
        ref,
        source: "SWBRD",
        destination: "919876543207",
        short_message: hex(encodeGsm7("OTP 4821")),
        tlvs: { "1402": hex(Buffer.from(chain, "latin1")) },
      });
    expect((await submit("declared", `${entity},1702000000000000011`)).status).toBe(0);
    expect((await submit("other", `${entity},1702000000000000012`)).status).toBe(STATUS.SB_DLT_CHAIN_MISMATCH);
  });

  it("delivers MO messages to the receiver, GSM-7 and UCS-2", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    await assignNumber(t, operator, account, "9220502201");
    const esme = await bound(t, account, "receiver");
    const simulator = t.gateway.workers!.simulator;
    await simulator.generateInbound({ to: "9220502201", from: "9876543207", message: "reply from a handset" });
    await simulator.generateInbound({ to: "9220502201", from: "9876543208", message: "जवाब" });
    const [plain, unicode] = await esme.delivered(2);
    expect(plain).toMatchObject({ source: "9876543207", destination: "9220502201", esm_class: 0, data_coding: 0 });
    expect(Buffer.from(plain!.short_message!, "hex").toString("latin1")).toBe("reply from a handset");
    expect(unicode).toMatchObject({ source: "9876543208", data_coding: 8 });
    expect(Buffer.from(unicode!.short_message!, "hex").swap16().toString("utf16le")).toBe("जवाब");
  });
}
