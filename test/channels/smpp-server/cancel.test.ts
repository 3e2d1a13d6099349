// cancel_sm over real binds on both engines, with the `smpp` npm package as the ESME (and a raw
// socket for bodies no library sends). Promotional submits outside the account's promotional
// hours are held as scheduled messages, the ones cancel_sm cancels: by id, refunded at every level
// of a reseller tree once, with a DELETED receipt and query_sm answering DELETED; by source and
// destination (service_type narrowing), the account's only. Refused: unknown and another
// account's ids, a wrong source_addr, a sent or released message, a second cancel, malformed
// bodies. A queued message not due yet (a retry's or its connectors' wait) is cancelled too, a
// due one is the dispatcher's. A cancel racing the release to the queue, or the dispatcher as a
// queued message comes due, either cancels and refunds, or leaves the message to be sent, never both.
import type { Pdu } from "smpp";
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { QUEUED_SIGNAL } from "../../../src/delivery/dispatch/index.js";
import { parsePriceCsv, replacePriceCard } from "../../../src/domain/accounts/index.js";
import { releaseDueScheduled } from "../../../src/domain/messages/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import type { TestGateway } from "../../helpers/gateway.js";
import { auditLedger, milli, resellerTree } from "../../helpers/resellers.js";
import {
  boundEsme,
  connectEsme,
  type EsmeClient,
  holdPromotional,
  smppAccount,
  smppPort,
  until,
  useSmppTestGateway,
} from "./client.js";
import { cstrings, RawClient } from "./raw-client.js";

const ESME_RINVCMDLEN = 0x02;
const ESME_RINVBNDSTS = 0x04;
const ESME_RINVSRCADR = 0x0a;
const ESME_RINVDSTADR = 0x0b;
const ESME_RINVMSGID = 0x0c;
const ESME_RCANCELFAIL = 0x11;
const ESME_RINVSERTYP = 0x15;
const CANCEL_SM = 0x00000008;
const CANCEL_SM_RESP = 0x80000008;
const DELETED = 4;
const DELIVERED = 2;

