// One recipient's message: click links rewritten where a browser would follow them and
// nowhere else, the open pixel, the options handed to nodemailer, and VERP addresses.
import { describe, expect, it } from "vitest";
import type { EmailContent } from "../../../src/channels/email/content.js";
import {
  appendOpenPixel,
  buildMessage,
  messageIdFromBounceAddress,
  messageIdFromMessageIdHeader,
  rewriteLinks,
} from "../../../src/channels/email/mime.js";
import { relayQueueId } from "../../../src/channels/email/smtp-connector.js";
import { testTracker } from "./helpers.js";

const track = (url: string) => `https://t.test/c?u=${encodeURIComponent(url)}&m=1`;
const tracked = (url: string) => `href="${track(url).replace(/&/g, "&amp;")}"`;

describe("click links", () => {
  it("rewrites http(s) hrefs however they are quoted, cased or escaped, and changes nothing else", async () => {
    const html = [
      `<p>Hi <a href="https://shop.test/a?b=1&amp;c=2" class="btn">double</a>`,
      `<a href='http://shop.test/it"s'>single</a>`,
      `<a href=http://shop.test/bare>bare</a>`,
      `<A HREF="HTTPS://SHOP.TEST/UP">upper</A>`,
      `<a href="  https://shop.test/spaced  ">spaced</a>`,
      `<a title="href=http://shop.test/not" data-x="a>b" href="https://shop.test/real">tricky</a>`,
      `<a href="https://shop.test/&#x61;&quot;q">entities</a></p>`,
    ].join("\n");
    const expected = [
      `<p>Hi <a ${tracked("https://shop.test/a?b=1&c=2")} class="btn">double</a>`,
      `<a ${tracked('http://shop.test/it"s')}>single</a>`,
      `<a ${tracked("http://shop.test/bare")}>bare</a>`,
      `<A ${tracked("HTTPS://SHOP.TEST/UP")}>upper</A>`,
      `<a ${tracked("https://shop.test/spaced")}>spaced</a>`,
      `<a title="href=http://shop.test/not" data-x="a>b" ${tracked("https://shop.test/real")}>tricky</a>`,
      `<a ${tracked('https://shop.test/a"q')}>entities</a></p>`,
    ].join("\n");
    expect(await rewriteLinks(html, track)).toBe(expected);
  });

  it("leaves mailto:, tel:, anchors, relative and script links, images and commented-out links alone", async () => {
    const html = [
      `<a href="mailto:help@shop.test?subject=Hi%20there">mail</a>`,
      `<a href="tel:+918047110000">call</a>`,
      `<a href="#top">top</a> <a href="/account">relative</a> <a href="javascript:void(0)">js</a>`,
      `<img src="http://shop.test/logo.png" alt="logo">`,
      `<!-- <a href="http://shop.test/commented">old</a> -->`,
      `<!--[if mso]><v:roundrect href="http://shop.test/vml"></v:roundrect><![endif]-->`,
      `<a name="x">no href</a>`,
    ].join("\n");
    expect(await rewriteLinks(html, track)).toBe(html);
  });

  it("keeps its place after non-ASCII text, image maps and template content", async () => {
    const html = `<p>Grüße 😀 — <a href="http://shop.test/ü?x=😀">é</a></p><map><area href="https://shop.test/area"></map><template><a href="https://shop.test/tpl">t</a></template>`;
    expect(await rewriteLinks(html, track)).toBe(
      `<p>Grüße 😀 — <a ${tracked("http://shop.test/ü?x=😀")}>é</a></p><map><area ${tracked("https://shop.test/area")}></map><template><a ${tracked("https://shop.test/tpl")}>t</a></template>`,
    );
  });
});

describe("open pixel", () => {
  const pixel = (url: string) =>
    `<img src="${url}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0">`;

  it("goes just before the closing body tag, however it is cased", async () => {
    const html = `<html><body><!-- </body> --><p>x</p></BODY>\n</html>`;
    expect(await appendOpenPixel(html, "https://t.test/o?a=1&b=2")).toBe(
      `<html><body><!-- </body> --><p>x</p>${pixel("https://t.test/o?a=1&amp;b=2")}</BODY>\n</html>`,
    );
  });

  it("goes at the end of a fragment without a body", async () => {
    expect(await appendOpenPixel("<p>Hello</p>", "https://t.test/o")).toBe(`<p>Hello</p>${pixel("https://t.test/o")}`);
  });
});

