// A refusal made in the worker thread (the SQLite Acceptor, decision 0093) crosses to the main
// thread as data: what the answer and the log of refusals read from it must cross too.
import { describe, expect, it } from "vitest";
import { deserializeError, serializeError } from "../../src/app/threads.js";
import { aboutInput, GatewayError } from "../../src/base/core/errors.js";

/** What the main thread gets for `error` thrown in the worker thread (postMessage clones data). */
const crossed = (error: unknown) => deserializeError(structuredClone(serializeError(error)));

describe("a refusal crossing from the worker thread", () => {
  it("keeps its code, message, details and every mark", () => {
    const error = aboutInput(
      new GatewayError("insufficient_credits", "Credit not available", { field: "to" }),
      "dltTemplateId",
    );
    error.upline = { reason: "the sms wallet holds 0.25, the send needs 0.6", level: 0 };
    error.item = { position: 2, recipient: "9876543210" };
    const back = crossed(error);
    expect(back).toBeInstanceOf(GatewayError);
    const gateway = back as GatewayError;
    expect(gateway.code).toBe("insufficient_credits");
    expect(gateway.message).toBe("Credit not available");
    expect(gateway.details).toEqual({ field: "to" });
    expect(gateway.upline).toEqual(error.upline);
    expect(gateway.item).toEqual(error.item);
    expect(gateway.about).toBe("dltTemplateId");
    expect(gateway.httpStatus).toBe(error.httpStatus);
  });

  it("leaves out the marks a refusal does not have", () => {
    const gateway = crossed(new GatewayError("insufficient_credits")) as GatewayError;
    expect(gateway.upline).toBeUndefined();
    expect(gateway.item).toBeUndefined();
    expect(gateway.about).toBeUndefined();
    expect(gateway.details).toBeUndefined();
  });

  it("answers any other error as a plain Error with its message", () => {
    const back = crossed(new TypeError("boom"));
    expect(back).not.toBeInstanceOf(GatewayError);
    expect(back.message).toBe("boom");
  });
});
