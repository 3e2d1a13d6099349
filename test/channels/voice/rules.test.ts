// The voice rules that need no server: the provider's signature (Twilio's published example),
// how numbers are read, what a text costs, the spoken document, and the order of call statuses.
import { describe, expect, it } from "vitest";
import { callUnits, MAX_TEXT_CHARS, speechSeconds } from "../../../src/channels/voice/billing.js";
import { withCallStatus } from "../../../src/channels/voice/call-meta.js";
import { deliveryReportOf } from "../../../src/channels/voice/call-status.js";
import { dialString, parseCallNumber } from "../../../src/channels/voice/numbers.js";
import { twilioSignature, validTwilioSignature } from "../../../src/channels/voice/twilio-signature.js";
import { sayDocument } from "../../../src/channels/voice/twiml.js";
import { signTwilio } from "./fake-provider.js";

describe("X-Twilio-Signature", () => {
  // https://www.twilio.com/docs/usage/security: the example request and its signature.
  const url = "https://mycompany.com/myapp.php?foo=1&bar=2";
  const params = {
    CallSid: "CA1234567890ABCDE",
    Caller: "+14158675310",
    Digits: "1234",
    From: "+14158675310",
    To: "+18005551212",
  };

  it("matches Twilio's published example", () => {
    expect(twilioSignature("12345", url, params)).toBe("GvWf1cFY/Q7PnoempGyD5oXAezc=");
    expect(validTwilioSignature("12345", "GvWf1cFY/Q7PnoempGyD5oXAezc=", url, params)).toBe(true);
    // And the fake provider's own implementation agrees with it.
    expect(signTwilio("12345", url, Object.entries(params))).toBe("GvWf1cFY/Q7PnoempGyD5oXAezc=");
  });

  it("refuses a missing signature, another token, URL or value", () => {
    const good = twilioSignature("12345", url, params);
    expect(validTwilioSignature("12345", undefined, url, params)).toBe(false);
    expect(validTwilioSignature("12345", "", url, params)).toBe(false);
    expect(validTwilioSignature("54321", good, url, params)).toBe(false);
    expect(validTwilioSignature("12345", good, "https://mycompany.com/myapp.php?foo=1&bar=3", params)).toBe(false);
    expect(validTwilioSignature("12345", good, url, { ...params, Digits: "1235" })).toBe(false);
    expect(validTwilioSignature("12345", good, url, { ...params, Extra: "" })).toBe(false);
  });

  it("signs each value of a repeated parameter, sorted", () => {
    expect(twilioSignature("t", "https://x/y", { A: ["2", "1"], B: "3" })).toBe(
      signTwilio("t", "https://x/y", [
        ["A", "1"],
        ["A", "2"],
        ["B", "3"],
      ]),
    );
  });
});

describe("call numbers", () => {
  it.each([
    ["9876543210", "+919876543210", "9876543210"],
    ["+91 98765 43210", "+919876543210", "9876543210"],
    ["09876543210", "+919876543210", "9876543210"],
    ["919876543210", "+919876543210", "9876543210"],
    // Also a mobile's form (8047110000): stored as SMS stores it, dialled the same.
    ["080 4711 0000", "+918047110000", "8047110000"],
    ["011 4000 0000", "+911140000000", "+911140000000"],
    ["(011) 4000-0000", "+911140000000", "+911140000000"],
    ["911140000000", "+911140000000", "+911140000000"],
    ["+91 1800 123 456", "+911800123456", "+911800123456"],
    ["+44 7911 123456", "+447911123456", "+447911123456"],
    ["0044 7911 123456", "+447911123456", "+447911123456"],
  ])("reads %s as %s (stored as %s)", (raw, e164, recipient) => {
    expect(parseCallNumber(raw)).toMatchObject({ e164, recipient });
    expect(dialString(recipient)).toBe(e164);
  });

  it.each([
    "",
    "12345",
    "5876543210", // 10 digits that are no mobile: a landline needs its 0
    "98765 4321O",
    "9876543210,9876543211",
    "+4490912345678",
    "+91 98765 43210 ext 5",
    "SWBRD",
  ])("refuses %j", (raw) => {
    expect(parseCallNumber(raw)).toBeUndefined();
  });

  it("marks premium-rate numbers", () => {
    expect(parseCallNumber("+19005550123")?.premium).toBe(true);
    expect(parseCallNumber("+12015550123")?.premium).toBe(false);
  });
});

describe("billing", () => {
  it("estimates 15 characters a second and charges per started unit, at least one", () => {
    expect(speechSeconds("Hi")).toBe(1);
    expect(speechSeconds(`  ${"a".repeat(15)}  `)).toBe(1);
    expect(speechSeconds("a".repeat(16))).toBe(2);
    expect(speechSeconds("a".repeat(450))).toBe(30);
    expect(speechSeconds("a".repeat(MAX_TEXT_CHARS))).toBe(67);
    // Characters, not UTF-16 units: Devanagari and emoji count one each.
    expect(speechSeconds("नमस्ते".repeat(5))).toBe(2);
    expect(speechSeconds("😀".repeat(15))).toBe(1);
    expect([1, 30, 31, 60, 61, 67].map((s) => callUnits(s, 30))).toEqual([1, 1, 2, 2, 3, 3]);
    expect(callUnits(67, 60)).toBe(2);
  });
});

describe("the spoken document", () => {
  it("escapes the text, keeps the language and voice, speaks Devanagari as hi-IN", () => {
    expect(sayDocument(' 1 < 2 & "3" > 0 ', { language: "en-IN" })).toBe(
      '<Response><Say language="en-IN">1 &lt; 2 &amp; &quot;3&quot; &gt; 0</Say></Response>',
    );
    expect(sayDocument("Hello", { language: "en-GB", voice: "Polly.Amy" })).toBe(
      '<Response><Say language="en-GB" voice="Polly.Amy">Hello</Say></Response>',
    );
    expect(sayDocument("आपका कोड 1234 है", { language: "en-IN" })).toBe(
      '<Response><Say language="hi-IN">आपका कोड 1234 है</Say></Response>',
    );
  });
});

describe("call statuses", () => {
  it("only moves a call's status forward", () => {
    let meta: string | null = JSON.stringify({ units: 1, speech_seconds: 2 });
    const apply = (status: Parameters<typeof withCallStatus>[1], duration?: number) => {
      const next = withCallStatus(meta, status, duration);
      if (next !== undefined) meta = next;
      return next !== undefined;
    };
    expect(apply("ringing")).toBe(true);
    expect(apply("initiated")).toBe(false);
    expect(apply("ringing")).toBe(false);
    expect(apply("in-progress")).toBe(true);
    expect(apply("completed", 9)).toBe(true);
    expect(apply("failed", 0)).toBe(false);
    expect(JSON.parse(meta)).toEqual({ units: 1, speech_seconds: 2, call_status: "completed", call_duration: 9 });
  });

  it("maps final statuses to delivered or failed with the status as the error", () => {
    const base = { connector: "voice-http", callSid: "CA1", at: 5 };
    expect(deliveryReportOf({ ...base, status: "ringing" })).toBeUndefined();
    expect(deliveryReportOf({ ...base, status: "completed" })).toEqual({
      connector: "voice-http",
      upstreamId: "CA1",
      at: 5,
      status: "delivered",
    });
    for (const status of ["busy", "no-answer", "failed", "canceled"] as const) {
      expect(deliveryReportOf({ ...base, status })).toMatchObject({ status: "failed", code: status });
    }
  });
});