function content(changes: Partial<EmailContent> = {}): EmailContent {
  return {
    id: 7,
    accountId: 3,
    broadcastId: "3_20250113_000001",
    fromAddress: "news@shop.example.com",
    fromName: "Shop News",
    subject: "Shipped",
    html: `<html><body><a href="https://shop.example.com/o/1">Track</a> <a href="mailto:help@shop.example.com">help</a></body></html>`,
    text: "Track it at https://shop.example.com/o/1",
    replyTo: "help@shop.example.com",
    to: ["ann@example.org"],
    cc: ["cat@example.org"],
    trackOpens: true,
    trackClicks: true,
    listUnsubscribe: true,
    attachments: [{ filename: "a.bin", contentType: "application/octet-stream", content: Buffer.from([0, 1, 2]) }],
    dkim: { domainName: "shop.example.com", keySelector: "s1", privateKey: "PEM" },
    ...changes,
  };
}

describe("buildMessage", () => {
  const id = "q01M81RYKZHJ1FPWR8BQVBV940F";

  it("addresses the visible headers to the send and the envelope to the one recipient", async () => {
    const date = new Date("2025-01-13T10:00:00Z");
    const options = await buildMessage(content(), id, "dan@example.net", {
      bounceDomain: "b.test",
      tracker: testTracker,
      date,
    });
    expect(options).toMatchObject({
      from: { name: "Shop News", address: "news@shop.example.com" },
      to: ["ann@example.org"],
      cc: ["cat@example.org"],
      replyTo: "help@shop.example.com",
      subject: "Shipped",
      messageId: `<${id}@b.test>`,
      date,
      headers: { "X-Switchboard-Message-Id": id },
      envelope: { from: `bounces+${id}@b.test`, to: ["dan@example.net"] },
      dkim: { domainName: "shop.example.com", keySelector: "s1", privateKey: "PEM" },
      text: "Track it at https://shop.example.com/o/1",
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    expect(options).not.toHaveProperty("bcc");
    expect(options.html).toBe(
      `<html><body><a href="${testTracker.clickUrl(id, "https://shop.example.com/o/1").replace(/&/g, "&amp;")}">Track</a> <a href="mailto:help@shop.example.com">help</a><img src="${testTracker.openPixelUrl(id)}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0"></body></html>`,
    );
  });

  it("tracks nothing without a tracker or when the send did not ask, signs nothing without a key", async () => {
    const plain = content({ trackOpens: false, trackClicks: false, dkim: null, to: [], cc: [], replyTo: null });
    const options = await buildMessage(plain, id, "dan@example.net", { bounceDomain: "b.test", tracker: testTracker });
    expect(options.html).toBe(plain.html);
    expect(options).not.toHaveProperty("dkim");
    expect(options).not.toHaveProperty("to");
    expect(options).not.toHaveProperty("cc");
    expect(options).not.toHaveProperty("replyTo");
    const untracked = await buildMessage(content(), id, "dan@example.net", {
      bounceDomain: "b.test",
      tracker: undefined,
    });
    expect(untracked.html).toBe(content().html);
  });
});

describe("VERP", () => {
  const id = "q01M81RYKZHJ1FPWR8BQVBV940F";

  it("reads the message id back from a bounce address", () => {
    expect(messageIdFromBounceAddress(`bounces+${id}@b.test`, "b.test")).toBe(id);
    expect(messageIdFromBounceAddress(`<bounces+${id}@B.Test.>`, "b.test")).toBe(id);
    expect(messageIdFromBounceAddress(`BOUNCES+${id.toLowerCase()}@b.test`, "b.test")).toBe(id);
    expect(messageIdFromBounceAddress(`bounces+${id}@other.test`, "b.test")).toBeUndefined();
    expect(messageIdFromBounceAddress(`postmaster@b.test`, "b.test")).toBeUndefined();
    expect(messageIdFromBounceAddress(`bounces+not-an-id@b.test`, "b.test")).toBeUndefined();
  });

  it("reads it from our Message-ID only", () => {
    expect(messageIdFromMessageIdHeader(` <${id}@b.test>`, "b.test")).toBe(id);
    expect(messageIdFromMessageIdHeader(`<${id}@mx.other.test>`, "b.test")).toBeUndefined();
  });
});

describe("relay queue ids", () => {
  it("takes Postfix's and Exim's ids from the 250 answer, and nothing from answers without one", () => {
    expect(relayQueueId("250 2.0.0 Ok: queued as 4XyZ1c2Kqsz3")).toBe("4XyZ1c2Kqsz3");
    expect(relayQueueId("250 OK id=1qXyZa-000AbC-Q1")).toBe("1qXyZa-000AbC-Q1");
    expect(relayQueueId("250 2.0.0 OK")).toBeUndefined();
    expect(relayQueueId(undefined)).toBeUndefined();
  });
});
