import { describe, expect, it } from "vitest";
import { normalizeWhitespace, TemplateIndex, templateRegExp, VAR_MAX } from "../../../src/channels/sms/dlt-matcher.js";
import { seededRandom } from "../../helpers/random.js";

describe("DLT template matching", () => {
  const index = new TemplateIndex([
    { content: "Your OTP is {#var#}. Do not share it with anyone.", value: "otp" },
    { content: "Dear {#var#}, your order {#var#} has shipped.", value: "shipped" },
    { content: "Dear {#var#}, your order {#var#} is delivered.", value: "delivered" },
    { content: "{#var#} is your login code", value: "leading-var" },
    { content: "Balance: Rs {#var#}", value: "balance" },
  ]);

  it("matches placeholders of up to 30 characters, the rest literally", () => {
    expect(index.match("Your OTP is 482913. Do not share it with anyone.")).toBe("otp");
    expect(index.match("Dear Asha, your order #A-77 has shipped.")).toBe("shipped");
    expect(index.match("Dear Asha, your order #A-77 is delivered.")).toBe("delivered");
    expect(index.match("991827 is your login code")).toBe("leading-var");
    expect(index.match("Balance: Rs 1,024.50")).toBe("balance");
    expect(index.match(`Balance: Rs ${"9".repeat(VAR_MAX)}`)).toBe("balance");
    expect(index.match(`Balance: Rs ${"9".repeat(VAR_MAX + 1)}`)).toBeUndefined();
    expect(index.match("Your OTP is 482913. Do share it with anyone.")).toBeUndefined();
    expect(index.match("Your OTP is 482913. Do not share it with anyone. Extra")).toBeUndefined();
  });

  it("tolerates whitespace differences", () => {
    expect(index.match("  Your  OTP is\n482913.   Do not share it with anyone. ")).toBe("otp");
    expect(index.match("Dear   Asha,\tyour order 7 has shipped.")).toBe("shipped");
  });

  it("agrees with the regular-expression definition on random templates and texts", () => {
    const random = seededRandom(11);
    const words = ["Dear", "OTP", "is", "your", "code", ".", ",", "Rs", "a", "b", " ", "x y"];
    const pick = () => words[Math.floor(random() * words.length)]!;
    for (let round = 0; round < 400; round++) {
      const parts: string[] = [];
      const length = 1 + Math.floor(random() * 6);
      for (let i = 0; i < length; i++) parts.push(random() < 0.3 ? "{#var#}" : pick());
      const content = parts.join(random() < 0.5 ? " " : "");
      const single = new TemplateIndex([{ content, value: true }]);
      const reference = templateRegExp(content);
      for (let probe = 0; probe < 20; probe++) {
        const text = parts
          .map((p) => (p === "{#var#}" ? "z".repeat(Math.floor(random() * 36)) : random() < 0.1 ? pick() : p))
          .join(random() < 0.5 ? " " : "");
        expect({ content, text, ours: single.match(text) === true }).toEqual({
          content,
          text,
          ours: reference.test(normalizeWhitespace(text)),
        });
      }
    }
  });

  it("stays fast on an adversarial template", () => {
    const content = `${"{#var#} ".repeat(12)}end`;
    const single = new TemplateIndex([{ content, value: 1 }]);
    const started = performance.now();
    expect(single.match(`${"a ".repeat(300)}nope`)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(1000);
  });

  describe("strict (issue 40, item 3): whitespace as registered", () => {
    const strict = new TemplateIndex(
      [
        { content: "Your OTP is {#var#}. Do not share it with anyone.", value: "otp" },
        { content: "Dear {#var#},\nyour order {#var#} has shipped.", value: "shipped" },
        { content: "{#var#} is your login code", value: "leading-var" },
        { content: "Balance: Rs {#var#}", value: "balance" },
      ],
      "strict",
    );

    it("matches only the registered whitespace, placeholders as before", () => {
      expect(strict.match("Your OTP is 482913. Do not share it with anyone.")).toBe("otp");
      expect(strict.match("Your OTP is 482 913. Do not share it with anyone.")).toBe("otp");
      expect(strict.match("Your OTP is 482913.  Do not share it with anyone.")).toBeUndefined();
      expect(strict.match(" Your OTP is 482913. Do not share it with anyone.")).toBeUndefined();
      expect(strict.match("Your OTP is 482913. Do not share it with anyone. ")).toBeUndefined();
      expect(strict.match("Dear Asha,\nyour order 7 has shipped.")).toBe("shipped");
      expect(strict.match("Dear Asha, your order 7 has shipped.")).toBeUndefined();
      expect(strict.match("Dear Asha,\r\nyour order 7 has shipped.")).toBeUndefined();
    });

    it("agrees with the regular-expression definition on random templates and texts", () => {
      const random = seededRandom(12);
      const words = ["Dear", "OTP", "is", " ", "  ", "\n", "x y", "{#var#}", "."];
      const pick = () => words[Math.floor(random() * words.length)]!;
      for (let round = 0; round < 300; round++) {
        const parts = Array.from({ length: 1 + Math.floor(random() * 6) }, pick);
        const content = parts.join("");
        const single = new TemplateIndex([{ content, value: true }], "strict");
        const reference = templateRegExp(content, "strict");
        for (let probe = 0; probe < 20; probe++) {
          const text = parts
            .map((p) => (p === "{#var#}" ? " z".repeat(Math.floor(random() * 18)) : random() < 0.15 ? pick() : p))
            .join("");
          expect({ content, text, ours: single.match(text) === true }).toEqual({
            content,
            text,
            ours: reference.test(text),
          });
        }
      }
    });
  });

  describe("explain: where the closest template stopped matching", () => {
    const templates = [
      { content: "Your OTP is {#var#}. Do not share it with anyone.", value: "otp" },
      { content: "Your order {#var#} has shipped.", value: "shipped" },
      { content: "Balance: Rs {#var#}", value: "balance" },
      { content: "Hello there", value: "hello" },
    ];
    const strict = new TemplateIndex(templates, "strict");
    const lenient = new TemplateIndex(templates, "lenient");

    it.each([
      ["a double space", "Your OTP is 4821.  Do not share it with anyone.", 18, "Do not share it with anyone."],
      ["a changed word", "Your OTP is 4821. Do NOT share it with anyone.", 21, "not share it with anyone."],
      [
        "a literal that never comes",
        "Your OTP is 4821, please keep it safe",
        12,
        "{#var#}. Do not share it with anyone.",
      ],
      ["a text cut short", "Your OTP is 4821. Do not", 24, " share it with anyone."],
      ["a text that goes on", "Hello there, friend", 11, ""],
      ["a placeholder over 30 characters", `Balance: Rs ${"9".repeat(31)}`, 42, ""],
      ["a text no template starts like", "Your parcel is here", 5, "order {#var#} has shipped."],
      [
        "a line break for a space",
        "Your OTP is 4821.\nDo not share it with anyone.",
        17,
        " Do not share it with anyone.",
      ],
    ])("strict, %s", (_, text, position, expected) => {
      expect(strict.match(text)).toBeUndefined();
      expect(strict.explain(text)).toMatchObject({ position, expected });
    });

    it("counts positions in the text as sent when lenient, whose whitespace it collapsed", () => {
      const text = "Your   OTP is 4821. Do NOT share it with anyone.";
      expect(lenient.match(text)).toBeUndefined();
      expect(lenient.explain(text)).toMatchObject({
        value: "otp",
        position: 23,
        expected: "not share it with anyone.",
      });
      expect(text.slice(23)).toMatch(/^NOT share/);
    });

    it("explains against the template the send named, when it names one", () => {
      expect(strict.explain("Your OTP is 4821.", (v) => v === "shipped")).toMatchObject({
        value: "shipped",
        position: 5,
        expected: "order {#var#} has shipped.",
      });
    });

    it("says nothing for an account without templates", () => {
      expect(new TemplateIndex<string>([], "strict").explain("anything")).toBeUndefined();
    });
  });
});
