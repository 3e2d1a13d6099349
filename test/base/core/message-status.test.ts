import { describe, expect, it } from "vitest";
import {
  assertTransition,
  canTransition,
  IllegalTransitionError,
  publicStatus,
  sourcesOf,
} from "../../../src/base/core/message-status.js";

describe("message state machine", () => {
  it("allows the pipeline's transitions", () => {
    for (const [from, to] of [
      ["scheduled", "queued"],
      ["queued", "dispatching"],
      ["dispatching", "submitted"],
      ["dispatching", "queued"],
      ["submitted", "delivered"],
      ["submitted", "failed"],
      ["queued", "cancelled"],
    ] as const) {
      expect(canTransition(from, to)).toBe(true);
    }
  });

  it("throws on an illegal transition, naming it", () => {
    expect(() => assertTransition("delivered", "failed", "q1")).toThrow(IllegalTransitionError);
    expect(() => assertTransition("delivered", "failed", "q1")).toThrow(/delivered -> failed \(q1\)/);
    expect(() => assertTransition("failed", "delivered")).toThrow(IllegalTransitionError);
    expect(() => assertTransition("submitted", "queued")).toThrow(IllegalTransitionError);
    expect(() => assertTransition("cancelled", "queued")).toThrow(IllegalTransitionError);
  });

  it("final states have no way out, and delivery reports apply only to submitted messages", () => {
    for (const final of ["delivered", "failed", "cancelled"] as const) {
      for (const to of ["queued", "submitted", "delivered", "failed"] as const)
        expect(canTransition(final, to)).toBe(false);
    }
    expect(sourcesOf("delivered")).toEqual(["submitted"]);
    expect(publicStatus("dispatching")).toBe("queued");
  });
});
