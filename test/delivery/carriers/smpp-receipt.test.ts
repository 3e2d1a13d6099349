// Delivery receipt text and TLVs as SMSCs send them: the standard layout, other cases and
// spacing, missing fields, TLVs that override the text, and ids written in decimal.
import { describe, expect, it } from "vitest";
import { parseCarrierDefinition, smppSessionOptions } from "../../../src/delivery/carriers/definitions.js";
import {
  doneAtOf,
  messageStatusFromParts,
  parseReceipt,
  parseReceiptDate,
  receiptIdMatches,
} from "../../../src/delivery/carriers/smpp/receipt.js";

const standard =
  "id:0123456789 sub:001 dlvrd:001 submit date:2611221430 done date:2611221431 stat:DELIVRD err:000 text:Hello";

describe("parseReceipt", () => {
  it("reads the standard text", () => {
    expect(parseReceipt({ text: standard })).toEqual({
      upstreamId: "0123456789",
      status: "delivered",
      stat: "DELIVRD",
      err: "000",
      doneAt: Date.UTC(2026, 10, 22, 14, 31),
    });
  });

  it("maps the final stat words to failed and the others to other", () => {
    for (const stat of ["UNDELIV", "EXPIRED", "REJECTD", "DELETED"]) {
      expect(parseReceipt({ text: `id:a stat:${stat} err:001` })?.status).toBe("failed");
    }
    for (const stat of ["ACCEPTD", "ENROUTE", "UNKNOWN"]) {
      expect(parseReceipt({ text: `id:a stat:${stat}` })?.status).toBe("other");
    }
  });

  it("is case-insensitive and tolerant of missing fields and odd spacing", () => {
    const receipt = parseReceipt({ text: "ID:ab-12  Stat:delivrd   Done Date:2611221431" });
    expect(receipt).toMatchObject({ upstreamId: "ab-12", status: "delivered", stat: "DELIVRD", err: null });
    expect(receipt?.doneAt).toBe(Date.UTC(2026, 10, 22, 14, 31));
    expect(parseReceipt({ text: "id:x" })).toMatchObject({ stat: "UNKNOWN", status: "other", doneAt: null });
  });

  it("does not read fields out of the quoted text", () => {
    expect(parseReceipt({ text: "id:real stat:UNDELIV err:034 text:id:fake stat:DELIVRD" })).toMatchObject({
      upstreamId: "real",
      status: "failed",
      err: "034",
    });
  });

  it("prefers receipted_message_id and message_state over the text", () => {
    const receipt = parseReceipt({ text: standard, receiptedMessageId: "tlv-id", messageState: 5 });
    expect(receipt).toMatchObject({ upstreamId: "tlv-id", stat: "UNDELIV", status: "failed", err: "000" });
    expect(parseReceipt({ receiptedMessageId: "only-tlv", messageState: 2 })).toMatchObject({
      status: "delivered",
    });
  });

  it("accepts the text as bytes and answers null without an id", () => {
    expect(parseReceipt({ text: Buffer.from(standard, "latin1") })?.upstreamId).toBe("0123456789");
    expect(parseReceipt({ text: "stat:DELIVRD" })).toBeNull();
    expect(parseReceipt({})).toBeNull();
  });
});

describe("parseReceiptDate", () => {
  it("reads 10 and 12 digits and refuses impossible dates", () => {
    expect(parseReceiptDate("2602281200")).toBe(Date.UTC(2026, 1, 28, 12, 0));
    expect(parseReceiptDate("260228120059")).toBe(Date.UTC(2026, 1, 28, 12, 0, 59));
    expect(parseReceiptDate("2602301200")).toBeNull();
    expect(parseReceiptDate("26022812")).toBeNull();
    expect(parseReceiptDate(null)).toBeNull();
  });

  it("reads the wall clock of the connector's zone, by name or by offset", () => {
    expect(parseReceiptDate("2602281200", "Asia/Kolkata")).toBe(Date.UTC(2026, 1, 28, 6, 30));
    expect(parseReceiptDate("260228120059", "UTC+5:30")).toBe(Date.UTC(2026, 1, 28, 6, 30, 59));
    expect(parseReceiptDate("2607010200", "America/New_York")).toBe(Date.UTC(2026, 6, 1, 6, 0));
    expect(parseReceiptDate("2602301200", "Asia/Kolkata")).toBeNull();
    expect(parseReceipt({ text: standard }, "Asia/Kolkata")?.doneAt).toBe(Date.UTC(2026, 10, 22, 9, 1));
  });

  it("keeps a part's done time no later than its receipt", () => {
    expect(doneAtOf(1_500, 1_000, 2_000)).toBe(1_500);
    expect(doneAtOf(9_000, 1_000, 2_000)).toBe(2_000);
    expect(doneAtOf(null, 1_000, 2_000)).toBe(2_000);
    // Before the submit it is kept as written (a done date to the minute).
    expect(doneAtOf(500, 1_000, 2_000)).toBe(500);
    // A receipt stamped before the submit's own clock (another process's): no later than the submit.
    expect(doneAtOf(9_000, 3_000, 2_000)).toBe(3_000);
  });
});

describe("receiptIdMatches", () => {
  it("matches the same id, a decimal rendering of a hex id, and zero padding", () => {
    expect(receiptIdMatches("ABC123", "abc123")).toBe(true);
    expect(receiptIdMatches(String(0x1f2e3d), "1f2e3d")).toBe(true);
    expect(receiptIdMatches("0000012345", "12345")).toBe(true);
    expect(receiptIdMatches("12346", "12345")).toBe(false);
    expect(receiptIdMatches("xyz", "abc")).toBe(false);
  });
});

describe("messageStatusFromParts", () => {
  it("is delivered when every part is, failed when any part failed, pending otherwise", () => {
    expect(messageStatusFromParts(["delivered", "delivered", "delivered"])).toBe("delivered");
    expect(messageStatusFromParts(["delivered", null, "failed"])).toBe("failed");
    expect(messageStatusFromParts(["delivered", null])).toBeNull();
    expect(messageStatusFromParts(["delivered", "other"])).toBeNull();
    expect(messageStatusFromParts([])).toBeNull();
  });
});

describe("receipt_time_zone", () => {
  const connector = (zone?: string) => ({
    name: "smsc-in",
    type: "smpp",
    host: "127.0.0.1",
    port: 2775,
    system_id: "sw",
    password: "pw",
    ...(zone === undefined ? {} : { receipt_time_zone: zone }),
  });

  it("is an IANA zone or an offset, handed to the session; UTC when not given", () => {
    for (const zone of ["Asia/Kolkata", "UTC+5:30"]) {
      const definition = parseCarrierDefinition(connector(zone));
      expect(definition.type === "smpp" && smppSessionOptions(definition).receiptTimeZone).toBe(zone);
    }
    const plain = parseCarrierDefinition(connector());
    expect(plain.type === "smpp" && smppSessionOptions(plain).receiptTimeZone).toBeUndefined();
  });

  it("refuses a zone that is none, naming the field", () => {
    for (const zone of ["Asia/Bangalore", "+05:30", ""]) {
      expect(() => parseCarrierDefinition(connector(zone)), zone).toThrow(/receipt_time_zone/);
    }
  });
});