describeEnginesTogether("SMPP server: cancel_sm", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0" },
  });

  it("cancels a held message by its id: refunded once at every level, a DELETED receipt, query_sm DELETED", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    await replacePriceCard(
      t.db.store,
      t.clock,
      "wholesale",
      parsePriceCsv("channel,route,prefix,price\nsms,T,*,0.5\nsms,P,*,0.5"),
    );
    await holdPromotional(t, leaf.id);
    const smppPassword = "leafpw1";
    await setSmppSettings(t.db.store, t.clock, leaf.username, { password: smppPassword, submitsPerSecond: 0 });
    const client = await boundEsme(t, { ...leaf, smppPassword }, "transceiver");
    const before = await balances(t, [top.id, mid.id, leaf.id]);

    const id = await submit(client, "9876543210", { registered_delivery: 1 });
    expect(await status(t, id)).toBe("scheduled");
    const charged = await balances(t, [top.id, mid.id, leaf.id]);
    for (const [i, level] of charged.entries()) expect(level, `level ${i}`).toBeLessThan(before[i]!);

    expect((await cancel(client, { message_id: id })).command_status).toBe(0);
    expect(await status(t, id)).toBe("cancelled");
    expect(await balances(t, [top.id, mid.id, leaf.id])).toEqual(before);
    await auditLedger(t);
    for (const account of [top, mid, leaf]) {
      const refunds = await t.db.store.db
        .selectFrom("ledger_entries")
        .select(["amount", "ref"])
        .where("account_id", "=", account.id)
        .where("kind", "=", "refund")
        .execute();
      expect(refunds.map((r) => r.ref)).toEqual([id]);
    }

    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(id);
    expect(receipt!.message_state).toBe(DELETED);
    expect(textOf(receipt!)).toMatch(new RegExp(`^id:${id} sub:001 dlvrd:000 .* stat:DELETED err:000 text:`));
    const queried = await client.request("query_sm", { message_id: id, source_addr: "SWBRD" });
    expect(queried).toMatchObject({ command_status: 0, message_id: id, message_state: DELETED, error_code: 0 });
    expect(queried.final_date).toBeInstanceOf(Date);

    // Cancelled already: nothing left to cancel, nothing refunded again, no second receipt.
    expect((await cancel(client, { message_id: id })).command_status).toBe(ESME_RCANCELFAIL);
    expect(await balances(t, [top.id, mid.id, leaf.id])).toEqual(before);
    await until(async () => (await outboxRows(t, leaf.id)) === 0, 10_000, "the receipt taken");
    expect(client.delivered).toHaveLength(1);
  });

  it("refuses unknown, malformed and another account's ids, and a wrong source_addr, with ESME_RINVMSGID", async () => {
    const t = gateway();
    const owner = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, owner.id);
    const theirs = await submit(await boundEsme(t, owner, "transmitter"), "9876543211");
    const other = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, other.id);
    const client = await boundEsme(t, other, "transmitter");
    const mine = await submit(client, "9876543212");
    const before = await milli(t, owner.id);
    for (const id of [theirs, `q${"0".repeat(26)}`, "1_20260101_000001", "not-an-id", "q123", `${mine}x`]) {
      expect((await cancel(client, { message_id: id })).command_status, id).toBe(ESME_RINVMSGID);
    }
    expect((await cancel(client, { message_id: mine, source_addr: "OTHER" })).command_status).toBe(ESME_RINVMSGID);
    expect(await status(t, theirs)).toBe("scheduled");
    expect(await status(t, mine)).toBe("scheduled");
    expect(await milli(t, owner.id)).toBe(before);
    // The id in lower case, with an empty source_addr (not compared): cancelled.
    expect((await cancel(client, { message_id: mine.toLowerCase(), source_addr: "" })).command_status).toBe(0);
    expect(await status(t, mine)).toBe("cancelled");
  });

  it("answers ESME_RCANCELFAIL for a message already sent or delivered, and for one released to the queue", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, account.id);
    const client = await boundEsme(t, account, "transceiver");
    // Route T is not held: it goes to the carrier at once.
    const sent = await submit(client, "9876543213", { service_type: "T", registered_delivery: 1 });
    await client.waitDelivered(1);
    expect(await status(t, sent)).toBe("delivered");
    const charged = await milli(t, account.id);
    expect((await cancel(client, { message_id: sent })).command_status).toBe(ESME_RCANCELFAIL);
    expect(await milli(t, account.id)).toBe(charged);

    const held = await submit(client, "9876543214", { registered_delivery: 1 });
    // Its time came: released to the queue, it is the dispatcher's.
    await comeDue(t, [held]);
    expect(await release(t)).toBeGreaterThanOrEqual(1);
    expect((await cancel(client, { message_id: held })).command_status).toBe(ESME_RCANCELFAIL);
    await client.waitDelivered(2);
    expect(await status(t, held)).toBe("delivered");
    expect(client.delivered.map((pdu) => pdu.message_state)).toEqual([DELIVERED, DELIVERED]);
    expect(await refundsOf(t, account.id)).toEqual([]);
  });

  it("cancels a queued message not due yet (waiting for a retry or its connectors): refunded once, DELETED", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, account.id);
    const client = await boundEsme(t, account, "transceiver");
    const before = await milli(t, account.id);
    const waiting = await submit(client, "9876543218", { registered_delivery: 1 });
    const byAddress = await submit(client, "9876543219");
    await waitInQueue(t, [waiting, byAddress], Date.now() + 3_600_000);

    expect((await cancel(client, { message_id: waiting })).command_status).toBe(0);
    expect(
      (await cancel(client, { message_id: "", source_addr: "SWBRD", destination_addr: "9876543219" })).command_status,
    ).toBe(0);
    expect([await status(t, waiting), await status(t, byAddress)]).toEqual(["cancelled", "cancelled"]);
    expect((await refundsOf(t, account.id)).sort()).toEqual([waiting, byAddress].sort());
    expect(await milli(t, account.id)).toBe(before);
    const [receipt] = await client.waitDelivered(1);
    expect(receipt).toMatchObject({ receipted_message_id: waiting, message_state: DELETED });
    // Nothing left to cancel, nothing refunded twice.
    expect((await cancel(client, { message_id: waiting })).command_status).toBe(ESME_RCANCELFAIL);
    expect(await milli(t, account.id)).toBe(before);
    await auditLedger(t);
  });

  it("never both sends and refunds a queued message whose cancel races the dispatcher as it comes due", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 20 } });
    await holdPromotional(t, account.id);
    const client = await boundEsme(t, account, "transmitter");
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await submit(client, `98765432${40 + i}`));
    // Due now (the dispatcher's), due one after the other while the cancels come, or in an hour.
    const start = Date.now() + 60;
    const dueAt = (i: number) => (i < 2 ? Date.now() : i >= 6 ? start + 3_600_000 : start + 15 * i);
    await Promise.all(ids.map((id, i) => waitInQueue(t, [id], dueAt(i))));
    const answers = await Promise.all(
      ids.map(async (id) => {
        await t.db.store.signals.notify(QUEUED_SIGNAL);
        return cancel(client, { message_id: id });
      }),
    );
    expect(answers.map((answer) => answer.command_status)).toEqual(
      expect.arrayContaining([ESME_RCANCELFAIL, ESME_RCANCELFAIL, 0, 0]),
    );
    expect([answers[0]!.command_status, answers[7]!.command_status]).toEqual([ESME_RCANCELFAIL, 0]);
    const refunded = new Set(await refundsOf(t, account.id));
    for (const [i, id] of ids.entries()) {
      const ok = answers[i]!.command_status === 0;
      expect(ok || answers[i]!.command_status === ESME_RCANCELFAIL).toBe(true);
      expect(refunded.has(id), id).toBe(ok);
      if (ok) expect(await status(t, id)).toBe("cancelled");
      else {
        await until(
          async () => {
            await t.db.store.signals.notify(QUEUED_SIGNAL);
            return (await status(t, id)) === "delivered";
          },
          20_000,
          `${id} delivered`,
        );
      }
    }
    await auditLedger(t);
  });

  it("cancels by source_addr and destination_addr every held message of the account, service_type narrowing", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 20 } });
    await holdPromotional(t, account.id);
    const client = await boundEsme(t, account, "transmitter");
    const first = await submit(client, "9876543215");
    const second = await submit(client, "+91 98765-43215");
    const elsewhere = await submit(client, "9876543216");
    const neighbour = await smppAccount(t, {}, { credits: { sms: 10 } });
    await holdPromotional(t, neighbour.id);
    const theirs = await submit(await boundEsme(t, neighbour, "transmitter"), "9876543215");

    const byAddress = { message_id: "", source_addr: "swbrd", destination_addr: "919876543215" };
    // Route T holds none of them.
    expect((await cancel(client, { ...byAddress, service_type: "T" })).command_status).toBe(ESME_RCANCELFAIL);
    expect((await cancel(client, { ...byAddress, service_type: "P" })).command_status).toBe(0);
    expect(await Promise.all([first, second, elsewhere, theirs].map((id) => status(t, id)))).toEqual([
      "cancelled",
      "cancelled",
      "scheduled",
      "scheduled",
    ]);
    expect((await refundsOf(t, account.id)).sort()).toEqual([first, second].sort());
    expect((await cancel(client, byAddress)).command_status).toBe(ESME_RCANCELFAIL);
  });

  it("refuses a cancel_sm without addresses, with a bad service_type, a cut body, on a receiver or unbound", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transmitter");
    const none = { message_id: "", source_addr: "SWBRD", destination_addr: "9876543217" };
    expect((await cancel(client, { ...none, source_addr: "" })).command_status).toBe(ESME_RINVSRCADR);
    expect((await cancel(client, { ...none, destination_addr: "" })).command_status).toBe(ESME_RINVDSTADR);
    expect((await cancel(client, { ...none, destination_addr: "12" })).command_status).toBe(ESME_RINVDSTADR);
    expect((await cancel(client, { ...none, service_type: "X" })).command_status).toBe(ESME_RINVSERTYP);
    expect((await cancel(client, none)).command_status).toBe(ESME_RCANCELFAIL);

    const receiver = await boundEsme(t, account, "receiver");
    expect((await cancel(receiver, none)).command_status).toBe(ESME_RINVBNDSTS);
    const unbound = await connectEsme(smppPort(t));
    expect((await cancel(unbound, none)).command_status).toBe(ESME_RINVBNDSTS);

    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account);
    // service_type without its NUL; then the body ends after source_addr; then a message_id of 65 characters.
    raw.send(encodePdu(CANCEL_SM, 2, 0, Buffer.from("P", "latin1")));
    raw.send(encodePdu(CANCEL_SM, 3, 0, Buffer.concat([cstrings("", "q1"), Buffer.from([5, 0]), cstrings("SWBRD")])));
    raw.send(
      encodePdu(CANCEL_SM, 4, 0, Buffer.concat([cstrings("", "q".repeat(65)), Buffer.from([5, 0, 0, 0, 0, 0])])),
    );
    for (const sequence of [2, 3, 4]) {
      const answer = await raw.next();
      expect(answer).toMatchObject({ commandId: CANCEL_SM_RESP, status: ESME_RINVCMDLEN, sequence });
      expect(answer.body.length).toBe(0);
    }
    raw.send(encodePdu(0x00000015, 5));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000015, status: 0, sequence: 5 });
    raw.destroy();
    // Not a submit: the operator's listing counts none.
    expect(
      t.gateway.smpp!.list().find((b) => b.mode === "transmitter" && b.username === account.username)?.submits,
    ).toBe(0);
  });

  it("never both sends and refunds a message whose cancel races its release to the queue", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 20 } });
    await holdPromotional(t, account.id);
    const client = await boundEsme(t, account, "transmitter");
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) ids.push(await submit(client, `98765432${30 + i}`));
    await comeDue(t, ids);
    const [answers] = await Promise.all([Promise.all(ids.map((id) => cancel(client, { message_id: id }))), release(t)]);
    const refunded = new Set(await refundsOf(t, account.id));
    for (const [i, id] of ids.entries()) {
      const ok = answers[i]!.command_status === 0;
      expect(ok || answers[i]!.command_status === ESME_RCANCELFAIL).toBe(true);
      expect(refunded.has(id), id).toBe(ok);
      if (ok) expect(await status(t, id)).toBe("cancelled");
      else await until(async () => (await status(t, id)) === "delivered", 20_000, `${id} delivered`);
    }
    await auditLedger(t);
  });
});

