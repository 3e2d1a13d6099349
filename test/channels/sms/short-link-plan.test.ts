// Which links of a text the short-link rewriter replaces (planShortLinks, no template): a
// scheme-relative `//host/path`, or a host right after any `/` (`a//b.com`), is left as written,
// where it used to lose its host to the short link and send `//` and the short link run together;
// a link with its scheme is replaced whole, `http://x` and a path holding `//` included.
import { describe, expect, it } from "vitest";
import { planShortLinks } from "../../../src/channels/sms/short-link-plan.js";
import { shortLinkPlaceholder } from "../../../src/domain/messages/index.js";

const BASE = "https://sb.in/l";
const SETTINGS = { base: { url: BASE }, days: 2, maxSegments: 10 };
const SHORT = shortLinkPlaceholder(BASE);
const noTemplate = async () => undefined;
const sent = async (text: string) => (await planShortLinks(text, undefined, noTemplate, SETTINGS))?.sent;

describe("the short-link rewriter", () => {
  it("leaves a scheme-relative reference and a host after a slash as written", async () => {
    for (const text of ["//example.com/x", "see //example.com/x now", "a//b.com", "a//b", "https:/example.com"]) {
      expect(await sent(text), text).toBeUndefined();
    }
    expect(await sent("Go //example.com/x or https://shop.example.in/o/1 today")).toBe(
      `Go //example.com/x or ${SHORT} today`,
    );
  });

  it("replaces a link with its scheme, or a bare host, whole", async () => {
    expect(await sent("http://x")).toBe(SHORT);
    expect(await sent("at https://example.com//a//b.com.")).toBe(`at ${SHORT}.`);
    expect(await sent("visit www.example.com/x or example.in")).toBe(`visit ${SHORT} or ${SHORT}`);
  });
});
