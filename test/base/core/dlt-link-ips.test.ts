// Links to a bare IPv4 address (src/base/core/dlt-link-ips.ts, decision 0133): found with or
// without a port, path or scheme, alone too, in disguised forms, and refused unless white-listed;
// what only looks like one (amounts, versions, dates, times, longer dotted numbers) is never a link.
// Links to an IPv6 address: found with a scheme, and refused unless white-listed.
import { describe, expect, it } from "vitest";
import { findBareIpLinks, isBareIpLink } from "../../../src/base/core/dlt-link-ips.js";
import { findLinks, findNumbers, findUnlistedLink, normalizeApprovedUrl } from "../../../src/base/core/dlt-links.js";
import { entityLists } from "../../helpers/dlt-lists.js";

const linksOf = (text: string) => findLinks(text).map((found) => found.text);

describe("links to a bare IP address", () => {
  it("are found with a path, a port, a query, a scheme, or alone", () => {
    for (const [text, link] of [
      ["Get the app at 1.2.3.4/app.apk today", "1.2.3.4/app.apk"],
      ["Open 45.67.89.10:8080/x now", "45.67.89.10:8080/x"],
      ["Open 45.67.89.10:8080 now", "45.67.89.10:8080"],
      ["Track 1.2.3.4?id=42", "1.2.3.4?id=42"],
      ["Get it at http://1.2.3.4 today", "http://1.2.3.4"],
      ["Get it at https://1.2.3.4/x/y today", "https://1.2.3.4/x/y"],
      ["Visit 1.2.3.4 today", "1.2.3.4"],
      ["Visit 255.255.255.255.", "255.255.255.255"],
      ["Visit 0.0.0.0/x", "0.0.0.0/x"],
      ["(see 10.0.0.1/app)", "10.0.0.1/app"],
      ["Visit 1.2.3.4/app.ru today", "1.2.3.4/app.ru"],
      ["1.2.3.4/x", "1.2.3.4/x"],
    ] as const) {
      expect(linksOf(text), text).toEqual([link]);
    }
    expect(linksOf("Mirror 1.2.3.4/a or 5.6.7.8:81/b or example.com/c")).toEqual([
      "1.2.3.4/a",
      "5.6.7.8:81/b",
      "example.com/c",
    ]);
  });

  it("are found in disguise: full-width digits and dots, defanged dots, hxxp", () => {
    for (const [text, link] of [
      ["Visit １．２．３．４/x", "1.2.3.4/x"],
      ["Visit 1。2。3。4/x", "1.2.3.4/x"],
      ["Visit 1[.]2[.]3[.]4/x", "1.2.3.4/x"],
      ["Visit hxxp://1.2.3.4/x", "http://1.2.3.4/x"],
    ] as const) {
      expect(linksOf(text), text).toEqual([link]);
    }
  });

  it("are refused unless white-listed, exactly or under a prefix, in any written form", () => {
    const l = entityLists(["103.21.58.4/offers/", "http://45.67.89.10:8080/app", "8.8.4.4"]);
    for (const ok of [
      "Sale at 103.21.58.4/offers/diwali",
      "Sale at https://103.21.58.4/offers/diwali?x=1",
      "Get 45.67.89.10:8080/app now",
      "Get http://45.67.89.10:8080/app now",
      "Resolver 8.8.4.4 is up",
      "Resolver http://8.8.4.4/ is up",
    ]) {
      expect(findUnlistedLink(ok, l), ok).toBeUndefined();
    }
    for (const [bad, named] of [
      ["Get it at 1.2.3.4/app.apk", "1.2.3.4/app.apk"],
      ["Sale at 103.21.58.4/offer", "103.21.58.4/offer"],
      ["Get 45.67.89.10:8081/app now", "45.67.89.10:8081/app"],
      ["Get 45.67.89.10/app now", "45.67.89.10/app"],
      ["Resolver 8.8.4.4/x", "8.8.4.4/x"],
      ["Visit 1.2.3.4", "1.2.3.4"],
    ] as const) {
      expect(findUnlistedLink(bad, l), bad).toEqual({ kind: "url", text: named });
    }
  });

  it("are approved URLs as written, with or without a scheme", () => {
    expect(normalizeApprovedUrl("1.2.3.4/app.apk")).toBe("1.2.3.4/app.apk");
    expect(normalizeApprovedUrl("http://45.67.89.10:8080/x")).toBe("45.67.89.10:8080/x");
    expect(normalizeApprovedUrl("103.21.58.4/offers/")).toBe("103.21.58.4/offers/");
    expect(normalizeApprovedUrl("8.8.4.4")).toBe("8.8.4.4");
    for (const bad of ["1.2.3", "1.2.3.256/x", "1.2.3.4.5/x", "v1.2.3.4/x"]) {
      expect(() => normalizeApprovedUrl(bad), bad).toThrow(expect.objectContaining({ code: "invalid_request" }));
    }
  });

  it("are never amounts, versions, dates, times, decimals or longer dotted numbers", () => {
    for (const text of [
      "Rs.1,499.00 debited at 10.30 a.m. on 12.05.2024",
      "Update to v1.2.3 or v1.2.3.4 today",
      "Build 1.2.3.4.5 is out",
      "Section 2.1.3.4a applies",
      "Ref x.1.2.3.4 and id 1.2.3.4-b",
      "Rate 1.25 %, at 10.30.45 today",
      "Write to care@1.2.3.4 for help",
      "Amount 1,234.56.78 is wrong",
      "300.1.1.1/x is no address",
    ]) {
      expect(linksOf(text), text).toEqual([]);
      expect(findBareIpLinks(text), text).toEqual([]);
    }
  });

  it("hold no callback numbers in their digits", () => {
    expect(findNumbers("Open 98.76.54.32/9876543210 now")).toEqual([]);
  });

  it("to an IPv6 address are found with a scheme (user info, port, path), refused unless white-listed", () => {
    for (const [text, link] of [
      ["Hi see http://[2001:db8::1]/app.apk ok", "http://[2001:db8::1]/app.apk"],
      ["Hi see https://[2606:4700::1111] ok", "https://[2606:4700::1111]"],
      ["Hi see (https://[2606:4700::1111]).", "https://[2606:4700::1111]"],
      ["Open HTTP://[2001:DB8::1]:8443/x?y=1, now", "HTTP://[2001:DB8::1]:8443/x?y=1"],
      ["Open https://u:pw@[2001:db8::1]/x now", "https://u:pw@[2001:db8::1]/x"],
      ["Open http://[::ffff:1.2.3.4]/x now", "http://[::ffff:1.2.3.4]/x"],
      ["Open hxxp://[2001:db8::1]/x.com now", "http://[2001:db8::1]/x.com"],
    ] as const) {
      expect(linksOf(text), text).toEqual([link]);
    }
    // Without a scheme an IPv6 address is not found (docs/api.md), nor are times and ratios.
    for (const text of ["Node [2001:db8::1]/x and 2001:db8::1", "At 10:30 [a:b] ratio 1:2"]) {
      expect(linksOf(text), text).toEqual([]);
    }
    expect(findNumbers("Open http://[2001:db8::9876:5432:10]/x now")).toEqual([]);
    // Approved as an IPv4 link is: with or without a scheme, host in any written form, prefix or exact.
    const l = entityLists(["http://[2001:DB8:0:0::5]/offers/", "[2606:4700::1111]"]);
    for (const ok of [
      "Sale at https://[2001:db8::5]/offers/d10",
      "Sale at http://[2001:0db8::0005]/offers/",
      "DNS at https://[2606:4700::1111] ok",
      "DNS at http://[2606:4700:0::1111]/ ok",
    ]) {
      expect(findUnlistedLink(ok, l), ok).toBeUndefined();
    }
    for (const [bad, named] of [
      ["Get http://[2001:db8::1]/app.apk now", "http://[2001:db8::1]/app.apk"],
      ["Sale at https://[2001:db8::5]/offer", "https://[2001:db8::5]/offer"],
      ["DNS at https://[2606:4700::1111]/x", "https://[2606:4700::1111]/x"],
      ["Get https://[2001:db8::5]@evil.com/offers/ now", "https://[2001:db8::5]@evil.com/offers/"],
    ] as const) {
      expect(findUnlistedLink(bad, l), bad).toEqual({ kind: "url", text: named });
    }
    expect(normalizeApprovedUrl("https://[2001:DB8::5]/offers/")).toBe("[2001:db8::5]/offers/");
    expect(normalizeApprovedUrl("[2001:db8::5]/offers/")).toBe("[2001:db8::5]/offers/");
    for (const bad of ["[2001:db8::g]/x", "http://[1:2]/x", "[]/x"]) {
      expect(() => normalizeApprovedUrl(bad), bad).toThrow(expect.objectContaining({ code: "invalid_request" }));
    }
  });

  it("isBareIpLink takes a whole link only", () => {
    expect(isBareIpLink("1.2.3.4")).toBe(true);
    expect(isBareIpLink("1.2.3.4:80/x?y=1")).toBe(true);
    expect(isBareIpLink("see 1.2.3.4")).toBe(false);
    expect(isBareIpLink("1.2.3.4 x")).toBe(false);
    expect(isBareIpLink("example.com")).toBe(false);
    expect(isBareIpLink("https://[2001:db8::1]/x")).toBe(true);
    expect(isBareIpLink("[2001:db8::1]")).toBe(true);
    expect(isBareIpLink("see https://[2001:db8::1]")).toBe(false);
  });
});