/** The held messages' time has come (their promotional hours opened): due now, still scheduled. */
async function comeDue(t: TestGateway, ids: string[]): Promise<void> {
  await t.db.store.db.updateTable("messages").set({ due_at: Date.now() }).where("id", "in", ids).execute();
}

/** The messages queued, due at `dueAt`, as a retry or a wait for their connectors leaves them. */
async function waitInQueue(t: TestGateway, ids: string[], dueAt: number): Promise<void> {
  await t.db.store.db
    .updateTable("messages")
    .set({ status: "queued", due_at: dueAt, error_code: "connectors_down", error_message: "waiting" })
    .where("id", "in", ids)
    .execute();
}

/** Housekeeping's release of the scheduled messages that are due, and the dispatcher woken as it wakes it. */
async function release(t: TestGateway): Promise<number> {
  const released = await releaseDueScheduled(t.db.store, Date.now());
  await t.db.store.signals.notify(QUEUED_SIGNAL);
  return released;
}

async function submit(
  client: EsmeClient,
  destination: string,
  fields: { service_type?: string; registered_delivery?: number } = {},
): Promise<string> {
  const answer = await client.submit({
    service_type: "P",
    source_addr: "SWBRD",
    destination_addr: destination,
    short_message: "cancel me",
    ...fields,
  });
  expect(answer.command_status).toBe(0);
  return answer.message_id as string;
}

