// The whole email path through the real server with the smtp connector: an API send to a real
// SMTP relay on loopback (smtp-server), what arrives parsed with mailparser (headers, DKIM,
// parts, attachment bytes, cc/bcc, reply-to), a relay that refuses one recipient, and a bounce
// sent back to the gateway's bounce listener, each seen by the send's notifyurl.
import nodemailer from "nodemailer";
import { afterAll, beforeAll, expect, it } from "vitest";
import { outboxSettled, receiver, until, useReceivers, verify } from "../../domain/webhooks/receiver.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestGateway } from "../../helpers/gateway.js";
import { BOUNCE_DOMAIN, closedPort, FakeRelay, parseMail, postfixDsn, verifyDkim } from "./helpers.js";

useReceivers();

describeEachEngine("email through the smtp connector", (engine) => {
  const relay = new FakeRelay();
  let t: TestGateway;
  let bouncePort = 0;

  beforeAll(async () => {
    await relay.start();
    bouncePort = await closedPort();
    t = await startTestGateway(engine, {
      env: {
        EMAIL_CONNECTOR: "smtp",
        SMTP_URL: relay.url,
        // The relay's STARTTLS certificate is smtp-server's self-signed test one.
        SMTP_TLS_INSECURE: "1",
        EMAIL_BOUNCE_DOMAIN: BOUNCE_DOMAIN,
        EMAIL_BOUNCE_PORT: String(bouncePort),
        SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1",
      },
    });
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
    await relay.stop();
  });

  // Each test's account asks for a domain of its own: one another account holds is approved only
  // when the operator confirms it (decision 0179).
  async function setUp(domain = "shop.example.com") {
    const account = await buildAccount(t, { credits: { email: 50 }, sender: null });
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const v2 = (method: string, path: string, json?: unknown) =>
      call(t, method, `/api/v2${path}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const asked = await v2("POST", "/email/domains", { domain: domain.replace(/^s/, "S") });
    expect(asked.status).toBe(201);
    expect(asked.body.data).toMatchObject({ domain, status: "pending" });
    const approved = await call(t, "PUT", `/admin/api/accounts/${account.username}/email/domains/${domain}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { status: "approved" },
    });
    expect(approved.body.data.status).toBe("approved");
    const dkim = asked.body.data.dkim as { record_name: string; record_value: string };
    const hook = await receiver();
    await v2("PUT", "/webhooks", { delivery_report: "http://127.0.0.1:9/unused" });
    const secret = (await v2("GET", "/webhooks")).body.data.secret as string;
    const events = () => hook.received.map((r) => verify(secret, r) as Record<string, unknown>);
    return { account, v2, dkim, hook, events };
  }

  it("delivers each recipient with the right headers, parts, attachment and a DKIM signature that verifies", async () => {
    const { account, dkim, v2 } = await setUp();
    const body = new FormData();
    const fields = {
      api_key: account.apiKey,
      from: "Shop Team <news@shop.example.com>",
      to: "Asha <asha@example.org>, ravi@example.org",
      cc: "meera@example.org",
      bcc: "audit@example.net",
      replyto: "help@shop.example.com",
      subject: "Invoice ₹1,042 — thank you",
      html: "<html><body><p>Namaste Asha,</p><p>Your invoice is attached.</p></body></html>",
      text: "Namaste Asha, your invoice is attached.",
    };
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    const pdf = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31 + 7) % 256));
    body.append("attachment", new Blob([pdf], { type: "application/pdf" }), "invoice-1042.pdf");
    const broadcast = await (await fetch(`${t.url}/httpemailapi/v1/send`, { method: "POST", body })).text();
    expect(broadcast).toMatch(/^\d+_\d{8}_\d+$/);
    const recipients = ["asha@example.org", "ravi@example.org", "meera@example.org", "audit@example.net"];
    await until(() => recipients.every((r) => relay.received.some((m) => m.to.includes(r))), 10_000);

    for (const recipient of recipients) {
      const arrived = relay.for(recipient);
      expect(arrived.to).toEqual([recipient]);
      expect(arrived.from).toMatch(new RegExp(`^bounces\\+q[0-9A-Z]{26}@${BOUNCE_DOMAIN.replace(/\./g, "\\.")}$`));
      const mail = await parseMail(arrived.raw);
      expect(mail.from?.value).toEqual([{ name: "Shop Team", address: "news@shop.example.com" }]);
      expect((mail.to as { value: unknown[] }).value).toEqual([
        { name: "Asha", address: "asha@example.org" },
        { name: "", address: "ravi@example.org" },
      ]);
      expect((mail.cc as { value: unknown[] }).value).toEqual([{ name: "", address: "meera@example.org" }]);
      expect(mail.bcc).toBeUndefined();
      expect(arrived.raw.toString("utf8")).not.toMatch(/^bcc:/im);
      expect(mail.replyTo?.value).toEqual([{ name: "", address: "help@shop.example.com" }]);
      expect(mail.subject).toBe("Invoice ₹1,042 — thank you");
      expect(mail.html).toContain("<p>Namaste Asha,</p>");
      expect(mail.text?.trim()).toBe("Namaste Asha, your invoice is attached.");
      expect(mail.attachments).toHaveLength(1);
      expect(mail.attachments[0]?.filename).toBe("invoice-1042.pdf");
      expect(mail.attachments[0]?.contentType).toBe("application/pdf");
      expect(Buffer.compare(mail.attachments[0]!.content, pdf)).toBe(0);
      const results = await verifyDkim(arrived.raw, { [dkim.record_name]: dkim.record_value });
      expect(results.map((r: { status: { result: string } }) => r.status.result)).toEqual(["pass"]);
    }
    expect((await v2("GET", "/balance")).status).toBe(200);
    const status = await v2("GET", `/email/status/${broadcast}`);
    await until(async () =>
      ((await v2("GET", `/email/status/${broadcast}`)).body.data.recipients as Array<{ status: string }>).every(
        (r) => r.status === "delivered",
      ),
    );
    expect(status.body.data.recipients).toHaveLength(4);
  });

  it("a relay that refuses one recipient bounces that one only; a bounce sent back later bounces a delivered one", async () => {
    const { account, v2, hook, events } = await setUp("second-shop.example.com");
    relay.recipientAnswers.set("gone@example.org", {
      code: 550,
      text: "5.1.1 <gone@example.org>: Recipient address rejected",
    });
    const answer = await call(t, "POST", "/httpemailapi/v1/send", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        api_key: account.apiKey,
        from: "news@second-shop.example.com",
        to: "kiran@example.org, gone@example.org",
        subject: "Hello",
        html: "<p>Hello</p>",
        notifyurl: hook.url,
        callbackdata: "batch-7",
      }).toString(),
    });
    const broadcast = answer.text;
    expect(broadcast).toMatch(/^\d+_\d{8}_\d+$/);
    const of = (email: string) =>
      events()
        .filter((e) => e.email === email)
        .map((e) => e.status);
    await until(() => of("kiran@example.org").length >= 2 && of("gone@example.org").length >= 1, 10_000);
    expect(of("kiran@example.org")).toEqual(["sent", "delivered"]);
    expect(of("gone@example.org")).toEqual(["bounced"]);
    expect(events().find((e) => e.email === "gone@example.org")).toMatchObject({
      callbackdata: "batch-7",
      broadcast_id: broadcast,
    });
    expect(String(events().find((e) => e.email === "gone@example.org")?.reason)).toContain("550");
    // The refused one is refunded: 2 charged, 1 back.
    const wallet = await t.db.store.db
      .selectFrom("wallets")
      .select("balance")
      .where("account_id", "=", account.id)
      .where("wallet", "=", "email")
      .executeTakeFirstOrThrow();
    expect(Number(wallet.balance)).toBe(49_000);

    // Later, kiran's mailbox turns out not to exist: the remote MTA sends a DSN to the VERP address.
    const kiran = relay.for("kiran@example.org");
    const dsn = postfixDsn({
      to: kiran.from,
      recipient: "kiran@example.org",
      diagnostic: "550 5.1.1 <kiran@example.org>: Recipient address rejected: User unknown",
    });
    const transport = nodemailer.createTransport({
      host: "127.0.0.1",
      port: bouncePort,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({ envelope: { from: "", to: [kiran.from] }, raw: dsn });
    transport.close();
    await until(() => of("kiran@example.org").length >= 3, 10_000);
    expect(of("kiran@example.org")).toEqual(["sent", "delivered", "bounced"]);
    const status = (await v2("GET", `/email/status/${broadcast}`)).body.data.recipients as Array<{
      email: string;
      status: string;
      reason: string | null;
    }>;
    expect(status.find((r) => r.email === "kiran@example.org")).toMatchObject({ status: "bounced" });
    expect(status.find((r) => r.email === "kiran@example.org")?.reason).toContain("User unknown");
    // The same DSN again changes nothing.
    const again = nodemailer.createTransport({ host: "127.0.0.1", port: bouncePort, secure: false, ignoreTLS: true });
    await again.sendMail({ envelope: { from: "", to: [kiran.from] }, raw: dsn });
    again.close();
    // The bounce is stored before the SMTP answer: the outbox has whatever event it caused.
    await outboxSettled(t.db.store, hook.url);
    expect(of("kiran@example.org")).toEqual(["sent", "delivered", "bounced"]);
  });
});
