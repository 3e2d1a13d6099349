// Finding links and callback numbers in an SMS's text and matching them against a DLT entity's
// white-lists (src/base/core/dlt-links.ts): forms with and without scheme or `www.`, prefixes,
// short links, look-alikes that must not fool it, and what must not be taken for a link or a
// number (amounts, times, e-mail addresses, OTPs, masked account numbers).
import { describe, expect, it } from "vitest";
import { joinSpacedHosts, PROSE_WORDS } from "../../../src/base/core/dlt-link-spaces.js";
import {
  canonicalNumber,
  findLinks,
  findNumbers,
  findUnlistedLink,
  normalizeApprovedUrl,
  normalizeCallbackNumber,
} from "../../../src/base/core/dlt-links.js";
import { entityLists } from "../../helpers/dlt-lists.js";

describe("DLT link white-lists", () => {
  it("normalises approved URLs: scheme and www. dropped, host lower-case, path as given", () => {
    expect(normalizeApprovedUrl("https://www.Example.COM/App")).toBe("example.com/App");
    expect(normalizeApprovedUrl("example.com")).toBe("example.com");
    expect(normalizeApprovedUrl("http://example.com/offers/")).toBe("example.com/offers/");
    expect(normalizeApprovedUrl("example.com/track?")).toBe("example.com/track?");
    expect(normalizeApprovedUrl("https://example.com/app.apk")).toBe("example.com/app.apk");
  });

  it("refuses malformed URLs with invalid_request", () => {
    for (const bad of [
      "",
      "not a url",
      "example",
      "ftp://example.com/x",
      "javascript:alert(1)",
      "http://",
      "a b.com",
    ]) {
      expect(() => normalizeApprovedUrl(bad), JSON.stringify(bad)).toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
    }
    expect(() => normalizeApprovedUrl(`example.com/${"a".repeat(600)}`)).toThrow(/longer than/);
  });

  it("matches exact links in any written form, and prefixes ending in / or ?", () => {
    const l = entityLists(["https://example.com/app", "shop.example.in/offers/", "track.example.com/t?"]);
    for (const ok of [
      "Get it at https://example.com/app today",
      "Get it at http://www.example.com/app",
      "Get it at EXAMPLE.COM/app",
      "Get it at www.example.com/app.",
      "Sale: shop.example.in/offers/diwali/2026 now",
      "Sale: https://shop.example.in/offers/",
      "Track: track.example.com/t?id=42",
    ]) {
      expect(findUnlistedLink(ok, l), ok).toBeUndefined();
    }
    for (const [bad, named] of [
      ["Get it at https://example.com/app2", "https://example.com/app2"],
      ["Get it at example.com/App", "example.com/App"],
      ["Get it at example.com", "example.com"],
      ["Sale: shop.example.in/offer", "shop.example.in/offer"],
      ["Short: bit.ly/3xYz12", "bit.ly/3xYz12"],
      ["Promo http://unlisted.example/app.apk", "http://unlisted.example/app.apk"],
      ["Chat wa.me/919876543210", "wa.me/919876543210"],
      ["Track: track.example.com/u?id=1", "track.example.com/u?id=1"],
    ] as const) {
      expect(findUnlistedLink(bad, l), bad).toEqual({ kind: "url", text: named });
    }
  });

  it("is not fooled by case, full-width dots and letters, hxxp, defanged dots, a space after :// or zero-width characters", () => {
    const l = entityLists(["example.com/app"]);
    for (const sneaky of [
      "Visit HTTPS://EVIL.COM/x",
      "Visit ｅｖｉｌ．ｃｏｍ/x",
      "Visit evil。com/x",
      "Visit hxxps://evil.com/x",
      "Visit evil[.]com/x",
      "Visit https:// evil.com/x",
      "Visit http : / / evil.com/x",
      "Visit www. evil.com",
      "Visit ev\u200Bil.com/x",
    ]) {
      expect(findUnlistedLink(sneaky, l)?.kind, sneaky).toBe("url");
    }
    // Hosts without a TLD and IDN hosts are links too (linkify is handed every text that may hold one).
    for (const [text, link] of [
      ["Go to localhost:3000/x", "localhost:3000/x"],
      ["Go to http://10.0.0.1/x", "http://10.0.0.1/x"],
      ["Go to пример.рф/x", "пример.рф/x"],
    ] as const) {
      expect(
        findLinks(text).map((f) => f.text),
        text,
      ).toEqual([link]);
    }
    // A look-alike host (Cyrillic е) is another host, not the approved one.
    expect(findUnlistedLink("Visit \u0435xample.com/app", l)?.kind).toBe("url");
  });

  it("reads a link with user info as a browser does: the host after the last @, before a / or \\", () => {
    const l = entityLists(["shop.example.in/offers/", "example.com/app"]);
    for (const [text, key] of [
      ["Hi see https://u@evil.com/x now", "evil.com/x"],
      ["Log in at https://user:pw@evil.com/login", "evil.com/login"],
      // The approved host as the user info does not make the link its.
      ["Sale: http://shop.example.in@evil.com/offers/ now", "evil.com/offers/"],
      ["Sale: https://shop.example.in/offers/@evil.com@evil.com/x", "shop.example.in/offers/@evil.com@evil.com/x"],
      ["Sale: https://a@shop.example.in@evil.com/offers/", "evil.com/offers/"],
      // A browser reads `\\` as `/`: the host is evil.com, whatever follows the @.
      ["Sale: https://evil.com\\@shop.example.in/offers/", "evil.com/@shop.example.in/offers/"],
      ["Sale: https://evil.com\\@example.com/app", "evil.com/@example.com/app"],
      // User info linkify stops at (it sees the e-mail address 80@evil.com, or evil.com/x alone).
      ["Sale: https://[2606:4700::1111]:80@evil.com/x", "evil.com/x"],
      ["Sale: https://shop.example.in[x]@evil.com/offers/", "evil.com/offers/"],
      ["Sale: https://[::1]\\@shop.example.in/offers/", "[::1]/@shop.example.in/offers/"],
    ] as const) {
      expect(
        findLinks(text).map((f) => f.key),
        text,
      ).toEqual([key]);
      expect(findUnlistedLink(text, l)?.kind, text).toBe(key.startsWith("shop.") ? undefined : "url");
    }
    // User info on the approved host: the browser opens the approved host.
    expect(findUnlistedLink("Sale: https://u@shop.example.in/offers/x", l)).toBeUndefined();
    // A link whose host a browser cannot read is refused, not left out.
    expect(findUnlistedLink("See https://evil.com%40example.com now", l)).toEqual({
      kind: "url",
      text: "https://evil.com%40example.com",
    });
    // An approved URL with user info is refused: the host it names is not the one it opens.
    expect(() => normalizeApprovedUrl("http://shop.example.in@evil.com/")).toThrow(/user info/);
  });

  it("names a refused link as written, not as read (docs/api.md: error.url)", () => {
    const l = entityLists(["example.com/app"]);
    for (const [text, written] of [
      ["Sale at hxxp://evil[.]com today", "hxxp://evil[.]com"],
      ["Hi see https://evil.com. now", "https://evil.com. now"],
      ["Visit HXXPS : / / evil(.)com/x ok", "HXXPS : / / evil(.)com/x"],
      ["Visit ｅｖｉｌ．ｃｏｍ/x ok", "ｅｖｉｌ．ｃｏｍ/x"],
      ["Visit ev\u200Bil.com/x", "ev\u200Bil.com/x"],
      ["नमस्ते evil。com/x देखें", "evil。com/x"],
      ["Visit e\u0301vil.com/x ok", "e\u0301vil.com/x"],
      ["See example.com/app and www. evil. com/y", "www. evil. com/y"],
    ] as const) {
      expect(findUnlistedLink(text, l), text).toEqual({ kind: "url", text: written });
    }
  });

  it("does not take amounts, times, decimals or e-mail addresses for links", () => {
    for (const text of [
      "Rs.1,499.00 debited at 10:30 a.m. on 12.11.2026",
      "Write to care@example.com for help",
      "Version 2.5.1 is out",
      "Your OTP is 482913.",
    ]) {
      expect(findLinks(text), text).toEqual([]);
    }
  });
});

