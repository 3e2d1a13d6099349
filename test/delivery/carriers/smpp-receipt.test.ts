// Delivery receipt text and TLVs as SMSCs send them: the standard layout, other cases and
// spacing, missing fields, TLVs that override the text, and ids written in decimal.
import { describe, expect, it } from "vitest";
import {
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
