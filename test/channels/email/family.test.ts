// The email API through the real server on the default simulator connector: the three paths,
// GET and POST (query, form, multipart with attachments), every -7 and -11 cause, charging per
// de-duplicated recipient, templates with placeholders, scheduling, and the notifications of a
// send's notifyurl (sent, delivered, bounced, opened, clicked) through the webhook machinery.
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { addEmailDomain } from "../../../src/channels/email/domains.js";
import { suiteReceivers, until, verify } from "../../domain/webhooks/receiver.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { base, emailAccount, storedContent } from "./helpers.js";

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

async function post(t: TestGateway, path: string, fields: Record<string, string>) {
  return call(t, "POST", path, {
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form(fields),
  });
}

async function emailWallet(t: TestGateway, accountId: number): Promise<number> {
  const row = await t.db.store.db
    .selectFrom("wallets")
    .select("balance")
    .where("account_id", "=", accountId)
    .where("wallet", "=", "email")
    .executeTakeFirstOrThrow();
  return Number(row.balance) / 1000;
}

async function captured(t: TestGateway, accountId: number) {
  return t.db.store.db
    .selectFrom("email_captured")
    .select(["recipient", "subject", "raw", "message_id"])
    .where("account_id", "=", accountId)
    .orderBy("id")
    .execute();
}

