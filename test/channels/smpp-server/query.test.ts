// query_sm over real binds on both engines, with the `smpp` npm package as the ESME (and a raw
// socket for a body no library sends): the state of a message before its receipt (ENROUTE, no
// final_date), after it (DELIVERED, UNDELIVERABLE, REJECTED, as the receipt said, with its
// final_date and error_code), of a long message's parts and of submit_multi's broadcast id;
// another account's id refused as an unknown one, a malformed id, a receiver bind and an unbound
// session refused; queries past the window all answered by sequence; the reads go through an
// index on both engines.
import { type CompiledQuery as Compiled, CompiledQuery } from "kysely";
import type { Pdu } from "smpp";
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { queriedMessagesQuery } from "../../../src/domain/messages/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import type { TestGateway } from "../../helpers/gateway.js";
import { boundEsme, connectEsme, type EsmeClient, smppAccount, smppPort, until, useSmppTestGateway } from "./client.js";
import { cstrings, RawClient } from "./raw-client.js";

const ESME_RINVCMDLEN = 0x02;
const ESME_RINVBNDSTS = 0x04;
const ESME_RINVMSGID = 0x0c;
const ESME_RQUERYFAIL = 0x67;
const QUERY_SM = 0x00000003;
const QUERY_SM_RESP = 0x80000003;

const ENROUTE = 1;
const DELIVERED = 2;
const UNDELIVERABLE = 5;
const REJECTED = 8;

