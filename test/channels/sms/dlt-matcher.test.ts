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
});