describe("links found per word", () => {
  it("finds the same links in a word read again, at their place in each text, also once 1,024 other words were read", () => {
    const first = findLinks("Track it at shop7.example.com/offers/42 now");
    expect(first).toEqual([
      {
        text: "shop7.example.com/offers/42",
        written: "shop7.example.com/offers/42",
        key: "shop7.example.com/offers/42",
      },
    ]);
    // The same word elsewhere in another text, and as an e-mail address beside it.
    expect(findLinks("Go: shop7.example.com/offers/42, or mail help@example.com")).toEqual(first);
    for (let i = 0; i < 1100; i++) findLinks(`See s${i}.example.org/x${i}`);
    expect(findLinks("Track it at shop7.example.com/offers/42 now")).toEqual(first);
    const text = "OTP 4821. Visit example.in/a and example.in/a?b";
    const blanked = findNumbers(text);
    expect(findLinks(text).map((l) => l.text)).toEqual(["example.in/a", "example.in/a?b"]);
    expect(findNumbers(text)).toEqual(blanked);
  });
});

describe("a host split by spaces around its dot", () => {
  it("is found as the joined link, and refused naming it as written when not white-listed", () => {
    const l = entityLists(["example.com/app", "shop.example.co.in/offers/"]);
    for (const [text, link, written] of [
      ["Visit evil. com today", "evil.com", "evil. com"],
      ["Visit evil .com/x", "evil.com/x", "evil .com/x"],
      ["Visit evil . com", "evil.com", "evil . com"],
      ["Visit evil  .  com/app", "evil.com/app", "evil  .  com/app"],
      ["Visit www. evil. com", "www.evil.com", "www. evil. com"],
      // "www" then "evil", not a TLD: only the host is joined, which is found all the same.
      ["Visit www .evil .com", "evil.com", "evil .com"],
      ["Visit https://evil. com/x", "https://evil.com/x", "https://evil. com/x"],
      ["Visit login.evil. com/x", "login.evil.com/x", "login.evil. com/x"],
      ["Visit my-shop. xyz now", "my-shop.xyz", "my-shop. xyz"],
      ["Visit evil. co. in", "evil.co.in", "evil. co. in"],
      ["Visit evil.co. in today", "evil.co.in", "evil.co. in"],
      ["Visit evil. in", "evil.in", "evil. in"],
      ["Visit evil. in/app", "evil.in/app", "evil. in/app"],
      ["Visit evil. shop/sale", "evil.shop/sale", "evil. shop/sale"],
      ["Visit evil .shop", "evil.shop", "evil .shop"],
      ["Visit evil. COM/x", "evil.COM/x", "evil. COM/x"],
      ["Visit evil. io!", "evil.io", "evil. io"],
      ["Visit ｅｖｉｌ． ｃｏｍ", "evil.com", "ｅｖｉｌ． ｃｏｍ"],
      ["Visit evil[.] com", "evil.com", "evil[.] com"],
      ["Visit evil.\tcom", "evil.com", "evil.\tcom"],
    ] as const) {
      expect(
        findLinks(text).map((f) => f.text),
        text,
      ).toEqual([link]);
      expect(findUnlistedLink(text, l), text).toEqual({ kind: "url", text: written });
    }
    // White-listed, the same link split by a space passes.
    expect(findUnlistedLink("Get it at example. com/app now", l)).toBeUndefined();
    expect(findUnlistedLink("Sale at shop.example. co. in/offers/diwali", l)).toBeUndefined();
  });

  it("does not make prose a link: sentence ends, abbreviations, amounts, times, all-capitals and Hinglish text", () => {
    for (const text of [
      "Job done. Come back soon",
      "Thanks. In case of any query call us",
      "Rs. 500 off on Rs. 2,000. Valid till Sunday",
      "Open 10 a.m. to 6 p.m. daily",
      "Open 10 a.m. to 6 p.m.",
      "i.e. in the evening, e.g. com port",
      "Order no. is 4521",
      "Order booked. shop now and save",
      "Paid. to check your balance dial *99#",
      "Order shipped. you can track it in the app",
      "Booked. seat 12A, coach B2",
      "Ticket confirmed. Booking ID 8823",
      "YOUR A/C XX1234 IS CREDITED. IN CASE OF DISPUTE CALL THE BRANCH",
      "THANK YOU FOR BANKING WITH US. SBI",
      "DEAR CUSTOMER, BILL PAID. NET AMOUNT RS. 499",
      "Payment ho gaya. ki aap balance check kar sakte ho",
      "Aapka order ship ho gaya hai. pe click karke track kare",
      "Delivered today. me and my team thank you",
      "Sale ends today. Shop now. Call us. Win big.",
      "Version 2. 5 is out. Pvt. Ltd. is registered",
      "Thank you .Visit again",
      "Balance is low. recharge now. Plan details. info on request",
      "Done.\nCom port closed",
    ]) {
      expect(findLinks(text), text).toEqual([]);
      expect(joinSpacedHosts(text), text).toBe(text);
    }
  });

  it("keeps its list of everyday words to real TLDs", () => {
    expect(PROSE_WORDS.has("in")).toBe(true);
    expect(PROSE_WORDS.has("shop")).toBe(true);
    expect(PROSE_WORDS.has("com")).toBe(false);
    expect(PROSE_WORDS.size).toBeGreaterThan(400);
  });
});

