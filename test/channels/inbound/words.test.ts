import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/base/runtime/config.js";
import { firstWord, isOptIn } from "../../../src/channels/inbound/keywords.js";
import { normalizePhoneNumber } from "../../../src/channels/inbound/numbers.js";

describe("OPT_OUT_WORDS", () => {
  it("defaults to STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT", () => {
    expect([...loadConfig({}).optOutWords]).toEqual(["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT"]);
  });

  it("reads comma-separated words in any case", () => {
    expect([...loadConfig({ OPT_OUT_WORDS: " stop,Band , ,RUKO" }).optOutWords]).toEqual(["STOP", "BAND", "RUKO"]);
  });

  it.each([
    ",",
    "STOP,two words",
    "STOP,START",
    "STOP!",
    "X".repeat(31),
  ])("refuses %j, naming the variable", (value) => {
    expect(() => loadConfig({ OPT_OUT_WORDS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ OPT_OUT_WORDS: value })).toThrow(/OPT_OUT_WORDS/);
  });
});

describe("the first word of an inbound message", () => {
  it.each([
    ["info please", "INFO"],
    ["  Info, thanks", "INFO"],
    ["STOP.", "STOP"],
    ['"join" now', "JOIN"],
    ["please info", "PLEASE"],
    ["", ""],
    ["!!!", ""],
  ])("of %j is %j", (message, word) => {
    expect(firstWord(message)).toBe(word);
  });

  it("opts in only when the whole message is START", () => {
    expect([" start ", "START!", "Start"].map(isOptIn)).toEqual([true, true, true]);
    expect(["start the sale", "restart", "START now", ""].map(isOptIn)).toEqual([false, false, false, false]);
  });
});

describe("phone numbers of inbound messages", () => {
  it.each([
    ["+91 98765-43210", "9876543210"],
    ["919876543210", "9876543210"],
    ["09876543210", "9876543210"],
    ["+1 (415) 555-2671", "14155552671"],
    ["56767", "56767"],
    ["VM-ACMEIN", ""],
  ])("%j is stored as %j", (raw, stored) => {
    expect(normalizePhoneNumber(raw)).toBe(stored);
  });
});