function cancel(
  client: EsmeClient,
  fields: { message_id: string; source_addr?: string; destination_addr?: string; service_type?: string },
): Promise<Pdu> {
  return client.request("cancel_sm", {
    source_addr_ton: 5,
    source_addr_npi: 0,
    source_addr: "SWBRD",
    dest_addr_ton: 1,
    dest_addr_npi: 1,
    ...fields,
  });
}

async function status(t: TestGateway, id: string): Promise<string> {
  const row = await t.db.store.db
    .selectFrom("messages")
    .select("status")
    .where("id", "=", id)
    .executeTakeFirstOrThrow();
  return row.status;
}

async function balances(t: TestGateway, accountIds: number[]): Promise<number[]> {
  return Promise.all(accountIds.map((id) => milli(t, id)));
}

/** The refs of the account's refunds. */
async function refundsOf(t: TestGateway, accountId: number): Promise<string[]> {
  const rows = await t.db.store.db
    .selectFrom("ledger_entries")
    .select("ref")
    .where("account_id", "=", accountId)
    .where("kind", "=", "refund")
    .execute();
  return rows.map((row) => row.ref ?? "");
}

async function outboxRows(t: TestGateway, accountId: number): Promise<number> {
  const rows = await t.db.store.db.selectFrom("smpp_outbox").select("id").where("account_id", "=", accountId).execute();
  return rows.length;
}

function textOf(pdu: Pdu): string {
  const message = pdu.short_message as { message?: string | Buffer } | string | Buffer;
  if (typeof message === "string" || Buffer.isBuffer(message)) return message.toString();
  return String(message.message);
}