describe("DLT callback numbers", () => {
  it("reads Indian mobiles, landlines with STD code and toll-free numbers in their written forms", () => {
    expect(canonicalNumber("9876543210")).toBe("9876543210");
    expect(canonicalNumber("+91 98765-43210")).toBe("9876543210");
    expect(canonicalNumber("09876543210")).toBe("9876543210");
    expect(canonicalNumber("022 2345 6789")).toBe("2223456789");
    expect(canonicalNumber("+91 22 2345 6789")).toBe("2223456789");
    expect(canonicalNumber("1800 123 4567")).toBe("18001234567");
    expect(canonicalNumber("1860-500-1234")).toBe("18605001234");
    expect(canonicalNumber("482913")).toBeUndefined();
    expect(canonicalNumber("2223456789")).toBeUndefined();
  });

  it("finds numbers in text, never shorter digit runs (codes, amounts, masked accounts)", () => {
    expect(findNumbers("OTP 482913 for Rs.1,499.00 from A/c XX1234 at 10:30").map((n) => n.number)).toEqual([]);
    expect(findNumbers("Call 98765 43210 or 1800-123-4567, or 022-2345 6789").map((n) => n.number)).toEqual([
      "9876543210",
      "18001234567",
      "2223456789",
    ]);
    expect(findNumbers("Paid Rs 500 9876543210").map((n) => n.number)).toEqual(["9876543210"]);
    // Digits inside a link belong to the link.
    expect(findNumbers("wa.me/919876543210")).toEqual([]);
  });

  it("reads brackets, dots, slashes and Unicode dashes and spaces inside a number; dates never join one", () => {
    const found = (text: string) => findNumbers(text).map((n) => [n.text, n.number]);
    for (const written of [
      "(98765) 43211",
      "+91 (98765) 43211",
      "(+91) 98765 43211",
      "(987) 654-3211",
      "98765.43211",
      "98765/43211",
      "98765\u201143211",
      "98765\u00a043211",
      "98765 \u2013 43211",
      "98765\u221243211",
      "98.76.54.32.11",
    ]) {
      expect(found(`Call ${written} now`), written).toEqual([[written, "9876543211"]]);
    }
    expect(found("Call +91 (22) 2345-6789 or 1800.123.4567")).toEqual([
      ["+91 (22) 2345-6789", "2223456789"],
      ["1800.123.4567", "18001234567"],
    ]);
    for (const text of [
      "Due 12.05.2024, 12/05/2024 and 12-05-2024 at 10.30",
      "on 9.6.2024 10.30",
      "Valid 01/06/2024 - 30/06/2024",
      "From 2024-05-12 to 2024/06/30",
      "OTP 482193. Rs.1,499.00, Rs 98,765.43",
      "Ref 12345-67890, (12345) 67890",
      "Card 4111 1111 1111 1111",
    ]) {
      expect(found(text), text).toEqual([]);
    }
    // Digits either side of a link are not joined across it.
    expect(found("98765 bit.ly/x 43211")).toEqual([]);
  });

  it("refuses numbers not on the list, and lets listed ones through whatever their form", () => {
    const l = entityLists([], ["+91 98765 43210", "1800-123-4567"]);
    expect(findUnlistedLink("Call 09876543210 or 1800 123 4567", l)).toBeUndefined();
    expect(findUnlistedLink("Call 9123456789", l)).toEqual({ kind: "callback", text: "9123456789" });
  });

  it("refuses malformed callback numbers", () => {
    for (const bad of ["", "12345", "abc", "2223456789", "98765432101234"]) {
      expect(() => normalizeCallbackNumber(bad), bad).toThrow(expect.objectContaining({ code: "invalid_request" }));
    }
  });
});
