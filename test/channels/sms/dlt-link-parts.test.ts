// The DLT link check of a text matched to a template, read by parts (base/core/dlt-link-parts.ts):
// it must answer exactly what reading the whole text answers, for links split between the fixed
// text and a value, links and numbers inside a value, and links in the fixed text itself.
import { describe, expect, it } from "vitest";
import { findingsIn, findUnlistedLink } from "../../../src/base/core/dlt-links.js";
import { TemplateIndex } from "../../../src/channels/sms/dlt-matcher.js";
import { entityLists } from "../../helpers/dlt-lists.js";
import { seededRandom } from "../../helpers/random.js";

/** The by-parts answer for `text` matched to `template` (strict), beside the whole text's. */
function byParts(template: string, text: string, links: ReturnType<typeof entityLists>) {
  const matched = new TemplateIndex([{ content: template, value: 1 }], "strict").matchWithLayout(text);
  if (!matched?.layout) throw new Error(`${JSON.stringify(text)} does not match ${JSON.stringify(template)} as sent`);
  const { plan, pieceStarts } = matched.layout;
  return { parts: plan.firstUnlisted(text, pieceStarts, links), whole: findUnlistedLink(text, links) };
}

describe("DLT links read by parts of a matched template", () => {
  const approved = entityLists(["shop7.example.com/offers/", "example.in/app"], ["1800 123 4567"]);

  it("finds a link split between the fixed text and a value", () => {
    const template = "Track it at shop7.{#var#} or call us";
    expect(byParts(template, "Track it at shop7.example.com/offers/42 or call us", approved)).toEqual({
      parts: undefined,
      whole: undefined,
    });
    const unlisted = { kind: "url", text: "shop7.evil.com/x" };
    expect(byParts(template, "Track it at shop7.evil.com/x or call us", approved)).toEqual({
      parts: unlisted,
      whole: unlisted,
    });
    // A host split by a space around its dot, the dot in the fixed text.
    const spaced = { kind: "url", text: "evil. com/app" };
    expect(byParts("Get it at evil. {#var#} today", "Get it at evil. com/app today", approved)).toEqual({
      parts: spaced,
      whole: spaced,
    });
  });

  it("finds a link wholly inside a value", () => {
    const template = "Your OTP is {#var#}. Track it at {#var#} or call {#var#}.";
    const ok = "Your OTP is 482913. Track it at shop7.example.com/offers/42 or call 1800 123 4567.";
    expect(byParts(template, ok, approved)).toEqual({ parts: undefined, whole: undefined });
    const bad = "Your OTP is 482913. Track it at bit.ly/x42 or call 1800 123 4567.";
    const unlisted = { kind: "url", text: "bit.ly/x42" };
    expect(byParts(template, bad, approved)).toEqual({ parts: unlisted, whole: unlisted });
  });

  it("finds a number inside a value, and one joined across the fixed text", () => {
    const template = "Your OTP is {#var#}. Track it at {#var#} or call {#var#}.";
    const unlisted = { kind: "callback", text: "+91 98765 43210" };
    const text = "Your OTP is 482913. Track it at shop7.example.com/offers/42 or call +91 98765 43210.";
    expect(byParts(template, text, approved)).toEqual({ parts: unlisted, whole: unlisted });
    const joined = { kind: "callback", text: "98765 43210" };
    expect(byParts("Call 98765 {#var#} now", "Call 98765 43210 now", approved)).toEqual({
      parts: joined,
      whole: joined,
    });
  });

  it("checks a link in the template's fixed text against the lists as they are now", () => {
    const template = "Sale! See example.in/app for offers, code {#var#}";
    const text = "Sale! See example.in/app for offers, code X9";
    expect(byParts(template, text, approved)).toEqual({ parts: undefined, whole: undefined });
    const withoutIt = entityLists(["shop7.example.com/offers/"], ["1800 123 4567"]);
    const unlisted = { kind: "url", text: "example.in/app" };
    expect(byParts(template, text, withoutIt)).toEqual({ parts: unlisted, whole: unlisted });
    // The fixed text is read once per template: a second message is answered the same way.
    expect(byParts(template, "Sale! See example.in/app for offers, code Z1", withoutIt).parts).toEqual(unlisted);
  });

  it("answers what the whole text answers, for random templates and values", () => {
    const random = seededRandom(40_135);
    const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
    const words = ["Track", "it", "at", "call", "evil", "com", "in", "shop", "www", "http", "hxxp", "Visit", "now"];
    const bits = [
      ".",
      ". ",
      " . ",
      ":",
      "://",
      "/",
      "[.]",
      "98765",
      "43210",
      "1800",
      "123",
      "4567",
      "+91",
      "(0)",
      "-",
      "1.2.3.4",
      "bit.ly/x",
      "shop7.example.com/offers/",
      "example.in/app",
      "a.m.",
      "Rs.1,499.00",
      "x@y.in",
    ];
    const spaces = [" ", " ", " ", "  ", "\n", "\t", ""];
    const piece = (n: number) =>
      Array.from({ length: n }, () => (random() < 0.5 ? pick(words) : pick(bits)) + pick(spaces)).join("");
    const value = () =>
      Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick([...words, ...bits]) + pick(spaces))
        .join("")
        .slice(0, 30);
    const some = entityLists(
      ["shop7.example.com/offers/", "example.in/app", "evil.com"],
      ["1800 123 4567", "9876543210"],
    );
    let compared = 0;
    for (let n = 0; n < 3000; n++) {
      const vars = Math.floor(random() * 4);
      const fixed = Array.from({ length: vars + 1 }, () => piece(Math.floor(random() * 6)));
      const values = Array.from({ length: vars }, value);
      const template = fixed.join("{#var#}");
      const text = fixed.map((p, i) => (i < vars ? p + values[i] : p)).join("");
      const matched = new TemplateIndex([{ content: template, value: 1 }], "strict").matchWithLayout(text);
      if (!matched?.layout) continue;
      const { plan, pieceStarts } = matched.layout;
      const flat = (parts: ReturnType<typeof findingsIn>[]) => ({
        links: parts.flatMap((p) => p.links),
        numbers: parts.flatMap((p) => p.numbers),
      });
      expect(flat(plan.findings(text, pieceStarts)), `${JSON.stringify(template)} ← ${JSON.stringify(text)}`).toEqual(
        flat([findingsIn(text)]),
      );
      expect(plan.firstUnlisted(text, pieceStarts, some)).toEqual(findUnlistedLink(text, some));
      compared++;
    }
    expect(compared).toBeGreaterThan(2500);
  });
});
