// The simulated relay: it keeps exactly the message the smtp connector would have sent, its
// magic recipients refuse or defer, and its inbox pages newest first.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { EmailContentCache } from "../../../src/channels/email/content.js";
import { EmailSimulator, getCaptured, listCaptured } from "../../../src/channels/email/simulator.js";
import { SmtpConnector } from "../../../src/channels/email/smtp-connector.js";
import type { DeliveryReport } from "../../../src/domain/messages/index.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import {
  addSendingDomain,
  BOUNCE_DOMAIN,
  buildEmailAccount,
  emailRow,
  FakeRelay,
  parseMail,
  silentLogger,
  storeContent,
  testTracker,
  verifyDkim,
} from "./helpers.js";

/** What differs between two compositions of one message: the Date, MIME boundaries, and so the signature. */
function comparable(raw: string): string {
  return raw
    .replace(/^DKIM-Signature:.*(\r\n[ \t].*)*\r\n/m, "")
    .replace(/^Date: .*\r\n/m, "")
    .replace(/--_NmP-[0-9a-f]+-Part_\d+/g, "--BOUNDARY")
    .replace(/"_NmP-[0-9a-f]+-Part_\d+"/g, '"BOUNDARY"');
}

describeEachEngine("email simulator", (engine) => {
  let t: TestDatabase;
  let account: number;
  let dnsTxt: string;
  let simulator: EmailSimulator;
  const reports: DeliveryReport[] = [];

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    account = await buildEmailAccount(t.store);
    dnsTxt = await addSendingDomain(t.store.db, account, "shop.example.com", "approved", "sb2025");
    simulator = new EmailSimulator({
      db: t.store.db,
      contents: new EmailContentCache(t.store.db),
      bounceDomain: BOUNCE_DOMAIN,
      tracker: testTracker,
      logger: silentLogger,
    });
    simulator.onReports((batch) => reports.push(...batch));
  });
  afterAll(async () => {
    await t.drop();
  });

  it("captures the same message the relay would get, signed, and reports it delivered", async () => {
    const attachment = randomBytes(3000);
    const contentId = await storeContent(t.store.db, account, {
      to: ["ann@example.org"],
      cc: ["cat@example.org"],
      html: `<body><p>Hi</p><a href="https://shop.example.com/x?a=1&amp;b=2">x</a></body>`,
      trackOpens: true,
      trackClicks: true,
      attachments: [{ filename: "a.bin", contentType: "application/octet-stream", data: attachment }],
    });
    const row = emailRow(account, contentId, "dan@example.net");
    const [result] = await simulator.submit([row]);
    expect(result).toEqual({ ok: true, upstreamId: `${row.id}@${BOUNCE_DOMAIN}` });
    expect(reports.filter((r) => r.upstreamId === `${row.id}@${BOUNCE_DOMAIN}`)).toEqual([
      {
        connector: "email-simulator",
        upstreamId: `${row.id}@${BOUNCE_DOMAIN}`,
        status: "delivered",
        at: expect.any(Number),
      },
    ]);

    const [summary] = await listCaptured(t.store.db, account, { limit: 1 });
    expect(summary).toMatchObject({
      message_id: row.id,
      account_id: account,
      envelope_from: `bounces+${row.id}@${BOUNCE_DOMAIN}`,
      recipient: "dan@example.net",
      subject: "Your order has shipped",
    });
    expect(summary).not.toHaveProperty("raw");
    const captured = await getCaptured(t.store.db, summary!.id);
    const raw = Buffer.from(captured!.raw, "utf8");
    const dkim = await verifyDkim(raw, { "sb2025._domainkey.shop.example.com": dnsTxt });
    expect(dkim.map((d) => d.status.result)).toEqual(["pass"]);
    const mail = await parseMail(raw);
    expect(mail.attachments[0]?.content.equals(attachment)).toBe(true);
    expect(String(mail.html)).toContain(testTracker.openPixelUrl(row.id));

    // The same row through the smtp connector to a relay: byte for byte the same but for Date and boundaries.
    const relay = new FakeRelay();
    await relay.start();
    const smtp = new SmtpConnector({
      url: relay.url,
      poolSize: 1,
      timeoutMs: 5_000,
      bounceDomain: BOUNCE_DOMAIN,
      contents: new EmailContentCache(t.store.db),
      tracker: testTracker,
      logger: silentLogger,
      tlsRejectUnauthorized: false,
    });
    try {
      expect((await smtp.submit([row]))[0]?.ok).toBe(true);
      const sent = relay.for("dan@example.net").raw.toString("utf8");
      expect(comparable(captured!.raw)).toBe(comparable(sent));
      expect(comparable(sent)).toContain("--BOUNDARY");
    } finally {
      await smtp.stop();
      await relay.stop();
    }
  });

  it("refuses +bounce for good, defers +defer once, and fails a send whose content is gone", async () => {
    const contentId = await storeContent(t.store.db, account);
    const bounce = emailRow(account, contentId, "User+Bounce@example.com");
    const defer = emailRow(account, contentId, "user+defer@example.com");
    const gone = emailRow(account, 123_456_789, "user@example.com");
    const before = (await listCaptured(t.store.db, account, { limit: 500 })).length;
    const results = await simulator.submit([bounce, defer, gone]);
    expect(results).toEqual([
      {
        ok: false,
        retryable: false,
        code: "bounced",
        message: "550 5.1.1 <User+Bounce@example.com>: Recipient address rejected (simulated)",
      },
      {
        ok: false,
        retryable: true,
        code: "smtp_temporary",
        message: "451 4.7.1 <user+defer@example.com>: Try again later (simulated)",
      },
      expect.objectContaining({ ok: false, retryable: false, code: "content_missing" }),
    ]);
    expect((await listCaptured(t.store.db, account, { limit: 500 })).length).toBe(before);

    const [again] = await simulator.submit([{ ...defer, attempts: 2 }]);
    expect(again).toEqual({ ok: true, upstreamId: `${defer.id}@${BOUNCE_DOMAIN}` });
    const [latest] = await listCaptured(t.store.db, account, { limit: 1 });
    expect(latest?.recipient).toBe("user+defer@example.com");
  });

  it("lists the inbox newest first, by account, paging back and forward", async () => {
    const other = await buildEmailAccount(t.store);
    const mine = await storeContent(t.store.db, account);
    const theirs = await storeContent(t.store.db, other);
    const rows = [
      emailRow(account, mine, "p1@example.org"),
      emailRow(other, theirs, "p2@example.org"),
      emailRow(account, mine, "p3@example.org"),
    ];
    for (const row of rows) await simulator.submit([row]);
    const all = await listCaptured(t.store.db, undefined, { limit: 3 });
    expect(all.map((c) => c.recipient)).toEqual(["p3@example.org", "p2@example.org", "p1@example.org"]);
    expect((await listCaptured(t.store.db, other)).map((c) => c.recipient)).toEqual(["p2@example.org"]);
    const page = await listCaptured(t.store.db, undefined, { limit: 1, beforeId: all[0]!.id });
    expect(page.map((c) => c.recipient)).toEqual(["p2@example.org"]);
    const since = await listCaptured(t.store.db, undefined, { afterId: all[2]!.id });
    expect(since.map((c) => c.recipient)).toEqual(["p3@example.org", "p2@example.org"]);
    expect(await getCaptured(t.store.db, 987_654_321)).toBeUndefined();
  });
});
