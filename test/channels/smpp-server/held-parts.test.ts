// The parts of long messages waiting for the rest are held in memory, bounded per account and in
// total (issue 36): a flood of first parts with large text from one account is answered
// ESME_RTHROTTLED past the account's bytes, a flood of small ones past its messages, while
// another account's first part is still taken and the heap after a forced GC stays within 10 MB
// of where it started; past the total every account's new parts are answered ESME_RMSGQFUL; a
// bind's parts are freed when it unbinds or its connection drops. Nothing is charged for them.
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { type SmppAccount, smppAccount, smppPort, until } from "./client.js";
import { BIND_TRANSMITTER, RawClient, SUBMIT_SM, submitBody, tlv, UNBIND } from "./raw-client.js";

const ESME_RMSGQFUL = 0x14;
const ESME_RTHROTTLED = 0x58;
const MiB = 1024 * 1024;
const LARGE = "A".repeat(60_000);
/** The defaults of SMPP_SERVER_HELD_BYTES_PER_ACCOUNT and SMPP_SERVER_HELD_MESSAGES_PER_ACCOUNT. */
const HELD_BYTES_PER_ACCOUNT = 4 * MiB;
const HELD_MESSAGES_PER_ACCOUNT = 1_000;

/** Part `sequence` of `total` (SAR TLVs) with its text in message_payload, data_coding 1 (ASCII). */
function partBody(reference: number, text: string, sequence = 1, total = 255): Buffer {
  return Buffer.concat([
    submitBody("SWBRD", "9876543210", "", 0, 1),
    tlv(0x020c, Buffer.from([reference >> 8, reference & 0xff])),
    tlv(0x020e, Buffer.from([total])),
    tlv(0x020f, Buffer.from([sequence])),
    tlv(0x0424, Buffer.from(text, "latin1")),
  ]);
}

async function bound(t: TestGateway, account: SmppAccount): Promise<RawClient> {
  const raw = new RawClient(smppPort(t), { answerEnquireLink: true });
  await raw.connected();
  await raw.bind(account, BIND_TRANSMITTER);
  return raw;
}

let sequence = 10;

/** Sends `count` first parts (new references from `reference`) in rounds of 50; their statuses in order. */
async function firstParts(raw: RawClient, count: number, text: string, reference = 0): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; ) {
    const round = Math.min(50, count - sent);
    const bySequence = new Map<number, number>();
    for (let i = 0; i < round; i++) {
      sequence++;
      bySequence.set(sequence, sent + i);
      raw.send(encodePdu(SUBMIT_SM, sequence, 0, partBody((reference + sent + i) & 0xffff, text)));
    }
    const answers = new Array<number>(round);
    for (let i = 0; i < round; i++) {
      const pdu = await raw.next();
      answers[bySequence.get(pdu.sequence)! - sent] = pdu.status;
    }
    statuses.push(...answers);
    sent += round;
  }
  return statuses;
}

/** The heap in use after a full collection (vitest runs with --expose-gc). */
function heapAfterGc(): number {
  globalThis.gc!();
  globalThis.gc!();
  return process.memoryUsage().heapUsed;
}

async function storedMessages(t: TestGateway, accountId: number): Promise<number> {
  const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", accountId).execute();
  return rows.length;
}

