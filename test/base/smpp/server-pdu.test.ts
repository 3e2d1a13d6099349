// The deliver_sm the server writes, read back by the `smpp` package: addresses longer than
// SMPP 3.4's 21 octets (NUL included) are cut to 20 characters, a long text goes in
// message_payload, and the TLVs come through.
import smpp from "smpp";
import { describe, expect, it } from "vitest";
import { COMMAND, deliverSmBody, encodePdu, TLV } from "../../../src/base/smpp/index.js";

function readBack(body: Buffer) {
  return new smpp.PDU(encodePdu(COMMAND.deliver_sm, 1, 0, body));
}

describe("SMPP server: deliver_sm bodies", () => {
  it("keeps addresses within 21 octets", () => {
    const body = deliverSmBody({
      source: "A".repeat(25),
      destination: "9".repeat(24),
      esmClass: 0,
      dataCoding: 0,
      message: Buffer.from("hi"),
      tlvs: [],
    });
    const pdu = readBack(body);
    expect(pdu.source_addr).toBe("A".repeat(20));
    expect(pdu.destination_addr).toBe("9".repeat(20));
    // service_type NUL, TON, NPI, then source_addr: 20 characters and its NUL.
    expect(body.indexOf(0, 3) - 3).toBe(20);
  });

  it("moves text past 254 octets into message_payload and keeps the TLVs", () => {
    const text = Buffer.from("x".repeat(300));
    const pdu = readBack(
      deliverSmBody({
        source: "919876543210",
        destination: "SWBRD",
        esmClass: 0x04,
        dataCoding: 0,
        message: text,
        tlvs: [[TLV.message_state, Buffer.from([2])]],
      }),
    );
    expect(pdu.source_addr_ton).toBe(1);
    expect(pdu.dest_addr_ton).toBe(5);
    expect(pdu.message_state).toBe(2);
    const payload = pdu.message_payload as { message?: string } | Buffer;
    expect(Buffer.isBuffer(payload) ? payload.toString() : payload.message).toBe("x".repeat(300));
  });
});
