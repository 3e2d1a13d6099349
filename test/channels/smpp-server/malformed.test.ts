// Bytes no ESME library would send, written on a raw socket to the real gateway: an unknown or
// SMSC-only command gets generic_nack (ESME_RINVCMDID) and the session goes on; a length no PDU
// can have gets generic_nack (ESME_RINVCMDLEN) and the connection is closed; a body cut short
// gets its command's error answer. Seeded random and truncated PDUs, on many connections, never
// bring the server down: a client binds and submits afterwards as before. A fast-check property
// sends well-framed requests with random bodies on a bound session: each gets its own answer
// (its response or generic_nack, by sequence) and the session goes on.
import fc from "fast-check";
import { expect, it } from "vitest";
import { unit } from "../../../src/base/core/seeded.js";
import { encodePdu } from "../../../src/base/smpp/index.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { useTestGateway } from "../../helpers/gateway.js";
import { boundEsme, smppAccount, smppPort } from "./client.js";
import { bindBody, cstrings, RawClient } from "./raw-client.js";

const GENERIC_NACK = 0x80000000;
const ESME_RINVCMDLEN = 0x02;
const ESME_RINVCMDID = 0x03;
const ESME_RINVBNDSTS = 0x04;

describeEachEngine("SMPP server: malformed PDUs", (engine) => {
  const gateway = useTestGateway(engine, { env: { SMPP_SERVER_PORT: "auto", SIMULATOR_LATENCY_MS: "20" } });

  it("answers an unknown or SMSC-only command with generic_nack and keeps the session", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    raw.send(encodePdu(0x00000099, 7));
    const nack = await raw.next();
    expect(nack).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDID, sequence: 7 });
    // deliver_sm is the SMSC's to send.
    raw.send(encodePdu(0x00000005, 8, 0, Buffer.alloc(20)));
    expect(await raw.next()).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDID, sequence: 8 });
    // Still usable: it binds.
    raw.send(encodePdu(0x00000009, 9, 0, bindBody(account)));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000009, status: 0, sequence: 9 });
    raw.send(encodePdu(0x00000099, 10));
    expect(await raw.next()).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDID, sequence: 10 });
    // replace_sm is not supported (docs/smpp-server.md): cancel_sm and a new submit instead.
    raw.send(encodePdu(0x00000007, 12, 0, Buffer.from("q1\0\x05\x00SWBRD\0\0\0\x00\x00\x02hi", "latin1")));
    expect(await raw.next()).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDID, sequence: 12 });
    raw.send(encodePdu(0x00000015, 11));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000015, status: 0, sequence: 11 });
    raw.destroy();
  });

  it("closes the connection after generic_nack on a length no PDU can have", async () => {
    const t = gateway();
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    const header = Buffer.alloc(16);
    header.writeUInt32BE(8, 0); // shorter than the header itself
    header.writeUInt32BE(0x00000015, 4);
    header.writeUInt32BE(3, 12);
    raw.send(header);
    // The header was read whole: the nack carries its sequence_number.
    expect(await raw.next()).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDLEN, sequence: 3 });
    await raw.untilClosed();
  });

  it("answers generic_nack on a length no PDU can have even when more bytes follow it, on a bound session", async () => {
    const t = gateway();
    const account = await smppAccount(t);
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    raw.send(encodePdu(0x00000009, 1, 0, bindBody(account)));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000009, status: 0 });
    // A length of 16 MB, then the rest of the client's bytes: had the server cut the connection
    // with them unread, the reset would have taken the nack with it.
    const header = Buffer.alloc(16);
    header.writeUInt32BE(0x01000040, 0);
    header.writeUInt32BE(0x00000021, 4);
    header.writeUInt32BE(7, 12);
    for (const piece of [header, Buffer.alloc(1), Buffer.alloc(47, 0x31)]) {
      raw.send(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await raw.next()).toMatchObject({ commandId: GENERIC_NACK, status: ESME_RINVCMDLEN, sequence: 7 });
    await raw.untilClosed();
  });

  it("answers a body cut short with its command's error, bound or not", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    // A bind whose password has no NUL.
    raw.send(encodePdu(0x00000009, 1, 0, Buffer.from(`${account.username}\0${account.smppPassword}`, "latin1")));
    const refused = await raw.next();
    expect(refused.commandId).toBe(0x80000009);
    expect(refused.status).not.toBe(0);
    // A submit before any bind is out of place, whatever its body.
    raw.send(encodePdu(0x00000004, 2, 0, Buffer.from([1, 2, 3])));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000004, status: ESME_RINVBNDSTS, sequence: 2 });
    raw.send(encodePdu(0x00000009, 3, 0, bindBody(account)));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000009, status: 0 });
    // A submit_sm that ends inside destination_addr.
    raw.send(
      encodePdu(
        0x00000004,
        4,
        0,
        Buffer.concat([
          cstrings("", "SWBRD").subarray(0, 1),
          Buffer.from([0, 0]),
          cstrings("SWBRD"),
          Buffer.from([1, 1]),
          Buffer.from("98765", "latin1"),
        ]),
      ),
    );
    expect(await raw.next()).toMatchObject({ commandId: 0x80000004, status: ESME_RINVCMDLEN, sequence: 4 });
    // A TLV whose length runs past the body.
    const submit = Buffer.concat([
      cstrings(""),
      Buffer.from([0, 0]),
      cstrings("SWBRD"),
      Buffer.from([1, 1]),
      cstrings("9876543210"),
      Buffer.from([0, 0, 0]),
      cstrings("", ""),
      Buffer.from([0, 0, 0, 0, 2]),
      Buffer.from("hi", "latin1"),
      Buffer.from([0x04, 0x24, 0x00, 0x40, 0x41]),
    ]);
    raw.send(encodePdu(0x00000004, 5, 0, submit));
    const tlv = await raw.next();
    expect(tlv.sequence).toBe(5);
    expect(tlv.status).not.toBe(0);
    // The same submit whole is taken.
    raw.send(encodePdu(0x00000004, 6, 0, submit.subarray(0, submit.length - 5)));
    const taken = await raw.next();
    expect(taken).toMatchObject({ commandId: 0x80000004, status: 0, sequence: 6 });
    const messages = await t.db.store.db
      .selectFrom("messages")
      .select("body")
      .where("account_id", "=", account.id)
      .execute();
    expect(messages.map((m) => m.body)).toEqual(["hi"]);
    raw.destroy();
  });

  it("answers every well-framed request with a random body, on one bound session (fast-check)", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const raw = new RawClient(smppPort(t));
    await raw.connected();
    raw.send(encodePdu(0x00000009, 1, 0, bindBody(account)));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000009, status: 0 });
    // Requests only (no unbind, which ends the session): the SMPP ones an ESME sends, ones only an
    // SMSC sends, an unknown one.
    const commands = [0x04, 0x103, 0x21, 0x03, 0x02, 0x09, 0x15, 0x05, 0x102, 0x12345678];
    let sequence = 1;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...commands), fc.uint8Array({ maxLength: 300 }), async (command, body) => {
        sequence++;
        raw.send(encodePdu(command, sequence, 0, Buffer.from(body)));
        let answer = await raw.next(5_000);
        // A receipt of a random submit that happened to be taken: not the answer looked for.
        while (answer.commandId === 0x00000005) answer = await raw.next(5_000);
        expect(answer.sequence).toBe(sequence);
        expect([(command | 0x80000000) >>> 0, GENERIC_NACK]).toContain(answer.commandId);
      }),
      { numRuns: 300, seed: 21 },
    );
    raw.send(encodePdu(0x00000015, 99_999));
    expect(await raw.next()).toMatchObject({ commandId: 0x80000015, status: 0, sequence: 99_999 });
    raw.destroy();
  });

  it("survives seeded random and truncated PDUs on many connections", async () => {
    const t = gateway();
    const account = await smppAccount(t, {}, { credits: { sms: 10 } });
    const port = smppPort(t);
    const commands = [
      0x00000004, 0x00000009, 0x00000002, 0x00000103, 0x00000021, 0x00000006, 0x00000015, 0x80000005, 0x12345678,
    ];
    for (let round = 0; round < 40; round++) {
      const random = (label: string) => unit(`${round}:${label}`, 42);
      const raw = new RawClient(port);
      await raw.connected();
      if (round % 4 === 0) {
        // Bound first, so the garbage reaches the bound commands too.
        raw.send(encodePdu(0x00000009, 1, 0, bindBody(account)));
        await raw.next();
      }
      const body = Buffer.from(
        Array.from({ length: Math.floor(random("len") * 120) }, (_, i) => Math.floor(random(`b${i}`) * 256)),
      );
      const command = commands[Math.floor(random("cmd") * commands.length)]!;
      let pdu = encodePdu(command, round + 2, 0, body);
      if (round % 3 === 1) pdu = pdu.subarray(0, Math.floor(random("cut") * pdu.length)); // truncated
      if (round % 5 === 2) pdu = Buffer.from(Array.from({ length: 40 }, (_, i) => Math.floor(random(`g${i}`) * 256))); // garbage
      raw.send(pdu);
      raw.socket.end();
      raw.destroy();
    }
    // The server is still there and still works.
    const client = await boundEsme(t, account, "transceiver");
    const answer = await client.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543219",
      short_message: "still here",
    });
    expect(answer.command_status).toBe(0);
  });
});