describeEachEngine("SMPP server: long messages' held parts, per account and in total", (engine) => {
  const gateway = useTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });

  it("answers one account's flood of large first parts ESME_RTHROTTLED past its bytes; another account's is taken; the heap stays", async () => {
    const t = gateway();
    const flooder = await smppAccount(t, {}, { credits: { sms: 10 } });
    const other = await smppAccount(t, {}, { credits: { sms: 10 } });
    const flooding = await bound(t, flooder);
    const bystander = await bound(t, other);
    const before = heapAfterGc();
    // The flood: 1,500 first parts of 255 with 60 KB of text (90 MB held before the bound).
    const statuses = await firstParts(flooding, 1_500, LARGE);
    const taken = statuses.filter((s) => s === 0).length;
    expect(taken).toBeGreaterThan(0);
    const grown = heapAfterGc() - before;
    expect(taken * LARGE.length).toBeLessThanOrEqual(HELD_BYTES_PER_ACCOUNT);
    expect(statuses.slice(taken).every((s) => s === ESME_RTHROTTLED)).toBe(true);
    expect(await firstParts(bystander, 1, LARGE, 7)).toEqual([0]);
    expect(grown, `the heap grew by ${(grown / MiB).toFixed(1)} MB`).toBeLessThan(10 * MiB);
    expect(await storedMessages(t, flooder.id)).toBe(0);
    flooding.destroy();
    bystander.destroy();
  }, 120_000);

  it("answers one account's flood of small first parts ESME_RTHROTTLED past its messages; another account's is taken", async () => {
    const t = gateway();
    const flooder = await smppAccount(t, {}, { credits: { sms: 10 } });
    const other = await smppAccount(t, {}, { credits: { sms: 10 } });
    const flooding = await bound(t, flooder);
    const bystander = await bound(t, other);
    const limit = HELD_MESSAGES_PER_ACCOUNT;
    const statuses = await firstParts(flooding, limit + 200, "hi");
    expect(statuses.slice(0, limit).every((s) => s === 0)).toBe(true);
    expect(statuses.slice(limit).every((s) => s === ESME_RTHROTTLED)).toBe(true);
    expect(await firstParts(bystander, 1, "hello", 7)).toEqual([0]);
    // A part of a message already held is taken: it may complete.
    sequence++;
    flooding.send(encodePdu(SUBMIT_SM, sequence, 0, partBody(0, "hi", 2)));
    expect((await flooding.next()).status).toBe(0);
    flooding.destroy();
    bystander.destroy();
  }, 60_000);

  it("frees a bind's held parts when it unbinds, and when its connection drops", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const first = await bound(t, account);
    const second = await bound(t, account);
    // The bound is the account's, over its binds.
    expect(await firstParts(first, 100, LARGE)).toContain(ESME_RTHROTTLED);
    expect(await firstParts(second, 1, LARGE, 500)).toEqual([ESME_RTHROTTLED]);
    sequence++;
    first.send(encodePdu(UNBIND, sequence));
    expect((await first.next()).commandId).toBe(0x80000006);
    await first.untilClosed();
    expect(await firstParts(second, 100, LARGE, 1_000)).toContain(ESME_RTHROTTLED);
    const third = await bound(t, account);
    expect(await firstParts(third, 1, LARGE, 2_000)).toEqual([ESME_RTHROTTLED]);
    second.destroy();
    let reference = 3_000;
    await until(async () => (await firstParts(third, 1, LARGE, reference++))[0] === 0, 5_000, "the parts freed");
    expect(await storedMessages(t, account.id)).toBe(0);
    third.destroy();
  }, 60_000);
});

describeEachEngine("SMPP server: held parts past the total", (engine) => {
  const gateway = useTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      SMPP_SERVER_HELD_BYTES_PER_ACCOUNT: String(2 * MiB),
      SMPP_SERVER_HELD_BYTES_TOTAL: String(3 * MiB),
    },
  });

  it("answers every account's new parts ESME_RMSGQFUL past the total, and takes them again once parts are freed", async () => {
    const t = gateway();
    const [a, b] = [await smppAccount(t), await smppAccount(t)];
    const first = await bound(t, a);
    const second = await bound(t, b);
    expect(await firstParts(first, 40, LARGE)).toContain(ESME_RTHROTTLED);
    const statuses = await firstParts(second, 40, LARGE);
    const taken = statuses.filter((s) => s === 0).length;
    expect(taken).toBeGreaterThan(0);
    expect(statuses.slice(taken).every((s) => s === ESME_RMSGQFUL)).toBe(true);
    first.destroy();
    let reference = 1_000;
    await until(async () => (await firstParts(second, 1, LARGE, reference++))[0] === 0, 5_000, "the parts freed");
    second.destroy();
  }, 60_000);
});
