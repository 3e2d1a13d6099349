// Bounces coming back: a Postfix-style DSN read into the message it is about, and the SMTP
// listener that takes them (only for the bounce domain, answering 250 once stored, 451 when not).
import nodemailer from "nodemailer";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { newQueueId } from "../../../src/base/core/ids.js";
import { type BounceListener, startBounceListener } from "../../../src/channels/email/bounce-listener.js";
import { type Bounce, parseDsn } from "../../../src/channels/email/bounces.js";
import { EmailContentCache } from "../../../src/channels/email/content.js";
import { SmtpConnector } from "../../../src/channels/email/smtp-connector.js";
import { createTestDatabase, describeEachEngine, type TestDatabase } from "../../helpers/engines.js";
import {
  BOUNCE_DOMAIN,
  buildEmailAccount,
  emailRow,
  FakeRelay,
  postfixDsn,
  silentLogger,
  storeContent,
} from "./helpers.js";

const verp = (id: string) => `bounces+${id}@${BOUNCE_DOMAIN}`;

describe("DSN parser", () => {
  it("reads a Postfix DSN: the message from the envelope, the recipient, status, action and unfolded diagnostic", async () => {
    const id = newQueueId();
    const dsn = postfixDsn({ to: verp(id), recipient: "nobody@example.org" });
    expect(await parseDsn(dsn, { bounceDomain: BOUNCE_DOMAIN, envelopeTo: [verp(id)] })).toEqual([
      {
        messageId: id,
        recipient: "nobody@example.org",
        status: "5.1.1",
        action: "failed",
        diagnostic: "550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
      },
    ]);
  });

  it("keeps a diagnostic without its NULs (PostgreSQL's text refuses them), and one of NULs alone as the status", async () => {
    const id = newQueueId();
    const parse = (diagnostic: string) =>
      parseDsn(postfixDsn({ to: verp(id), recipient: "ann@example.org", diagnostic }), {
        bounceDomain: BOUNCE_DOMAIN,
        envelopeTo: [verp(id)],
      });
    expect((await parse("550\u0000 5.1.1 gone\u0000"))[0]?.diagnostic).toBe("550 5.1.1 gone");
    expect((await parse("\u0000"))[0]?.diagnostic).toBe("5.1.1 (failed)");
  });

  it("finds the message from the returned headers when the envelope does not name it", async () => {
    const id = newQueueId();
    const other = newQueueId();
    const headers = [
      `Return-Path: <${verp(id)}>`,
      "From: Shop <news@shop.example.com>",
      "To: nobody@example.org",
      "Subject: Hello",
      `Message-ID: <${other}@${BOUNCE_DOMAIN}>`,
      `X-Switchboard-Message-Id: ${id}`,
    ];
    const options = { bounceDomain: BOUNCE_DOMAIN, envelopeTo: [`postmaster@${BOUNCE_DOMAIN}`] };
    const viaHeader = await parseDsn(
      postfixDsn({ to: "postmaster@shop.example.com", recipient: "nobody@example.org", originalHeaders: headers }),
      options,
    );
    expect(viaHeader.map((b) => b.messageId)).toEqual([id]);

    // A relay that dropped our X- header: the Message-ID on our bounce domain still names it.
    const withoutX = headers.filter((h) => !h.startsWith("X-Switchboard"));
    const viaMessageId = await parseDsn(
      postfixDsn({
        to: "postmaster@shop.example.com",
        recipient: "nobody@example.org",
        originalHeaders: withoutX,
        returned: "message",
      }),
      options,
    );
    expect(viaMessageId.map((b) => b.messageId)).toEqual([other]);

    // Nothing of ours anywhere: nothing to report.
    const foreign = await parseDsn(
      postfixDsn({
        to: "someone@else.example",
        recipient: "nobody@example.org",
        originalHeaders: ["Message-ID: <abc@mx.else.example>"],
      }),
      options,
    );
    expect(foreign).toEqual([]);
  });

  it("tells a delay from a failure, and reads mail that is no DSN as nothing", async () => {
    const id = newQueueId();
    const delayed = await parseDsn(
      postfixDsn({
        to: verp(id),
        recipient: "slow@example.org",
        action: "delayed",
        status: "4.4.1",
        diagnostic: "connect to mx.example.org[192.0.2.1]:25: Connection timed out",
      }),
      { bounceDomain: BOUNCE_DOMAIN, envelopeTo: [verp(id)] },
    );
    expect(delayed).toEqual([expect.objectContaining({ messageId: id, action: "delayed", status: "4.4.1" })]);

    const vacation = [
      "From: Ann <ann@example.org>",
      `To: ${verp(id)}`,
      "Subject: Out of office",
      "Auto-Submitted: auto-replied",
      "Content-Type: text/plain",
      "",
      "I am away until Monday; 550 5.1.1 is not a bounce here.",
      "",
    ].join("\r\n");
    expect(await parseDsn(vacation, { bounceDomain: BOUNCE_DOMAIN, envelopeTo: [verp(id)] })).toEqual([]);
  });
});

