// SMPP 3.4's message states, one table for both roles: the values and receipt words of 5.2.28 and
// appendix B; the server's states (receipts, query_sm) and the carriers' client's reading of an
// SMSC's message_state TLV both come from it, so a state the server writes reads back the same.
import { describe, expect, it } from "vitest";
import { MESSAGE_STATE, RECEIPT_STAT, statOfMessageState } from "../../../src/base/smpp/index.js";
import { smppStateOf } from "../../../src/channels/smpp-server/message-state.js";
import { parseReceipt } from "../../../src/delivery/carriers/smpp/receipt.js";

describe("SMPP message states", () => {
  it("gives each message_state of SMPP 3.4 its receipt word, and none to a value it does not define", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(statOfMessageState)).toEqual([
      "ENROUTE",
      "DELIVRD",
      "EXPIRED",
      "DELETED",
      "UNDELIV",
      "ACCEPTD",
      "UNKNOWN",
      "REJECTD",
    ]);
    expect(statOfMessageState(0)).toBeUndefined();
    expect(statOfMessageState(9)).toBeUndefined();
    expect(RECEIPT_STAT.DELETED).toBe("DELETED");
    expect(MESSAGE_STATE.REJECTED).toBe(8);
  });

  it("reads back, as the carriers' client, every state the server writes", () => {
    const told = [
      { status: "delivered" },
      { status: "cancelled" },
      { status: "failed", error_code: "expired" },
      { status: "failed", error_code: "rejected" },
      { status: "failed", error_code: "12" },
      { status: "queued" },
    ].map(smppStateOf);
    expect(told.map((s) => [s.state, s.stat])).toEqual([
      [2, "DELIVRD"],
      [4, "DELETED"],
      [3, "EXPIRED"],
      [8, "REJECTD"],
      [5, "UNDELIV"],
      [1, "ENROUTE"],
    ]);
    for (const state of told) {
      const read = parseReceipt({ receiptedMessageId: "m1", messageState: state.state, text: "" });
      expect(read?.stat).toBe(state.stat);
      expect(read?.status).toBe(state.stat === "DELIVRD" ? "delivered" : state.final ? "failed" : "other");
    }
  });
});
