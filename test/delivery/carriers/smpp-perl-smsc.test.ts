// The smpp connector against an SMSC that is not ours (issue 10): Perl's Net::SMPP from Debian's
// libnet-smpp-perl, over real TCP on 127.0.0.1, on both engines. Our fake SMSC is built on the same
// `smpp` package as the client, so a shared misreading of the protocol would pass there; here the
// bytes go through another implementation, and the tests assert what reached it exactly (the DLT
// TLVs too: entity, template and the telemarketer chain of issue 40).
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Engine } from "../../../src/base/store/engine.js";
import type { MessageRow } from "../../../src/base/store/schema.js";
import {
  concatenationReference,
  SmppConnector,
  type SmppConnectorOptions,
} from "../../../src/delivery/carriers/smpp/index.js";
import type { SmppSessionOptions } from "../../../src/delivery/carriers/smpp/session.js";
import type { InboundSms, SubmitResult } from "../../../src/delivery/dispatch/connector.js";
import { addDltEntity, createAccount, setTmChain, TmChainBook } from "../../../src/domain/accounts/index.js";
import type { DeliveryReport } from "../../../src/domain/messages/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import { smsRow } from "./http-sms-helpers.js";
import { PerlSmsc, type PerlSmscOptions, perlSmscAvailable, type SmscEvent } from "./perl-smsc.js";

const ENTITY = "1101234567890123456";
const TEMPLATE = "1107161234567890123";
const LONG = "Your parcel is on its way. ".repeat(15).trim(); // 404 GSM-7 characters: 153 + 153 + 98
const ESME_RBINDFAIL = 0x0d;
const ESME_RX_T_APPN = 0x64;
/** An MO message: from a handset to one of our numbers. */
const MO = { source: "919812345678", destination: "919000000001" };

const hex = (text: string, encoding: BufferEncoding = "latin1") => Buffer.from(text, encoding).toString("hex");
const ucs2 = (text: string) => Buffer.from(text, "utf16le").swap16();
const udh = (reference: number, total: number, sequence: number) =>
  Buffer.from([5, 0, 3, reference, total, sequence]).toString("hex");

/** A receipt's `done date` (YYMMDDhhmm, UTC) as epoch ms: the time a report must carry. */
function doneAt(receipt: SmscEvent): number {
  const match = /done date:(\d\d)(\d\d)(\d\d)(\d\d)(\d\d) /.exec(receipt.text ?? "");
  if (!match) throw new Error(`no done date in ${receipt.text}`);
  const [yy, mo, dd, hh, mi] = match.slice(1).map(Number) as [number, number, number, number, number];
  return Date.UTC(2000 + yy, mo - 1, dd, hh, mi);
}

const perl = perlSmscAvailable();
if (!perl.available && process.env.SWITCHBOARD_REQUIRE_PERL_SMSC === "1") {
  throw new Error(`SWITCHBOARD_REQUIRE_PERL_SMSC=1 but the Perl SMSC cannot run: ${perl.reason}`);
}
if (perl.available) {
  describeEachEngine("smpp connector against Net::SMPP", suite);
} else {
  console.warn(`Perl SMSC unavailable (${perl.reason}): Net::SMPP suites skipped.`);
  for (const engine of ["sqlite", "postgres"] as const) {
    describe.skip(`smpp connector against Net::SMPP [${engine}] (skipped: ${perl.reason})`, () => suite(engine));
  }
}

