// The smtp connector against a real SMTP relay on loopback: what each recipient's message
// looks like when it arrives (headers, envelope, parts, attachment bytes, tracking, a DKIM
// signature that verifies), and how the relay's answers become results for the dispatcher.
import { randomBytes } from "node:crypto";
import net from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EmailContentCache } from "../../../src/channels/email/content.js";
import { SmtpConnector, type SmtpConnectorOptions } from "../../../src/channels/email/smtp-connector.js";
import type { DeliveryReport } from "../../../src/domain/messages/index.js";
import { createTestDatabase, describeEnginesTogether, type TestDatabase } from "../../helpers/engines.js";
import {
  addSendingDomain,
  BOUNCE_DOMAIN,
  buildEmailAccount,
  closedPort,
  emailRow,
  FakeRelay,
  parseMail,
  silentLogger,
  storeContent,
  testTracker,
  verifyDkim,
} from "./helpers.js";

const HTML = `<html><head><title>Order</title></head><body>
<p>Your order <b>#1042</b> has shipped. <a href="https://shop.example.com/track?o=1042&amp;s=mail">Track it</a></p>
<p><a href='http://shop.example.com/it"s'>odd quote</a> <a href="mailto:help@shop.example.com">help</a> <a href="#top">top</a></p>
</body></html>`;