// The engines' suites run at the same time, each with its own gateway and receivers.
describeEnginesTogether("email API", (engine) => {
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const receiver = suiteReceivers();

  it("accepts on all three paths, GET and POST, and charges 1 credit per de-duplicated recipient", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const fields = {
      ...base(account),
      to: "asha@example.org, Ravi <ravi@example.org>",
      cc: "RAVI@EXAMPLE.ORG, meera@example.org",
      bcc: "audit@example.net",
      text: "Hello",
      replyto: "Support <help@shop.example.com>",
    };
    const answer = await post(t, "/httpemailapi/v1/send", fields);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toContain("text/plain");
    expect(answer.text).toMatch(new RegExp(`^${account.id}_\\d{8}_\\d+$`));
    // asha, ravi, meera, audit: the cc'd ravi (another case) counts once.
    expect(await emailWallet(t, account.id)).toBe(16);
    await until(async () => (await captured(t, account.id)).length === 4);
    const mails = await captured(t, account.id);
    expect(mails.map((m) => m.recipient).sort()).toEqual([
      "asha@example.org",
      "audit@example.net",
      "meera@example.org",
      "ravi@example.org",
    ]);
    for (const mail of mails) expect(mail.raw).not.toMatch(/^bcc:/im);
    // multipart/alternative, the plain text first and the HTML last (RFC 2046: the preferred one last), as docs/api.md says.
    const raw = mails[0]!.raw;
    expect(raw).toMatch(/^Content-Type: multipart\/alternative;/im);
    expect(raw.search(/^Content-Type: text\/plain/im)).toBeGreaterThan(-1);
    expect(raw.search(/^Content-Type: text\/plain/im)).toBeLessThan(raw.search(/^Content-Type: text\/html/im));
    // The operator reads the simulator's inbox over the API.
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const inbox = await call(t, "GET", `/admin/api/email/inbox?account=${account.username}&limit=2`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(inbox.status).toBe(200);
    expect(inbox.body.data).toHaveLength(2);
    expect(inbox.body.data[0].created_at).toMatch(/Z$/);
    expect(inbox.body.data[0].raw).toBeUndefined();
    const one = await call(t, "GET", `/admin/api/email/inbox/${inbox.body.data[0].id}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(one.body.data.raw).toContain("Subject: Your order");
    const denied = await call(t, "GET", "/admin/api/email/inbox", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(denied.status).toBe(403);

    const alias = await post(t, "/httpemailapiv2/send", base(account));
    expect(alias.text).toMatch(/^\d+_\d{8}_\d+$/);
    const legacy = await call(t, "GET", `/httpemailapi/send?${form(base(account))}`);
    expect(legacy.text).toMatch(/^\d+_\d{8}_\d+$/);
    expect(await emailWallet(t, account.id)).toBe(14);

    const status = await call(t, "GET", `/api/v2/email/status/${answer.text}`, {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    expect(status.status).toBe(200);
    const recipients = status.body.data.recipients as Array<{ email: string; kind: string }>;
    expect(recipients.map((r) => `${r.kind}:${r.email}`).sort()).toEqual([
      "bcc:audit@example.net",
      "cc:meera@example.org",
      "to:asha@example.org",
      "to:ravi@example.org",
    ]);
  });

  it("takes username and password, and attachments as multipart", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const body = new FormData();
    body.set("username", account.username);
    body.set("password", account.password);
    for (const [name, value] of Object.entries({ ...base(account), api_key: "" })) {
      if (name !== "api_key") body.set(name, value);
    }
    const bytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 7) % 256));
    body.append("attachment", new Blob([bytes], { type: "application/pdf" }), "invoice.pdf");
    body.append("attachment", new Blob(["a,b\n1,2\n"], { type: "text/csv" }), "data.csv");
    const response = await fetch(`${t.url}/httpemailapi/v1/send`, { method: "POST", body });
    const text = await response.text();
    expect(text).toMatch(/^\d+_\d{8}_\d+$/);
    const stored = await t.db.store.db
      .selectFrom("email_attachments")
      .innerJoin("email_contents", "email_contents.id", "email_attachments.content_id")
      .select(["filename", "content_type", "size", "data"])
      .where("email_contents.broadcast_id", "=", text)
      .orderBy("email_attachments.id")
      .execute();
    expect(stored.map((a) => [a.filename, a.content_type, a.size])).toEqual([
      ["invoice.pdf", "application/pdf", 3000],
      ["data.csv", "text/csv", 8],
    ]);
    expect(Buffer.compare(Buffer.from(stored[0]!.data), bytes)).toBe(0);
  });

  describe("-7 and -11", () => {
    it("answers -7 for every authentication failure", async () => {
      const t = gateway();
      const account = await emailAccount(t);
      const { api_key: _key, ...rest } = base(account);
      for (const fields of [
        rest,
        { ...rest, api_key: "sb_wrong" },
        { ...rest, username: account.username },
        { ...rest, username: account.username, password: "wrong" },
      ]) {
        const answer = await post(t, "/httpemailapi/v1/send", fields);
        expect(answer.status).toBe(200);
        expect(answer.text, JSON.stringify(fields)).toBe("-7");
      }
      // A blocked or inactive account cannot send either, with the right key.
      for (const status of ["blocked", "inactive"] as const) {
        await t.db.store.db.updateTable("accounts").set({ status }).where("id", "=", account.id).execute();
        t.gateway.ctx.authenticator.forget(`account:${account.id}`);
        expect((await post(t, "/httpemailapi/v1/send", base(account))).text, status).toBe("-7");
      }
      expect(await emailWallet(t, account.id)).toBe(20);
    });

    it("answers -11 for each validation failure, charging nothing", async () => {
      const t = gateway();
      const account = await emailAccount(t, 3);
      await addEmailDomain(t.db.store.db, t.clock, account.id, "pending.example.com");
      const ok = base(account);
      const without = (name: string) => Object.fromEntries(Object.entries(ok).filter(([k]) => k !== name));
      const causes: Array<[string, Record<string, string>]> = [
        ["missing from", without("from")],
        ["missing to", without("to")],
        // docs/api.md, Known limits: a send to bcc alone is refused; put the list's own address in to.
        ["bcc only", { ...without("to"), to: "", bcc: "asha@example.org" }],
        ["missing subject", without("subject")],
        ["missing html", without("html")],
        ["blank html", { ...ok, html: "   " }],
        ["bad to", { ...ok, to: "asha@example.org, not-an-address" }],
        ["bad cc", { ...ok, cc: "x@" }],
        ["bad from", { ...ok, from: "nobody" }],
        ["two froms", { ...ok, from: "a@shop.example.com, b@shop.example.com" }],
        ["unapproved domain", { ...ok, from: "news@other.example.com" }],
        ["pending domain", { ...ok, from: "news@pending.example.com" }],
        ["not enough credits", { ...ok, to: "a@example.org,b@example.org,c@example.org,d@example.org" }],
        ["unknown template", { ...ok, templateid: "999999" }],
        ["bad placeholders", { ...ok, defaultplaceholders: "{not json" }],
        ["placeholders not an object", { ...ok, defaultplaceholders: "[1,2]" }],
        ["bad sendat", { ...ok, sendat: "tomorrow" }],
        ["bad trackopens", { ...ok, trackopens: "maybe" }],
        ["bad notifyurl", { ...ok, notifyurl: "ftp://example.com/hook" }],
        ["bad replyto", { ...ok, replyto: "@" }],
        ["too long callbackdata", { ...ok, callbackdata: "x".repeat(1001) }],
      ];
      for (const [cause, fields] of causes) {
        const answer = await post(t, "/httpemailapi/v1/send", fields);
        expect(answer.text, cause).toBe("-11");
      }
      expect(await emailWallet(t, account.id)).toBe(3);
      const messages = await t.db.store.db
        .selectFrom("messages")
        .select("id")
        .where("account_id", "=", account.id)
        .execute();
      expect(messages).toHaveLength(0);
    });

    it("answers -11 for an attachment over the size limit", async () => {
      const t = gateway();
      const account = await emailAccount(t);
      const body = new FormData();
      for (const [name, value] of Object.entries(base(account))) body.set(name, value);
      body.append("attachment", new Blob([Buffer.alloc(10 * 1024 * 1024 + 1)]), "big.bin");
      const response = await fetch(`${t.url}/httpemailapi/v1/send`, { method: "POST", body });
      expect(await response.text()).toBe("-11");
      expect(await emailWallet(t, account.id)).toBe(20);
    });
  });

  it("fills a stored template's placeholders (escaped in HTML unless triple-braced)", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const v2 = (method: string, path: string, json?: unknown) =>
      call(t, method, `/api/v2${path}`, {
        headers: { authorization: `Bearer ${account.apiKey}` },
        ...(json !== undefined ? { json } : {}),
      });
    const created = await v2("POST", "/email/templates", {
      name: "welcome",
      subject: "Welcome, {{name}}",
      html: "<p>Hi {{name}}</p>{{{banner}}}<p>{{missing}}</p>",
      text: "Hi {{name}}",
    });
    expect(created.status).toBe(201);
    expect(created.body.data.placeholders).toEqual(["name", "banner", "missing"]);
    const id = created.body.data.id as number;
    const { subject: _s, html: _h, ...fields } = base(account);
    const answer = await post(t, "/httpemailapi/v1/send", {
      ...fields,
      templateid: String(id),
      defaultplaceholders: JSON.stringify({ name: "Asha <3", banner: "<b>Sale</b>" }),
    });
    expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
    const content = await storedContent(t, answer.text);
    expect(content).toEqual({
      subject: "Welcome, Asha <3",
      html: "<p>Hi Asha &lt;3</p><b>Sale</b><p>{{missing}}</p>",
      text: "Hi Asha <3",
    });
    expect((await v2("GET", `/email/templates/${id}`)).body.data.name).toBe("welcome");
    expect((await v2("GET", "/email/templates")).body.meta).toMatchObject({ total: 1, page: 1 });
    expect((await v2("DELETE", `/email/templates/${id}`)).status).toBe(200);
    expect((await v2("GET", `/email/templates/${id}`)).status).toBe(404);
  });

  it("notifies the send's notifyurl per recipient: sent, delivered, bounced, opened, clicked", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const hook = await receiver();
    await call(t, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { delivery_report: "http://127.0.0.1:9/unused" },
    });
    const secret = (
      await call(t, "GET", "/api/v2/webhooks", { headers: { authorization: `Bearer ${account.apiKey}` } })
    ).body.data.secret as string;
    const answer = await post(t, "/httpemailapi/v1/send", {
      ...base(account),
      to: "asha@example.org, nobody+bounce@example.org",
      html: '<html><body><p>Sale!</p><a href="https://shop.example.com/sale?x=1&amp;y=2">Shop</a> <a href="mailto:help@shop.example.com">Mail</a></body></html>',
      trackopens: "true",
      trackclicks: "true",
      notifyurl: hook.url,
      callbackdata: "campaign-42",
    });
    expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
    await until(() => hook.received.length >= 3);
    const events = () => hook.received.map((r) => verify(secret, r) as Record<string, unknown>);
    const of = (email: string) =>
      events()
        .filter((e) => e.email === email)
        .map((e) => e.status);
    await until(() => of("asha@example.org").length >= 2);
    expect(of("asha@example.org")).toEqual(["sent", "delivered"]);
    expect(of("nobody+bounce@example.org")).toEqual(["bounced"]);
    const bounced = events().find((e) => e.status === "bounced")!;
    expect(bounced).toMatchObject({ event: "email", broadcast_id: answer.text, callbackdata: "campaign-42" });
    expect(String(bounced.reason)).toContain("550");

    const mail = (await captured(t, account.id)).find((m) => m.recipient === "asha@example.org")!;
    const source = mail.raw.replace(/=\r?\n/g, "").replace(/=3D/g, "=");
    const pixel = /(http:\/\/[^"'\s]+\/e\/o\/[^"'\s]+\.gif)/.exec(source)?.[1];
    const link = /href="(http:\/\/[^"]+\/e\/c\/[^"]+)"/.exec(source)?.[1]?.replace(/&amp;/g, "&");
    expect(pixel).toBeDefined();
    expect(link).toBeDefined();
    expect(source).toContain('href="mailto:help@shop.example.com"');
    const gif = await fetch(pixel!);
    expect(gif.headers.get("content-type")).toBe("image/gif");
    const click = await fetch(link!, { redirect: "manual" });
    expect(click.status).toBe(302);
    expect(click.headers.get("location")).toBe("https://shop.example.com/sale?x=1&y=2");
    await until(() => of("asha@example.org").length >= 4);
    expect(of("asha@example.org")).toEqual(["sent", "delivered", "opened", "clicked"]);
    expect(events().find((e) => e.status === "clicked")).toMatchObject({
      url: "https://shop.example.com/sale?x=1&y=2",
    });

    // A link whose target was changed, or signed for another message, does not redirect.
    const forged = link!.replace(
      encodeURIComponent("https://shop.example.com/sale?x=1&y=2"),
      encodeURIComponent("https://evil.example.com/"),
    );
    expect((await fetch(forged, { redirect: "manual" })).status).toBe(404);
    expect(hook.received.length).toBe(5);
    // The bounced recipient was refused by the relay at once: refunded (like an SMS rejected at submit).
    expect(await emailWallet(t, account.id)).toBe(19);
  });

  // On this gateway: the account's own (missing) webhook settings are what the test reads.
  describe("notifications without webhook settings", () => {
    it("signs them with a secret made for the account, lists them under event=email and redelivers them", async () => {
      const t = gateway();
      const account = await emailAccount(t);
      const hook = await receiver();
      const v2 = (method: string, path: string, json?: unknown) =>
        call(t, method, `/api/v2${path}`, {
          headers: { authorization: `Bearer ${account.apiKey}` },
          ...(json !== undefined ? { json } : {}),
        });
      expect((await v2("GET", "/webhooks")).body.data.secret).toBeNull();
      const answer = await post(t, "/httpemailapi/v1/send", { ...base(account), notifyurl: hook.url });
      expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
      await until(() => hook.received.length >= 2);
      const secret = (await v2("GET", "/webhooks")).body.data.secret as string;
      expect(secret).toMatch(/^whsec_/);
      expect(hook.received.map((r) => (verify(secret, r) as { status: string }).status)).toEqual(["sent", "delivered"]);

      const listed = await v2("GET", "/webhooks/deliveries?event=email");
      expect(listed.status).toBe(200);
      expect(listed.body.data).toHaveLength(2);
      await until(async () =>
        ((await v2("GET", "/webhooks/deliveries?event=email")).body.data as Array<{ status: string }>).every(
          (d) => d.status === "delivered",
        ),
      );
      const id = (listed.body.data as Array<{ id: number }>)[0]!.id;
      const again = await v2("POST", `/webhooks/deliveries/${id}/redeliver`);
      expect(again.status).toBe(202);
      await until(() => hook.received.length >= 3);
      expect(hook.received[2]!.headers["webhook-id"]).not.toBe(hook.received[0]!.headers["webhook-id"]);
    });
  });
});

describeEnginesTogether("email scheduling", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, { clock });

  it("holds a send until sendat (account time) and releases it then", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    // Asia/Kolkata 12:30 is 07:00 UTC, half an hour from now.
    const answer = await post(t, "/httpemailapi/v1/send", { ...base(account), sendat: "2026-11-22 12:30:00" });
    expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
    const statusOf = async () =>
      (
        await call(t, "GET", `/api/v2/email/status/${answer.text}`, {
          headers: { authorization: `Bearer ${account.apiKey}` },
        })
      ).body.data.recipients[0];
    expect(await statusOf()).toMatchObject({ status: "scheduled", scheduled_for: "2026-11-22T07:00:00Z" });
    // Housekeeping releases what is due each round: one has looked at this clock, and kept it.
    await t.gateway.workers!.housekeeping.afterRounds(1);
    expect((await statusOf()).status).toBe("scheduled");
    clock.advance(31 * 60 * 1000);
    await until(async () => (await statusOf()).status === "delivered", 10_000);
  });
});