function suite(engine: Engine): void {
  let db: TestDatabase;
  const connectors: SmppConnector[] = [];
  let serial = 0;

  beforeAll(async () => {
    db = await createTestDatabase(engine);
  });

  afterAll(async () => {
    await db.drop();
  });

  afterEach(async () => {
    for (const connector of connectors.splice(0).reverse()) await connector.stop();
  });

  /** A claimed SMS with an id no other test of the suite uses. */
  const row = (changes: Partial<MessageRow> = {}): MessageRow =>
    smsRow({ dlt_entity_id: ENTITY, dlt_template_id: TEMPLATE, ...changes }, 5_000 + serial++);

  const idOf = (result: SubmitResult | undefined): string => {
    if (!result?.ok) throw new Error(`not submitted: ${JSON.stringify(result)}`);
    return result.upstreamId;
  };

  interface Started {
    connector: SmppConnector;
    reports: DeliveryReport[];
    inbound: InboundSms[];
  }

  type Options = Partial<Omit<SmppConnectorOptions, "session">> & { session?: Partial<SmppSessionOptions> };

  async function connect(smsc: PerlSmsc, options: Options = {}, bound = true): Promise<Started> {
    const { session, ...rest } = options;
    const connector = new SmppConnector({
      name: `perl-${serial++}`,
      store: db.store,
      receiptRetryMs: [50, 100, 200, 400],
      session: {
        host: "127.0.0.1",
        port: smsc.port,
        systemId: "switchboard",
        password: "secret",
        reconnectInitialMs: 30,
        reconnectMaxMs: 200,
        ...session,
      },
      ...rest,
    });
    connectors.push(connector);
    const reports: DeliveryReport[] = [];
    const inbound: InboundSms[] = [];
    connector.onReports((batch) => reports.push(...batch));
    connector.onInbound(async (messages) => void inbound.push(...messages));
    await connector.start();
    if (bound) await connector.waitBound(5_000);
    return { connector, reports, inbound };
  }

  async function started(smscOptions: PerlSmscOptions = {}, options: Options = {}) {
    const smsc = await PerlSmsc.start({ receiptDelayMs: 30, ...smscOptions });
    return { smsc, ...(await connect(smsc, options)) };
  }

  const partsOf = (messageId: string) =>
    db.store.db
      .selectFrom("message_parts")
      .selectAll()
      .where("message_id", "=", messageId)
      .orderBy("part_index")
      .execute();

  it("binds a transceiver with the account's credentials; a wrong password gets ESME_RBINDFAIL", async () => {
    const smsc = await PerlSmsc.start();
    await connect(smsc);
    const bind = { event: "pdu", conn: 1, command: "bind_transceiver", seq: 1, status: 0, answer: 0 };
    expect(await smsc.awaitReceived("bind_transceiver", 1)).toEqual([
      { ...bind, system_id: "switchboard", system_type: "", interface_version: 0x34 },
    ]);

    const { connector } = await connect(smsc, { session: { password: "wrong" } }, false);
    await expect(connector.waitBound(500)).rejects.toThrow(/bind refused: ESME_RBINDFAIL/);
    const refused = smsc.received("bind_transceiver").slice(1);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const bind of refused) expect(bind).toMatchObject({ system_id: "switchboard", answer: ESME_RBINDFAIL });
  });

  it("submits a GSM-7 SMS with its DLT TLVs exactly as sent, and maps the SMSC's receipt to a delivered report", async () => {
    const { smsc, connector, reports } = await started({ firstId: "a0000001" });
    const message = row({ recipient: "9876543210", body: "Your OTP is 123456 @ £5" });
    expect(idOf((await connector.submit([message]))[0])).toBe("a0000001");
    expect(await smsc.awaitReceived("submit_sm", 1)).toEqual([
      {
        event: "pdu",
        conn: 1,
        command: "submit_sm",
        seq: 2,
        status: 0,
        service_type: "",
        source: "SWBTST",
        source_ton: 5,
        source_npi: 0,
        destination: "919876543210",
        dest_ton: 1,
        dest_npi: 1,
        esm_class: 0,
        registered_delivery: 1,
        data_coding: 0,
        // GSM 03.38 unpacked: "@" is 0x00 and "£" 0x01.
        short_message: `${hex("Your OTP is 123456 ")}00200135`,
        tlvs: { "1400": hex(ENTITY), "1401": hex(TEMPLATE) },
        answer: 0,
        message_id: "a0000001",
      },
    ]);
    await smsc.waitFor(() => reports.length === 1, "the report");
    const [receipt] = smsc.sent("receipt");
    expect(receipt).toMatchObject({ conn: 1, receipt_for: "a0000001", stat: "DELIVRD" });
    expect(receipt?.text).toMatch(/^id:a0000001 sub:001 dlvrd:001 submit date:\d{10} done date:\d{10} stat:DELIVRD/);
    expect(reports).toEqual([
      { connector: connector.name, upstreamId: "a0000001", status: "delivered", at: doneAt(receipt!) },
    ]);
    await smsc.waitFor(() => smsc.received("deliver_sm_resp").length === 1, "the receipt's answer");
    expect(smsc.received("deliver_sm_resp")).toEqual([
      { event: "pdu", conn: 1, command: "deliver_sm_resp", seq: receipt?.seq, status: 0 },
    ]);
    expect(await partsOf(message.id)).toMatchObject([{ upstream_id: "a0000001", status: "delivered" }]);
  });

  it("sends the DLT telemarketer chain in the TLV its dlt_tags name, as the IDs or their SHA-256, and none for an entity without one", async () => {
    const clock = { now: () => new Date() };
    const account = await createAccount(db.store, clock, { username: `chain-${serial++}`, password: "a-password-1" });
    const bare = "1101234567890123499";
    for (const entity of [ENTITY, bare]) await addDltEntity(db.store.db, clock, account.id, entity);
    await setTmChain(db.store.db, account.id, ENTITY, ["1702000000000000011"], "1702000000000000099");
    const chain = `${ENTITY},1702000000000000011,1702000000000000099`;
    const smsc = await PerlSmsc.start({ receiptDelayMs: 30 });
    const tmChains = new TmChainBook(db.store);
    const ids = await connect(smsc, {
      tmChains,
      session: { dltTags: { entityId: 0x1400, templateId: 0x1401, tmChain: { tag: 0x1402, format: "ids" } } },
    });
    const hash = await connect(smsc, {
      tmChains,
      session: { dltTags: { entityId: 0x1400, templateId: 0x1401, tmChain: { tag: 0x1501, format: "hash" } } },
    });
    idOf((await ids.connector.submit([row({ account_id: account.id })]))[0]);
    idOf((await ids.connector.submit([row({ account_id: account.id, dlt_entity_id: bare })]))[0]);
    idOf((await hash.connector.submit([row({ account_id: account.id })]))[0]);
    const submits = await smsc.awaitReceived("submit_sm", 3);
    expect(submits.map((submit) => submit.tlvs)).toEqual([
      { "1400": hex(ENTITY), "1401": hex(TEMPLATE), "1402": hex(chain) },
      { "1400": hex(bare), "1401": hex(TEMPLATE) },
      { "1400": hex(ENTITY), "1401": hex(TEMPLATE), "1501": hex(createHash("sha256").update(chain).digest("hex")) },
    ]);
  });

  it("sends UCS-2 as UTF-16BE with data_coding 8, a long one in 67-character parts behind their UDH", async () => {
    const { smsc, connector, reports } = await started();
    const short = row({ body: "नमस्ते 👋", encoding: "ucs2" });
    const long = row({ body: "क".repeat(67) + "ख".repeat(20), encoding: "ucs2" });
    const results = await connector.submit([short, long]);
    const submits = await smsc.awaitReceived("submit_sm", 3);
    expect(submits.map((submit) => [submit.data_coding, submit.esm_class, submit.short_message])).toEqual([
      [8, 0, ucs2("नमस्ते 👋").toString("hex")],
      [8, 0x40, udh(concatenationReference(long.id), 2, 1) + ucs2("क".repeat(67)).toString("hex")],
      [8, 0x40, udh(concatenationReference(long.id), 2, 2) + ucs2("ख".repeat(20)).toString("hex")],
    ]);
    expect(results.map(idOf)).toEqual([submits[0]?.message_id, submits[1]?.message_id]);
    await smsc.waitFor(() => reports.length === 2, "both reports");
    const delivered = reports.filter((report) => report.status === "delivered").map((report) => report.upstreamId);
    expect(delivered.sort()).toEqual([submits[0]?.message_id, submits[1]?.message_id].sort());
  });

  it("splits a long message into parts with one UDH reference, and turns the 3 receipts into ONE delivered report", async () => {
    const { smsc, connector, reports } = await started();
    const message = row({ recipient: "+447700900123", body: LONG });
    const upstreamId = idOf((await connector.submit([message]))[0]);
    const submits = await smsc.awaitReceived("submit_sm", 3);
    const reference = concatenationReference(message.id);
    expect(submits.map((submit) => submit.short_message)).toEqual([
      udh(reference, 3, 1) + hex(LONG.slice(0, 153)),
      udh(reference, 3, 2) + hex(LONG.slice(153, 306)),
      udh(reference, 3, 3) + hex(LONG.slice(306)),
    ]);
    for (const submit of submits) {
      expect(submit).toMatchObject({ destination: "447700900123", dest_ton: 1, esm_class: 0x40, data_coding: 0 });
      expect(submit.tlvs).toEqual({ "1400": hex(ENTITY), "1401": hex(TEMPLATE) });
    }
    expect(upstreamId).toBe(submits[0]?.message_id);
    expect((await partsOf(message.id)).map((part) => part.upstream_id)).toEqual(submits.map((s) => s.message_id));

    await smsc.waitFor(() => smsc.received("deliver_sm_resp").length === 3, "the 3 receipts answered");
    await smsc.waitFor(() => reports.length > 0, "the report");
    // A receipt is answered after the commit that applied it, and its report, if any, handed over
    // before that: with the three answered, a second report (one per receipt would be the bug)
    // would be in `reports` already.
    const receipts = smsc.sent("receipt");
    expect(receipts.map((receipt) => receipt.receipt_for)).toEqual(submits.map((submit) => submit.message_id));
    expect(reports).toEqual([
      { connector: connector.name, upstreamId, status: "delivered", at: Math.max(...receipts.map(doneAt)) },
    ]);
    expect((await partsOf(message.id)).map((part) => part.status)).toEqual(["delivered", "delivered", "delivered"]);
  });

  it("reports a long message failed when one part's receipt is UNDELIV, and a single SMS to a failing number", async () => {
    const { smsc, connector, reports } = await started({ failText: "UNDELIV-ME", failErr: "034" });
    const body = `${"A".repeat(153)}${"B".repeat(100)}UNDELIV-ME${"C".repeat(43)}${"D".repeat(50)}`;
    const long = row({ body });
    const single = row({ recipient: "9876543666", body: "to a number that fails" });
    const [longId, singleId] = (await connector.submit([long, single])).map(idOf);
    await smsc.waitFor(() => reports.length === 2, "both reports");
    const receipts = smsc.sent("receipt");
    expect(receipts.map((receipt) => receipt.stat)).toEqual(["DELIVRD", "UNDELIV", "DELIVRD", "UNDELIV"]);
    expect(receipts[1]?.text).toMatch(/ dlvrd:000 .* stat:UNDELIV err:034 text:BBBBBBBBBBBBBBBBBBBB$/);
    const longReceipts = receipts.filter((receipt) => receipt.receipt_for !== singleId);
    const byId = new Map(reports.map((report) => [report.upstreamId, report]));
    expect(byId.get(longId!)).toEqual({
      connector: connector.name,
      upstreamId: longId,
      status: "failed",
      at: Math.max(...longReceipts.map(doneAt)),
      code: "UNDELIV",
      carrierCode: "034",
      message:
        "The carrier reported UNDELIV (err 034) for part 2 of 3: the carrier could not deliver the message to the handset.",
    });
    expect(byId.get(singleId!)).toEqual({
      connector: connector.name,
      upstreamId: singleId,
      status: "failed",
      at: doneAt(receipts[3]!),
      code: "UNDELIV",
      carrierCode: "034",
      message: "The carrier reported UNDELIV (err 034): the carrier could not deliver the message to the handset.",
    });
    expect((await partsOf(long.id)).map((part) => [part.status, part.error_code])).toEqual([
      ["delivered", null],
      ["failed", "UNDELIV/034"],
      ["delivered", null],
    ]);
  });

  it("matches receipts that name the hex message id in decimal, and ones that carry receipted_message_id", async () => {
    const decimal = await started({ receiptIds: "decimal", firstId: "a00000ff" });
    const upstreamId = idOf((await decimal.connector.submit([row()]))[0]);
    expect(upstreamId).toBe("a00000ff");
    await decimal.smsc.waitFor(() => decimal.reports.length === 1, "the report");
    expect(decimal.smsc.sent("receipt")[0]?.text).toMatch(/^id:2684354815 sub:001 /);
    expect(decimal.reports).toMatchObject([{ upstreamId: "a00000ff", status: "delivered" }]);

    // receipted_message_id (hex) and message_state 5 win over the text's decimal id and stat.
    const tlvs = await started({ receiptIds: "decimal", receiptTlvs: true, firstId: "c0000010" });
    const failing = idOf((await tlvs.connector.submit([row({ recipient: "9800000666" })]))[0]);
    await tlvs.smsc.waitFor(() => tlvs.reports.length === 1, "the report");
    expect(tlvs.reports).toMatchObject([{ upstreamId: failing, status: "failed", code: "UNDELIV" }]);
  });

  it("binds a transmitter and a receiver: submits go over the first, receipts and MO come over the second", async () => {
    const { smsc, connector, reports, inbound } = await started({}, { session: { bind: "transmitter+receiver" } });
    await smsc.waitFor(
      () => smsc.received().filter((event) => event.command?.startsWith("bind_")).length === 2,
      "2 binds",
    );
    const binds = smsc.received().filter((event) => event.command?.startsWith("bind_"));
    expect(binds.map((bind) => [bind.command, bind.answer]).sort()).toEqual([
      ["bind_receiver", 0],
      ["bind_transmitter", 0],
    ]);
    const transmitter = binds.find((bind) => bind.command === "bind_transmitter")!.conn;
    const receiver = binds.find((bind) => bind.command === "bind_receiver")!.conn;
    const upstreamId = idOf((await connector.submit([row()]))[0]);
    expect((await smsc.awaitReceived("submit_sm", 1)).map((submit) => submit.conn)).toEqual([transmitter]);
    await smsc.waitFor(() => reports.length === 1, "the report");
    expect(reports).toMatchObject([{ upstreamId, status: "delivered" }]);
    expect(smsc.sent("receipt").map((receipt) => receipt.conn)).toEqual([receiver]);

    smsc.sendMo({ ...MO, shortMessage: Buffer.from("HELP") });
    await smsc.waitFor(() => inbound.length === 1, "the MO message");
    expect(inbound[0]).toMatchObject({ from: "919812345678", to: "919000000001", message: "HELP" });
    expect(smsc.sent("mo").map((mo) => mo.conn)).toEqual([receiver]);
  });

  it("spreads messages over several connections, gets each receipt on its own, and unbinds each on stop", async () => {
    const { smsc, connector, reports } = await started({}, { connections: 3 });
    await smsc.waitFor(() => smsc.received("bind_transceiver").length === 3, "3 binds");
    await smsc.waitFor(() => connector.pool.sessions.every((session) => session.isBound), "3 bound sessions");
    const results = await connector.submit(Array.from({ length: 6 }, () => row()));
    expect(results.every((result) => result.ok)).toBe(true);
    const submits = await smsc.awaitReceived("submit_sm", 6);
    const perConnection = [1, 2, 3].map((conn) => submits.filter((submit) => submit.conn === conn).length);
    expect(perConnection).toEqual([2, 2, 2]);
    await smsc.waitFor(() => reports.length === 6, "6 reports");
    expect(reports.every((report) => report.status === "delivered")).toBe(true);
    const connOf = new Map(submits.map((submit) => [submit.message_id, submit.conn]));
    for (const receipt of smsc.sent("receipt")) expect(receipt.conn).toBe(connOf.get(receipt.receipt_for));

    await connector.stop();
    expect((await smsc.awaitReceived("unbind", 3)).map((unbind) => unbind.conn).sort()).toEqual([1, 2, 3]);
    await smsc.waitFor(() => smsc.events.filter((event) => event.event === "closed").length === 3, "3 closes");
  });

  it("keeps an idle link alive with enquire_link, and answers the SMSC's own", async () => {
    const { smsc, connector } = await started({}, { session: { enquireLinkSeconds: 0.1, responseTimeoutMs: 500 } });
    await smsc.waitFor(() => smsc.received("enquire_link").length >= 8, "8 enquire_link", 5_000);
    expect(new Set(smsc.received("enquire_link").map((enquire) => enquire.conn))).toEqual(new Set([1]));
    // Unanswered, the first would have timed out after 500 ms and dropped the link: still the first bind.
    expect(connector.pool.sessions[0]?.status()).toMatchObject({ bound: true, binds: 1 });

    smsc.control({ command: "enquire_link" });
    await smsc.waitFor(() => smsc.received("enquire_link_resp").length === 1, "our enquire_link_resp");
    const [ours] = smsc.sent().filter((event) => event.command === "enquire_link");
    expect(smsc.received("enquire_link_resp")).toEqual([
      { event: "pdu", conn: 1, command: "enquire_link_resp", seq: ours?.seq, status: 0 },
    ]);
    expect(await connector.submit([row()])).toMatchObject([{ ok: true }]);
  });

  it("turns MO messages into inbound SMS, a concatenated UCS-2 one into one message, a failing sink into a temporary error", async () => {
    const { smsc, connector, inbound } = await started();
    smsc.sendMo({ ...MO, shortMessage: Buffer.from("STOP") });
    await smsc.waitFor(() => inbound.length === 1, "the MO message");
    expect(inbound).toEqual([
      {
        to: "919000000001",
        from: "919812345678",
        message: "STOP",
        connector: connector.name,
        receivedAt: expect.any(Number),
      },
    ]);
    const [first, second] = ["नमस्ते ", "दुनिया"].map((piece, i) =>
      Buffer.concat([Buffer.from([5, 0, 3, 7, 2, i + 1]), ucs2(piece)]),
    );
    for (const part of [first!, second!]) {
      smsc.sendMo({ ...MO, shortMessage: part, dataCoding: 8, esmClass: 0x40 });
    }
    await smsc.waitFor(() => inbound.length === 2, "the concatenated MO message");
    expect(inbound[1]).toMatchObject({ from: "919812345678", message: "नमस्ते दुनिया" });
    await smsc.waitFor(() => smsc.received("deliver_sm_resp").length === 3, "3 answers");
    expect(smsc.received("deliver_sm_resp").map((answer) => answer.status)).toEqual([0, 0, 0]);

    connector.onInbound(async () => {
      throw new Error("database down");
    });
    smsc.sendMo({ ...MO, shortMessage: Buffer.from("again") });
    await smsc.waitFor(() => smsc.received("deliver_sm_resp").length === 4, "the 4th answer");
    expect(smsc.received("deliver_sm_resp")[3]?.status).toBe(ESME_RX_T_APPN);
  });

  it("binds again after the SMSC process is killed and restarted on the same port, and after it asks to unbind", async () => {
    const first = await started({ firstId: "a0000001" });
    expect(idOf((await first.connector.submit([row()]))[0])).toBe("a0000001");
    await first.smsc.waitFor(() => first.reports.length === 1, "the first SMSC's report");
    await first.smsc.kill();
    await first.smsc.waitFor(() => !first.connector.pool.sessions[0]?.isBound, "the link down");

    const second = await PerlSmsc.start({ port: first.smsc.port, firstId: "b0000001", receiptDelayMs: 30 });
    await first.connector.waitBound(5_000);
    const message = row({ body: LONG });
    expect(idOf((await first.connector.submit([message]))[0])).toBe("b0000001");
    await second.waitFor(() => first.reports.length === 2, "the report through the new SMSC");
    expect(first.reports).toMatchObject([
      { upstreamId: "a0000001", status: "delivered" },
      { upstreamId: "b0000001", status: "delivered" },
    ]);
    expect(await second.awaitReceived("bind_transceiver", 1)).toMatchObject([{ conn: 1, answer: 0 }]);
    expect(first.connector.pool.sessions[0]?.status().binds).toBe(2);

    // An SMSC going down for maintenance: it unbinds us, we answer, reconnect and bind again.
    second.control({ command: "unbind" });
    await second.waitFor(() => second.received("bind_transceiver").length === 2, "the bind after the unbind");
    expect(await second.awaitReceived("unbind_resp", 1)).toMatchObject([{ conn: 1, status: 0 }]);
    expect(second.received("bind_transceiver")[1]).toMatchObject({ conn: 2, answer: 0 });
    await first.connector.waitBound(5_000);
    expect(await first.connector.submit([row()])).toMatchObject([{ ok: true, upstreamId: "b0000004" }]);
  });
}