describeEnginesTogether("SMPP server: query_sm", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20", SIMULATOR_FAILURE_RATE: "0", SMPP_SERVER_WINDOW: "5" },
  });
  let reference = 0;

  it("answers ENROUTE without a final_date before the receipt, DELIVERED with its final_date after it", async () => {
    const t = gateway();
    const client = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transceiver");
    // ...0006: the simulated carrier takes it and never reports.
    const waiting = await submit(client, "9876500006", 1);
    expect(await query(client, waiting)).toMatchObject({
      command_status: 0,
      message_id: waiting,
      final_date: "",
      message_state: ENROUTE,
      error_code: 0,
    });
    await until(async () => (await row(t, waiting)).status === "submitted", 20_000, "the message submitted");
    expect(await query(client, waiting)).toMatchObject({ message_state: ENROUTE, final_date: "" });

    const delivered = await submit(client, "9876543210", 1);
    const [receipt] = await client.waitDelivered(1);
    expect(receipt!.receipted_message_id).toBe(delivered);
    const answer = await query(client, delivered);
    expect(answer).toMatchObject({ command_status: 0, message_id: delivered, message_state: DELIVERED, error_code: 0 });
    expect(answer.message_state).toBe(receipt!.message_state);
    // YYMMDDhhmmsstnnp in UTC: the done_at to the tenth of a second.
    const doneAt = Number((await row(t, delivered)).done_at);
    expect((answer.final_date as Date).getTime()).toBe(Math.floor(doneAt / 100) * 100);
  });

  it("answers a failed message as its receipt did, UNDELIVERABLE or REJECTED, with the error code", async () => {
    const t = gateway();
    const client = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transceiver");
    // ...0001: not delivered to the handset (UNDELIV); ...0002: the carrier rejects the submit.
    const undelivered = await submit(client, "9876540001", 1);
    const rejected = await submit(client, "9876500002", 1);
    const receipts = await client.waitDelivered(2);
    for (const [id, state] of [
      [undelivered, UNDELIVERABLE],
      [rejected, REJECTED],
    ] as const) {
      const receipt = receipts.find((pdu) => pdu.receipted_message_id === id)!;
      expect(receipt.message_state).toBe(state);
      const answer = await query(client, id);
      // The receipts' err:001, a failure whose carrier code is not a number.
      expect(answer).toMatchObject({ command_status: 0, message_id: id, message_state: state, error_code: 1 });
      expect(textOf(receipt)).toContain(" err:001 ");
      expect(answer.final_date).toBeInstanceOf(Date);
    }
  });

  it("refuses another account's id as it refuses an unknown one, and an id of no known form as invalid", async () => {
    const t = gateway();
    const owner = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transmitter");
    const theirs = await submit(owner, "9876543211", 0);
    const other = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transmitter");
    const mine = await submit(other, "9876543212", 0);
    expect((await query(other, mine)).command_status).toBe(0);
    const unknown = `q${"0".repeat(26)}`;
    const [ofAnother, ofNobody, broadcast] = await Promise.all([
      query(other, theirs),
      query(other, unknown),
      query(other, "1_20260101_000001"),
    ]);
    for (const answer of [ofAnother, ofNobody, broadcast]) {
      expect(answer.command_status).toBe(ESME_RQUERYFAIL);
      // A refusal carries no body: nothing of the message.
      expect(answer.message_state).toBeUndefined();
    }
    for (const id of ["", "not-an-id", "q123", `${theirs}x`]) {
      expect((await query(other, id)).command_status, id).toBe(ESME_RINVMSGID);
    }
    // The id in lower case is the same id; a source_addr not the message's refuses it, as SMPP 3.4 matches both.
    expect((await query(other, mine.toLowerCase(), "swbrd")).command_status).toBe(0);
    expect((await query(other, mine, "OTHER")).command_status).toBe(ESME_RQUERYFAIL);
  });

  it("answers a long message's parts with their message's state: held, then as the whole message", async () => {
    const t = gateway();
    const client = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transceiver");
    const ref = ++reference;
    const first = await client.submit(part(ref, 1, 2));
    expect(first.command_status).toBe(0);
    const id = first.message_id as string;
    // Held for its second part: no message yet, but the id was given.
    expect(await query(client, id)).toMatchObject({ command_status: 0, message_state: ENROUTE, final_date: "" });
    const second = await client.submit(part(ref, 2, 2));
    expect(second.message_id).toBe(id);
    // One receipt per part, each naming the message; the query answers the same state.
    const receipts = await client.waitDelivered(2);
    expect(receipts.map((pdu) => [pdu.receipted_message_id, pdu.message_state])).toEqual([
      [id, DELIVERED],
      [id, DELIVERED],
    ]);
    expect(await query(client, id)).toMatchObject({ command_status: 0, message_id: id, message_state: DELIVERED });
  });

  it("answers submit_multi's broadcast id for its messages together: the first not delivered once all are final", async () => {
    const t = gateway();
    const client = await boundEsme(t, await smppAccount(t, {}, { credits: { sms: 10 } }), "transceiver");
    const answer = await client.request("submit_multi", {
      source_addr: "SWBRD",
      dest_address: [
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876543274" },
        { dest_addr_ton: 0, dest_addr_npi: 1, destination_addr: "9876540001" },
      ],
      registered_delivery: 1,
      short_message: "to both",
    });
    expect(answer.command_status).toBe(0);
    const broadcastId = answer.message_id as string;
    await client.waitDelivered(2);
    expect(await query(client, broadcastId)).toMatchObject({
      command_status: 0,
      message_id: broadcastId,
      message_state: UNDELIVERABLE,
      error_code: 1,
    });
  });

  it("refuses query_sm on a receiver bind and before a bind with ESME_RINVBNDSTS", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const id = await submit(await boundEsme(t, account, "transmitter"), "9876543213", 0);
    const receiver = await boundEsme(t, account, "receiver");
    expect((await query(receiver, id)).command_status).toBe(ESME_RINVBNDSTS);
    const unbound = await connectEsme(smppPort(t));
    expect((await query(unbound, id)).command_status).toBe(ESME_RINVBNDSTS);
    // A transmitter of the same account is answered.
    const transmitter = await boundEsme(t, account, "transmitter");
    expect((await query(transmitter, id)).command_status).toBe(0);
  });

  it("answers a body cut short with query_sm_resp ESME_RINVCMDLEN, and the session goes on", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account);
    // message_id without its NUL; then one with source_addr missing.
    raw.send(encodePdu(QUERY_SM, 2, 0, Buffer.from("q01ARZ3NDEKTSV4RRFFQ69G5FAV", "latin1")));
    expect(await raw.next()).toMatchObject({ commandId: QUERY_SM_RESP, status: ESME_RINVCMDLEN, sequence: 2 });
    raw.send(encodePdu(QUERY_SM, 3, 0, Buffer.concat([cstrings("q01ARZ3NDEKTSV4RRFFQ69G5FAV"), Buffer.from([0, 0])])));
    const cut = await raw.next();
    expect(cut).toMatchObject({ commandId: QUERY_SM_RESP, status: ESME_RINVCMDLEN, sequence: 3 });
    expect(cut.body.length).toBe(0);
    // Well formed, of no message: ESME_RQUERYFAIL, without a body.
    raw.send(
      encodePdu(QUERY_SM, 4, 0, Buffer.concat([cstrings("q01ARZ3NDEKTSV4RRFFQ69G5FAV"), Buffer.from([0, 0, 0])])),
    );
    expect(await raw.next()).toMatchObject({ commandId: QUERY_SM_RESP, status: ESME_RQUERYFAIL, sequence: 4 });
    raw.send(encodePdu(0x00000015, 5));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000015, status: 0, sequence: 5 });
    raw.destroy();
  });

  it("answers queries sent past the window, with submits among them, each by its sequence_number", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 100 } });
    const client = await boundEsme(t, account, "transceiver");
    const id = await submit(client, "9876543214", 0);
    // A window of 5: 40 queries and 10 submits at once wait their turn in order.
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        i % 5 === 4
          ? client.submit({
              source_addr: "SWBRD",
              destination_addr: `98765432${20 + i}`,
              short_message: "amid queries",
            })
          : query(client, id),
      ),
    );
    expect(answers.map((a) => a.command_status)).toEqual(Array(50).fill(0));
    expect(answers.filter((a) => a.command === "query_sm_resp").every((a) => a.message_id === id)).toBe(true);
    expect(answers.filter((a) => a.command === "submit_sm_resp")).toHaveLength(10);
    await until(() => t.gateway.smpp!.list().find((b) => b.username === account.username)?.outstanding === 0);
    // Queries are not submits in the operator's listing.
    expect(t.gateway.smpp!.list().find((b) => b.username === account.username)?.submits).toBe(11);
  });

  it("reads a message by its primary key and a broadcast through its index", async () => {
    const t = gateway();
    const db = t.db.store.db;
    const byId = await planOf(t, queriedMessagesQuery(db, { queueId: `q${"0".repeat(26)}` }, 256).compile());
    expect(byId).toMatch(
      engine === "postgres" ? /Index Scan using messages_pkey/ : /USING INDEX sqlite_autoindex_messages_1 \(id=\?\)/,
    );
    const byBroadcast = await planOf(t, queriedMessagesQuery(db, { broadcastId: "1_20260101_000001" }, 256).compile());
    expect(byBroadcast).toContain("messages_by_broadcast_created");
    expect(byBroadcast).not.toMatch(/Sort|TEMP B-TREE/);
  });

  /** The plan of `query`: PostgreSQL's with sequential scans off (the test table is small), SQLite's. */
  async function planOf(t: TestGateway, query: Compiled): Promise<string> {
    const db = t.db.store.db;
    if (engine === "postgres") {
      return db.transaction().execute(async (trx) => {
        await trx.executeQuery(CompiledQuery.raw("set local enable_seqscan = off"));
        const { rows } = await trx.executeQuery<{ "QUERY PLAN": string }>(
          CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]),
        );
        return rows.map((r) => r["QUERY PLAN"]).join("\n");
      });
    }
    const { rows } = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return rows.map((r) => r.detail).join("\n");
  }
});

async function submit(client: EsmeClient, destination: string, registered: number): Promise<string> {
  const answer = await client.submit({
    source_addr: "SWBRD",
    destination_addr: destination,
    short_message: "query me",
    registered_delivery: registered,
  });
  expect(answer.command_status).toBe(0);
  return answer.message_id as string;
}

function query(client: EsmeClient, id: string, source = "SWBRD"): Promise<Pdu> {
  return client.request("query_sm", { message_id: id, source_addr_ton: 5, source_addr_npi: 0, source_addr: source });
}

async function row(t: TestGateway, id: string) {
  return t.db.store.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
}

/** Part `sequence` of `total` (8-bit UDH reference), asking for a receipt. */
function part(reference: number, sequence: number, total: number) {
  return {
    source_addr: "SWBRD",
    destination_addr: "9876543215",
    esm_class: 0x40,
    data_coding: 0,
    registered_delivery: 1,
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