describe("bounce listener", () => {
  let listener: BounceListener | undefined;
  const bounces: Bounce[] = [];
  let onBounce: (bounce: Bounce) => Promise<void> = async (bounce) => {
    bounces.push(bounce);
  };

  beforeAll(async () => {
    listener = await startBounceListener({
      port: 0,
      host: "127.0.0.1",
      bounceDomain: BOUNCE_DOMAIN,
      onBounce: (bounce) => onBounce(bounce),
      logger: silentLogger,
      maxBytes: 64 * 1024,
    });
  });
  afterEach(() => {
    bounces.length = 0;
    onBounce = async (bounce) => {
      bounces.push(bounce);
    };
  });
  afterAll(async () => {
    await listener?.close();
  });

  /** A DSN the way an MTA hands it over: from the null sender to the VERP address. */
  async function deliver(to: string, raw: string) {
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: listener!.port, ignoreTLS: true });
    try {
      return await transport.sendMail({ envelope: { from: "", to: [to] }, raw });
    } finally {
      transport.close();
    }
  }

  it("hands a failed recipient to onBounce and answers 250 only after it resolved", async () => {
    const id = newQueueId();
    let release: () => void = () => undefined;
    onBounce = (bounce) =>
      new Promise<void>((resolve) => {
        bounces.push(bounce);
        release = resolve;
      });
    let answered = false;
    const sending = deliver(verp(id), postfixDsn({ to: verp(id), recipient: "nobody@example.org" })).then((info) => {
      answered = true;
      return info;
    });
    await expect.poll(() => bounces.length).toBe(1);
    // Bounded wait for what must not happen: the SMTP answer before the bounce is stored.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(answered).toBe(false);
    release();
    const info = await sending;
    expect(info.response).toMatch(/^250 /);
    expect(bounces).toEqual([
      {
        messageId: id,
        recipient: "nobody@example.org",
        status: "5.1.1",
        action: "failed",
        diagnostic: "550 5.1.1 <nobody@example.org>: Recipient address rejected: User unknown in virtual mailbox table",
      },
    ]);
  });

  it("answers 451 when the bounce could not be stored, so the sender tries again", async () => {
    onBounce = async () => {
      throw new Error("database is down");
    };
    const id = newQueueId();
    await expect(
      deliver(verp(id), postfixDsn({ to: verp(id), recipient: "nobody@example.org" })),
    ).rejects.toMatchObject({ responseCode: 451 });
  });

  it("takes delays and mail that is no DSN without calling onBounce", async () => {
    const id = newQueueId();
    const delayed = postfixDsn({ to: verp(id), recipient: "slow@example.org", action: "delayed", status: "4.4.1" });
    expect((await deliver(verp(id), delayed)).response).toMatch(/^250 /);
    const note = `From: a@example.org\r\nTo: ${verp(id)}\r\nSubject: hi\r\n\r\nhello\r\n`;
    expect((await deliver(verp(id), note)).response).toMatch(/^250 /);
    expect(bounces).toEqual([]);
  });

  it("refuses mail for other domains and messages over its size", async () => {
    const id = newQueueId();
    await expect(
      deliver("someone@example.org", postfixDsn({ to: verp(id), recipient: "x@example.org" })),
    ).rejects.toMatchObject({ responseCode: 550 });
    const huge = postfixDsn({
      to: verp(id),
      recipient: "x@example.org",
      returned: "message",
      originalHeaders: [`Subject: big`, "", "x".repeat(100 * 1024)],
    });
    await expect(deliver(verp(id), huge)).rejects.toMatchObject({ responseCode: 552 });
    expect(bounces).toEqual([]);
  });
});

describeEachEngine("bounce round trip", (engine) => {
  let t: TestDatabase;
  let relay: FakeRelay;
  let listener: BounceListener;
  const bounces: Bounce[] = [];

  beforeAll(async () => {
    t = await createTestDatabase(engine);
    relay = new FakeRelay();
    await relay.start();
    listener = await startBounceListener({
      port: 0,
      host: "127.0.0.1",
      bounceDomain: BOUNCE_DOMAIN,
      onBounce: async (bounce) => {
        bounces.push(bounce);
      },
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    await listener.close();
    await relay.stop();
    await t.drop();
  });

  it("names the message a remote server bounced after the relay took it", async () => {
    const account = await buildEmailAccount(t.store);
    const contentId = await storeContent(t.store.db, account, { to: ["ann@example.org", "nobody@example.org"] });
    const rows = ["ann@example.org", "nobody@example.org"].map((to) => emailRow(account, contentId, to));
    const smtp = new SmtpConnector({
      url: relay.url,
      poolSize: 2,
      timeoutMs: 5_000,
      bounceDomain: BOUNCE_DOMAIN,
      contents: new EmailContentCache(t.store.db),
      tracker: undefined,
      logger: silentLogger,
      tlsRejectUnauthorized: false,
    });
    try {
      expect((await smtp.submit(rows)).every((r) => r.ok)).toBe(true);
    } finally {
      await smtp.stop();
    }
    // The remote server's MTA returns the message's headers to its envelope sender.
    const sent = relay.for("nobody@example.org");
    const headers = sent.raw.toString("utf8").split("\r\n\r\n")[0]!.split("\r\n");
    const transport = nodemailer.createTransport({ host: "127.0.0.1", port: listener.port, ignoreTLS: true });
    try {
      await transport.sendMail({
        envelope: { from: "", to: [sent.from] },
        raw: postfixDsn({ to: sent.from, recipient: "nobody@example.org", originalHeaders: headers }),
      });
    } finally {
      transport.close();
    }
    expect(bounces).toEqual([expect.objectContaining({ messageId: rows[1]!.id, recipient: "nobody@example.org" })]);
  });
});