describeEnginesTogether("smtp connector", (engine) => {
  let t: TestDatabase;
  let relay: FakeRelay;
  let account: number;
  let dnsTxt: string;
  const connectors: SmtpConnector[] = [];

  function connector(changes: Partial<SmtpConnectorOptions> = {}) {
    const reports: DeliveryReport[] = [];
    const smtp = new SmtpConnector({
      url: relay.url,
      poolSize: 3,
      timeoutMs: 5_000,
      bounceDomain: BOUNCE_DOMAIN,
      contents: new EmailContentCache(t.store.db),
      tracker: testTracker,
      logger: silentLogger,
      tlsRejectUnauthorized: false,
      ...changes,
    });
    smtp.onReports((batch) => reports.push(...batch));
    connectors.push(smtp);
    return { smtp, reports };
  }

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    relay = new FakeRelay();
    await relay.start();
    account = await buildEmailAccount(t.store);
    dnsTxt = await addSendingDomain(t.store.db, account, "shop.example.com", "approved", "sb2025");
  });
  afterAll(async () => {
    for (const smtp of connectors) await smtp.stop();
    await relay.stop();
    await t.drop();
  });

  it("sends each recipient its own signed message: To/Cc of the send, no Bcc, VERP sender, parts, attachment, tracking", async () => {
    const attachment = randomBytes(4096);
    const contentId = await storeContent(t.store.db, account, {
      from: "news@shop.example.com",
      fromName: "Shop News",
      subject: "Your order #1042 has shipped",
      html: HTML,
      text: "Your order has shipped: https://shop.example.com/track?o=1042",
      replyTo: "help@shop.example.com",
      to: ["ann@example.org", "bob@example.org"],
      cc: ["cat@example.org"],
      trackOpens: true,
      trackClicks: true,
      attachments: [{ filename: "label.bin", contentType: "application/octet-stream", data: attachment }],
    });
    const rows = ["ann@example.org", "cat@example.org", "dan@example.net"].map((to, i) =>
      emailRow(account, contentId, to, { meta: JSON.stringify({ kind: ["to", "cc", "bcc"][i] }) }),
    );
    const { smtp, reports } = connector();
    const results = await smtp.submit(rows);

    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    const ids = results.map((r) => (r.ok ? r.upstreamId : ""));
    for (const id of ids) expect(id).toMatch(/^RELAY\d{4}$/);
    expect(new Set(ids).size).toBe(3);
    expect(reports.map((r) => [r.connector, r.upstreamId, r.status]).sort()).toEqual(
      ids.map((id) => ["smtp", id, "delivered"]).sort(),
    );

    for (const row of rows) {
      const received = relay.for(row.recipient);
      expect(received.to).toEqual([row.recipient]);
      expect(received.from).toBe(`bounces+${row.id}@${BOUNCE_DOMAIN}`);
      expect(received.secure, "STARTTLS offered, so used").toBe(true);

      const mail = await parseMail(received.raw);
      expect(mail.from?.value).toEqual([{ name: "Shop News", address: "news@shop.example.com" }]);
      expect(mail.to && !Array.isArray(mail.to) ? mail.to.value.map((a) => a.address) : []).toEqual([
        "ann@example.org",
        "bob@example.org",
      ]);
      expect(mail.cc && !Array.isArray(mail.cc) ? mail.cc.value.map((a) => a.address) : []).toEqual([
        "cat@example.org",
      ]);
      expect(mail.replyTo?.value.map((a) => a.address)).toEqual(["help@shop.example.com"]);
      expect(mail.subject).toBe("Your order #1042 has shipped");
      expect(mail.messageId).toBe(`<${row.id}@${BOUNCE_DOMAIN}>`);
      expect(mail.headers.get("x-switchboard-message-id")).toBe(row.id);
      expect(mail.headers.has("bcc")).toBe(false);
      expect(received.raw.toString("latin1")).not.toMatch(/dan@example\.net|^bcc:/im);

      expect(mail.text?.trim()).toBe("Your order has shipped: https://shop.example.com/track?o=1042");
      const html = String(mail.html);
      expect(html).toContain(
        `href="${testTracker.clickUrl(row.id, "https://shop.example.com/track?o=1042&s=mail").replace(/&/g, "&amp;")}"`,
      );
      expect(html).toContain(
        `href="${testTracker.clickUrl(row.id, 'http://shop.example.com/it"s').replace(/&/g, "&amp;").replace(/"/g, "&quot;")}"`,
      );
      expect(html).toContain(`<a href="mailto:help@shop.example.com">help</a> <a href="#top">top</a>`);
      expect(html).toMatch(
        new RegExp(`<img src="${testTracker.openPixelUrl(row.id)}" width="1" height="1"[^>]*></body>`),
      );
      expect(html).not.toContain(`href="https://shop.example.com/track`);

      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]?.filename).toBe("label.bin");
      expect(mail.attachments[0]?.contentType).toBe("application/octet-stream");
      expect(mail.attachments[0]?.content.equals(attachment)).toBe(true);

      const dkim = await verifyDkim(received.raw, { "sb2025._domainkey.shop.example.com": dnsTxt });
      expect(dkim.map((d) => [d.status.result, d.signingDomain, d.selector])).toEqual([
        ["pass", "shop.example.com", "sb2025"],
      ]);
    }
  });

  it("signs so that a changed subject or body no longer verifies", async () => {
    const contentId = await storeContent(t.store.db, account, { subject: "Original subject", html: "<p>Original</p>" });
    const row = emailRow(account, contentId, "eve@example.org");
    const [result] = await connector().smtp.submit([row]);
    expect(result?.ok).toBe(true);
    const raw = relay.for("eve@example.org").raw.toString("latin1");
    const records = { "sb2025._domainkey.shop.example.com": dnsTxt };
    const verdict = async (text: string) =>
      (await verifyDkim(Buffer.from(text, "latin1"), records)).map((d) => [d.status.result, d.status.comment]);
    expect(await verdict(raw)).toEqual([["pass", undefined]]);
    expect(await verdict(raw.replace("Subject: Original subject", "Subject: Changed subject"))).toEqual([
      ["fail", "bad signature"],
    ]);
    // mailauth calls a body that no longer matches the signed hash "neutral", not "fail".
    expect(await verdict(raw.replace("<p>Original</p>", "<p>Changed!</p>"))).toEqual([
      ["neutral", "body hash did not verify"],
    ]);
  });

  it("sends unsigned from a domain that is not approved, and untracked when the send did not ask", async () => {
    await addSendingDomain(t.store.db, account, "pending.example.com", "pending");
    const contentId = await storeContent(t.store.db, account, {
      from: "a@pending.example.com",
      html: `<body><a href="https://x.example.com/">x</a></body>`,
    });
    const [result] = await connector().smtp.submit([emailRow(account, contentId, "fay@example.org")]);
    expect(result?.ok).toBe(true);
    const received = relay.for("fay@example.org");
    const mail = await parseMail(received.raw);
    expect(mail.headers.has("dkim-signature")).toBe(false);
    expect(String(mail.html)).toBe(`<body><a href="https://x.example.com/">x</a></body>`);
  });

  it("bounces only the recipient the relay refuses with a 5xx, retries a 4xx, and refuses a message the relay refuses", async () => {
    relay.recipientAnswers.set("gone@example.org", {
      code: 550,
      text: "5.1.1 <gone@example.org>: Recipient address rejected: User unknown",
    });
    relay.recipientAnswers.set("full@example.org", { code: 452, text: "4.2.2 <full@example.org>: Mailbox full" });
    relay.recipientAnswers.set("grey@example.org", {
      code: 451,
      text: "4.7.1 <grey@example.org>: Greylisted, try later",
    });
    relay.dataAnswers.set("spam@example.org", { code: 554, text: "5.7.1 Message rejected as spam" });
    const contentId = await storeContent(t.store.db, account, {
      to: ["gil@example.org", "gone@example.org", "full@example.org", "grey@example.org", "spam@example.org"],
    });
    const recipients = [
      "gil@example.org",
      "gone@example.org",
      "full@example.org",
      "grey@example.org",
      "spam@example.org",
      "hal@example.org",
    ];
    const rows = recipients.map((to) => emailRow(account, contentId, to));
    const { smtp, reports } = connector();
    const results = await smtp.submit(rows);
    expect(results[0]).toMatchObject({ ok: true });
    expect(results[1]).toEqual({
      ok: false,
      retryable: false,
      code: "bounced",
      message: "550 5.1.1 <gone@example.org>: Recipient address rejected: User unknown",
    });
    expect(results[2]).toEqual({
      ok: false,
      retryable: true,
      code: "smtp_temporary",
      message: "452 4.2.2 <full@example.org>: Mailbox full",
    });
    expect(results[3]).toMatchObject({ ok: false, retryable: true, code: "smtp_temporary" });
    expect(results[3]).toMatchObject({ message: expect.stringContaining("451 4.7.1") });
    expect(results[4]).toEqual({
      ok: false,
      retryable: false,
      code: "bounced",
      message: "554 5.7.1 Message rejected as spam",
    });
    expect(results[5]).toMatchObject({ ok: true });
    expect(reports).toHaveLength(2);
    expect(relay.received.filter((r) => r.to.some((to) => recipients.includes(to))).map((r) => r.to[0])).toEqual(
      expect.arrayContaining(["gil@example.org", "hal@example.org"]),
    );
    expect(relay.received.filter((r) => r.to.some((to) => recipients.includes(to)))).toHaveLength(2);
  });

  it("retries when the relay is down or never answers, without throwing", async () => {
    const contentId = await storeContent(t.store.db, account);
    const down = connector({ url: `smtp://127.0.0.1:${await closedPort()}`, timeoutMs: 2_000 });
    const [refused] = await down.smtp.submit([emailRow(account, contentId, "ivy@example.org")]);
    expect(refused).toMatchObject({ ok: false, retryable: true, code: "smtp_temporary" });
    expect(down.reports).toEqual([]);

    const sockets: net.Socket[] = [];
    const silent = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const mute = connector({ url: `smtp://127.0.0.1:${port}`, timeoutMs: 1_000 });
      const started = Date.now();
      const [stalled] = await mute.smtp.submit([emailRow(account, contentId, "jay@example.org")]);
      expect(stalled).toMatchObject({ ok: false, retryable: true, code: "smtp_temporary" });
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it("logs in to a relay that wants it, and retries when the relay refuses the login", async () => {
    const guarded = new FakeRelay({ password: "s3cret" });
    await guarded.start();
    try {
      const contentId = await storeContent(t.store.db, account);
      const url = (password: string) => `smtp://gateway:${password}@127.0.0.1:${guarded.port}`;
      const [accepted] = await connector({ url: url("s3cret") }).smtp.submit([
        emailRow(account, contentId, "kai@example.org"),
      ]);
      expect(accepted).toMatchObject({ ok: true });
      expect(guarded.for("kai@example.org").secure).toBe(true);
      const [refused] = await connector({ url: url("wrong") }).smtp.submit([
        emailRow(account, contentId, "lia@example.org"),
      ]);
      expect(refused).toMatchObject({ ok: false, retryable: true, code: "smtp_temporary" });
      expect(refused).toMatchObject({ message: expect.stringMatching(/^Login refused: 535 /) });
    } finally {
      await guarded.stop();
    }
  });

  it("fails a message whose content is gone, and sends the rest of the batch", async () => {
    const contentId = await storeContent(t.store.db, account);
    const results = await connector().smtp.submit([
      emailRow(account, 987_654_321, "kim@example.org"),
      emailRow(account, null, "lee@example.org"),
      emailRow(account, contentId, "max@example.org"),
    ]);
    expect(results[0]).toMatchObject({ ok: false, retryable: false, code: "content_missing" });
    expect(results[1]).toMatchObject({ ok: false, retryable: false, code: "content_missing" });
    expect(results[2]).toMatchObject({ ok: true });
    expect(relay.received.some((r) => r.to.includes("kim@example.org") || r.to.includes("lee@example.org"))).toBe(
      false,
    );
  });

  it("sends a batch over the pool, one transaction per recipient, and leaves for later what it cannot start in time", async () => {
    const contentId = await storeContent(t.store.db, account);
    const recipients = Array.from({ length: 12 }, (_, i) => `pool${i}@example.org`);
    const results = await connector({ poolSize: 4 }).smtp.submit(
      recipients.map((to) => emailRow(account, contentId, to)),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    for (const to of recipients) expect(relay.for(to).to).toEqual([to]);

    // One lane; the clock moves 10 ms a reading: the first message starts, the window closes.
    let clock = 0;
    const slow = connector({ poolSize: 1, startWindowMs: 25, now: () => (clock += 10) });
    const later = await slow.smtp.submit(
      ["w1", "w2", "w3"].map((l) => emailRow(account, contentId, `${l}@example.org`)),
    );
    expect(later.map((r) => (r.ok ? "sent" : r.code))).toEqual(["sent", "deferred", "deferred"]);
    expect(later[1]).toMatchObject({ retryable: true });
    expect(relay.received.some((r) => r.to.includes("w2@example.org"))).toBe(false);
  });
});
