// A bind's session over time, on both engines (at the same time: the tests mostly wait), with a
// window of 5, enquire_link after 1 s of silence, idle after 3 s, answers awaited 600 ms and a
// deliver_sm sent again 1 s after it went unanswered: at most the window's submits are handled
// at once and a flood of enquire_link is answered in order while the server holds little of it
// (connections.test.ts: one that does not read is closed); enquire_link both ways; a client that
// only answers our enquire_link is unbound when idle, one that does not answer is cut off, one
// that never binds is closed; a deliver_sm left unanswered is sent again; unbind is answered
// after the submits in flight.
import { expect, it } from "vitest";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { call, type TestGateway } from "../../helpers/gateway.js";
import { boundEsme, smppAccount, smppPort, until, useSmppTestGateway } from "./client.js";
import { BIND_TRANSMITTER, bindBody, ENQUIRE_LINK, RawClient, SUBMIT_SM, submitBody, UNBIND } from "./raw-client.js";

const WINDOW = 5;
const ESME_RTHROTTLED = 0x58;
const ESME_RINVBNDSTS = 0x04;
const ESME_RINVCMDID = 0x03;

describeEnginesTogether("SMPP server: window, keep-alive, idle, time-outs, unbind", (engine) => {
  const gateway = useSmppTestGateway(engine, {
    env: {
      SMPP_SERVER_PORT: "auto",
      SMPP_SERVER_WINDOW: String(WINDOW),
      SMPP_SERVER_ENQUIRE_LINK_SECONDS: "1",
      SMPP_SERVER_IDLE_SECONDS: "3",
      SMPP_SERVER_RESPONSE_TIMEOUT_MS: "600",
      SMPP_SERVER_DELIVER_RETRY_MS: "1000",
      SIMULATOR_LATENCY_MS: "20",
      SIMULATOR_FAILURE_RATE: "0",
    },
  });

  /** Samples this process's view of the account's one bind until `done`; the largest values seen. */
  async function sampleBind(t: TestGateway, username: string, done: () => boolean) {
    let outstanding = 0;
    let buffered = 0;
    let samples = 0;
    while (!done()) {
      const bind = t.gateway.smpp!.list().find((b) => b.username === username);
      if (bind) {
        samples++;
        outstanding = Math.max(outstanding, bind.outstanding);
        buffered = Math.max(buffered, bind.buffered);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    return { outstanding, buffered, samples };
  }

  it("handles at most the window's submits at once; the rest wait unread and are all answered", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 500 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account, BIND_TRANSMITTER);
    const count = 200;
    raw.send(
      Buffer.concat(
        Array.from({ length: count }, (_, i) =>
          encodePdu(SUBMIT_SM, 100 + i, 0, submitBody("SWBRD", "9876543210", "w")),
        ),
      ),
    );
    const answers: Array<{ sequence: number; status: number; id: string }> = [];
    const collecting = (async () => {
      while (answers.length < count) {
        const pdu = await raw.next(30_000);
        answers.push({
          sequence: pdu.sequence,
          status: pdu.status,
          id: pdu.body.toString("latin1", 0, pdu.body.length - 1),
        });
      }
    })();
    const seen = await sampleBind(t, account.username, () => answers.length >= count);
    await collecting;
    expect(seen.samples).toBeGreaterThan(10);
    expect(seen.outstanding).toBeGreaterThan(0);
    expect(seen.outstanding).toBeLessThanOrEqual(WINDOW);
    expect(answers.every((a) => a.status === 0)).toBe(true);
    expect(new Set(answers.map((a) => a.sequence)).size).toBe(count);
    expect(new Set(answers.map((a) => a.id)).size).toBe(count);
    const stored = await t.db.store.db
      .selectFrom("messages")
      .select("id")
      .where("account_id", "=", account.id)
      .execute();
    expect(stored).toHaveLength(count);
    raw.destroy();
  }, 60_000);

  it("answers a client's flood of enquire_link in order, holding little of it in memory", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const raw = new RawClient(smppPort(t), { answerEnquireLink: true });
    await raw.connected();
    await raw.bind(account, BIND_TRANSMITTER);
    // 2 MB of enquire_link in rounds of 128 KB, each round's answers read before the next
    // (a client that sends far more than it reads is closed: connections.test.ts). Four times
    // the 512 KB the server may hold: a server that kept the flood, or a fair part of it, fails;
    // more rounds (it was 8 MB) cost seconds of CPU and find nothing more.
    const rounds = 16;
    const perRound = 8_192;
    let answered = 0;
    const flooding = (async () => {
      for (let round = 0; round < rounds; round++) {
        const flood = Buffer.alloc(16 * perRound);
        for (let i = 0; i < perRound; i++) encodePdu(ENQUIRE_LINK, round * perRound + i + 2).copy(flood, 16 * i);
        raw.send(flood);
        for (let i = 0; i < perRound; i++) {
          const pdu = await raw.next(30_000);
          answered++;
          // Checked without expect: a hundred thousand of them would cost seconds of the assertion library.
          if (pdu.commandId !== 0x80000015 || pdu.sequence !== answered + 1) {
            throw new Error(`answer ${answered} is command 0x${pdu.commandId.toString(16)}, sequence ${pdu.sequence}`);
          }
        }
      }
    })();
    const seen = await sampleBind(t, account.username, () => answered >= rounds * perRound || raw.closed);
    await flooding;
    expect(seen.samples).toBeGreaterThan(10);
    expect(seen.buffered).toBeLessThan(512 * 1024);
    expect(seen.outstanding).toBeLessThanOrEqual(1);
    // Still bound and working.
    raw.send(encodePdu(ENQUIRE_LINK, 7));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000015, sequence: 7, status: 0 });
    raw.destroy();
  }, 90_000);

  it("sends enquire_link after a second of silence, and unbinds a client that only answers it after 3 s idle", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const client = await boundEsme(t, account, "receiver");
    await until(() => client.enquireLinks >= 1, 3_000, "the server's enquire_link");
    expect(client.closed).toBe(false);
    await until(() => client.closed, 6_000, "the idle unbind");
    expect(client.unbinds).toBe(1);
    // Answered, and still unbound when idle: a second enquire_link (at 2 s) comes before the
    // unbind (at 3 s) on a quiet machine, not always on a loaded one, whose timers run late.
    expect(client.enquireLinks).toBeGreaterThanOrEqual(1);
  });

  it("keeps a bind whose client sends its own enquire_link, answering each", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const client = await boundEsme(t, account, "transceiver");
    const started = Date.now();
    while (Date.now() - started < 3_750) {
      const answer = await client.request("enquire_link");
      expect(answer.command).toBe("enquire_link_resp");
      expect(answer.command_status).toBe(0);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(client.closed).toBe(false);
    expect(client.unbinds).toBe(0);
  });

  it("cuts off a client that does not answer enquire_link, and closes a connection that never binds", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const silent = new RawClient(smppPort(t));
    await silent.connected();
    await silent.bind(account);
    const unbound = new RawClient(smppPort(t));
    await unbound.connected();
    const started = Date.now();
    // enquire_link after 1 s, unanswered after 0.6 s more.
    await silent.untilClosed(5_000);
    const enquiry = await silent.next(100);
    expect(enquiry.commandId).toBe(ENQUIRE_LINK);
    expect(Date.now() - started).toBeLessThan(3_000);
    // No bind within the idle time (3 s): closed.
    await unbound.untilClosed(6_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    expect(t.gateway.smpp!.list().filter((b) => b.username === account.username)).toEqual([]);
  });

  it("sends a deliver_sm left unanswered again, and removes it once answered", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const client = await boundEsme(t, account, "transceiver");
    client.answerDeliver = () => null;
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543260",
      short_message: "answer me",
      registered_delivery: 1,
    });
    const id = answer.message_id as string;
    await client.waitDelivered(1);
    const metrics = async () => (await call(t, "GET", "/metrics")).text;
    await until(async () =>
      /switchboard_smpp_deliveries_total\{kind="receipt",result="unanswered"\} [1-9]/.test(await metrics()),
    );
    client.answerDeliver = () => 0;
    // Its own enquire_link keeps the bind from going idle while the receipt waits to go again.
    const keepAlive = setInterval(() => void client.request("enquire_link").catch(() => undefined), 500);
    await until(() => client.accepted.length === 1, 15_000, "the receipt sent again").finally(() =>
      clearInterval(keepAlive),
    );
    expect(client.closed).toBe(false);
    expect(client.accepted[0]!.receipted_message_id).toBe(id);
    await until(async () => {
      const rows = await t.db.store.db
        .selectFrom("smpp_outbox")
        .select("id")
        .where("account_id", "=", account.id)
        .execute();
      return rows.length === 0;
    });
  }, 30_000);

  it("answers unbind after the submits in flight, then closes the connection", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account, BIND_TRANSMITTER);
    raw.send(
      Buffer.concat([
        encodePdu(SUBMIT_SM, 11, 0, submitBody("SWBRD", "9876543270", "one")),
        encodePdu(SUBMIT_SM, 12, 0, submitBody("SWBRD", "9876543271", "two")),
        encodePdu(SUBMIT_SM, 13, 0, submitBody("SWBRD", "9876543272", "three")),
        encodePdu(UNBIND, 14),
        // After its unbind, a client's submit is not taken.
        encodePdu(SUBMIT_SM, 15, 0, submitBody("SWBRD", "9876543273", "late")),
      ]),
    );
    const answers = [await raw.next(), await raw.next(), await raw.next(), await raw.next(), await raw.next()];
    const late = answers.find((a) => a.sequence === 15)!;
    expect(late.status).not.toBe(0);
    const inOrder = answers.filter((a) => a.sequence !== 15);
    expect(inOrder.slice(0, 3).map((a) => [a.commandId, a.status])).toEqual([
      [0x80000004, 0],
      [0x80000004, 0],
      [0x80000004, 0],
    ]);
    expect(inOrder[3]).toMatchObject({ commandId: 0x80000006, sequence: 14, status: 0 });
    await raw.untilClosed(5_000);
    const bodies = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", account.id)
      .execute();
    expect(bodies.map((b) => b.body).sort()).toEqual(["one", "three", "two"]);
  });

  it("answers the requests read with an unbind, in order, before unbind_resp, when nothing is in flight", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    /** The answers until the connection closes, as [command_id, sequence_number, command_status]. */
    const answersOf = async (raw: RawClient) => {
      const answers: number[][] = [];
      for (;;) {
        const answer = await raw.next(5_000).catch(() => undefined);
        if (!answer) return answers;
        answers.push([answer.commandId, answer.sequence, answer.status]);
      }
    };
    const late = (from: number) => [
      encodePdu(UNBIND, from),
      encodePdu(ENQUIRE_LINK, from + 1),
      encodePdu(SUBMIT_SM, from + 2, 0, submitBody("SWBRD", "9876543274", "late")),
      encodePdu(BIND_TRANSMITTER, from + 3, 0, bindBody(account)),
      encodePdu(0x00000099, from + 4),
    ];
    const lateAnswers = (from: number) => [
      [0x80000015, from + 1, 0],
      [0x80000004, from + 2, ESME_RINVBNDSTS],
      [0x80000002, from + 3, ESME_RINVBNDSTS],
      [0x80000000, from + 4, ESME_RINVCMDID],
      [0x80000006, from, 0],
    ];
    // Bound, then one write: the unbind and what the client sent after it arrive in one read.
    const bound = new RawClient(smppPort(t));
    await bound.connected();
    await bound.bind(account, BIND_TRANSMITTER);
    bound.send(Buffer.concat(late(21)));
    expect(await answersOf(bound)).toEqual(lateAnswers(21));
    expect(bound.closed).toBe(true);
    // The bind in the same write: answered first, then the rest as above.
    const pipelined = new RawClient(smppPort(t));
    await pipelined.connected();
    pipelined.send(Buffer.concat([encodePdu(BIND_TRANSMITTER, 1, 0, bindBody(account)), ...late(31)]));
    expect(await answersOf(pipelined)).toEqual([[0x80000002, 1, 0], ...lateAnswers(31)]);
    // Never bound: the same answers.
    const unbound = new RawClient(smppPort(t));
    await unbound.connected();
    unbound.send(Buffer.concat(late(41)));
    expect(await answersOf(unbound)).toEqual(lateAnswers(41));
    const rows = await t.db.store.db.selectFrom("messages").select("id").where("account_id", "=", account.id).execute();
    expect(rows).toEqual([]);
  });

  it("answers a submit sent behind its bind in one write as the bound session does", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    raw.send(
      Buffer.concat([
        encodePdu(BIND_TRANSMITTER, 1, 0, bindBody(account)),
        encodePdu(SUBMIT_SM, 2, 0, submitBody("SWBRD", "9876543275", "right behind")),
      ]),
    );
    expect(await raw.next()).toMatchObject({ commandId: 0x80000002, sequence: 1, status: 0 });
    expect(await raw.next()).toMatchObject({ commandId: 0x80000004, sequence: 2, status: 0 });
    raw.destroy();
  });

  it("throttles past the account's submits per second without holding the window", async () => {
    const t = gateway();
    const account = await smppAccount(t, { submitsPerSecond: 1 });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    await raw.bind(account, BIND_TRANSMITTER);
    raw.send(
      Buffer.concat(
        Array.from({ length: 50 }, (_, i) => encodePdu(SUBMIT_SM, 2 + i, 0, submitBody("SWBRD", "9876543210", "t"))),
      ),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) statuses.push((await raw.next()).status);
    expect(statuses.filter((s) => s === 0)).toHaveLength(1);
    expect(statuses.filter((s) => s === ESME_RTHROTTLED)).toHaveLength(49);
    raw.destroy();
  });
});
