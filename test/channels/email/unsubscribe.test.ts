// One-click unsubscribe (RFC 8058, decision 0171) through the real server on the simulator
// connector: every list-mail message carries List-Unsubscribe (a signed URL of the gateway) and
// List-Unsubscribe-Post, both under DKIM; a GET of the URL only shows a page; a POST without a
// login puts the recipient on the account's email suppression list (idempotent, notified to the
// send's notifyurl, listed for the account and the operator); later list mail leaves the address
// out (in the log of refusals), refusing a send with nothing left; a transactional send
// (unsubscribe=0, "list_unsubscribe": false) carries no header and still reaches it; a forged
// link is 404; the operator takes an address off the list, audited. No header existed before.
import { expect, it } from "vitest";
import { suiteReceivers, until, verify } from "../../domain/webhooks/receiver.js";
import { auditEntries } from "../../helpers/audit-log.js";
import { describeEnginesTogether } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";
import { base, emailAccount, postEmail, verifyDkim } from "./helpers.js";

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

async function capturedFor(t: TestGateway, accountId: number, recipient: string) {
  const rows = await t.db.store.db
    .selectFrom("email_captured")
    .select(["raw", "message_id", "subject"])
    .where("account_id", "=", accountId)
    .where("recipient", "=", recipient)
    .orderBy("id")
    .execute();
  return rows;
}

async function waitForMail(t: TestGateway, accountId: number, recipient: string, count = 1) {
  await until(async () => (await capturedFor(t, accountId, recipient)).length >= count);
  return (await capturedFor(t, accountId, recipient))[count - 1]!;
}

function unsubscribeUrlOf(raw: string): string {
  const header = /^List-Unsubscribe: <([^>]+)>/im.exec(raw.replace(/\r?\n[ \t]+/g, " "));
  expect(header, raw.slice(0, 2000)).not.toBeNull();
  return header![1]!;
}

async function suppressions(t: TestGateway, account: TestAccount) {
  const answer = await call(t, "GET", "/api/v2/email/suppressions", { headers: bearer(account) });
  expect(answer.status, answer.text).toBe(200);
  return answer.body.data as Array<{ address: string; reason: string; message_id: string | null; created_at: string }>;
}

describeEnginesTogether("email one-click unsubscribe", (engine) => {
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  const receiver = suiteReceivers();

  it("signs List-Unsubscribe and List-Unsubscribe-Post into each message; GET changes nothing, POST unsubscribes once", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    const hook = await receiver();
    const sent = await postEmail(t, {
      ...base(account),
      to: "Asha <Asha@Example.org>, ravi@example.org",
      notifyurl: hook.url,
      callbackdata: "spring-sale",
    });
    expect(sent.text).toMatch(/^\d+_\d{8}_\d+$/);
    const mail = await waitForMail(t, account.id, "Asha@example.org");
    const url = unsubscribeUrlOf(mail.raw);
    expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/e/u/${mail.message_id}/[A-Za-z0-9_-]{22}$`));
    expect(mail.raw).toMatch(/^List-Unsubscribe-Post: List-Unsubscribe=One-Click\r?$/m);
    // RFC 8058: both headers are covered by the DKIM signature, and it verifies.
    const signature = (/^DKIM-Signature:(.*)$/im.exec(mail.raw.replace(/\r?\n[ \t]+/g, " "))?.[1] ?? "")
      .replace(/\s+/g, "")
      .toLowerCase();
    expect(signature).toMatch(/h=[^;]*list-unsubscribe:/);
    expect(signature).toMatch(/h=[^;]*list-unsubscribe-post/);
    const domains = await call(t, "GET", "/api/v2/email/domains", { headers: bearer(account) });
    const dkim = domains.body.data[0].dkim as { record_name: string; record_value: string };
    const results = await verifyDkim(Buffer.from(mail.raw), { [dkim.record_name.toLowerCase()]: dkim.record_value });
    expect(results.map((r: { status: { result: string } }) => r.status.result)).toEqual(["pass"]);
    // Each recipient has a link of its own.
    const ravi = await waitForMail(t, account.id, "ravi@example.org");
    expect(unsubscribeUrlOf(ravi.raw)).not.toBe(url);

    // A mail scanner's GET: a page with the button, nothing listed.
    const shown = await fetch(url);
    expect(shown.status).toBe(200);
    expect(shown.headers.get("content-type")).toContain("text/html");
    const html = await shown.text();
    expect(html).toContain('<form method="post">');
    expect(html).toContain("Asha@example.org");
    expect(await suppressions(t, account)).toEqual([]);

    // A forged or foreign MAC is 404 on both methods and lists no one.
    const forged = url.replace(/\/[A-Za-z0-9_-]{22}$/, "/AAAAAAAAAAAAAAAAAAAAAA");
    expect((await fetch(forged)).status).toBe(404);
    expect((await fetch(forged, { method: "POST", body: "List-Unsubscribe=One-Click" })).status).toBe(404);
    const otherMessage = url.replace(mail.message_id, ravi.message_id);
    expect((await fetch(otherMessage, { method: "POST" })).status).toBe(404);
    expect(await suppressions(t, account)).toEqual([]);

    // The mailbox provider's one-click POST: no login, 200.
    const oneClick = () =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      });
    const first = await oneClick();
    expect(first.status).toBe(200);
    const listed = await suppressions(t, account);
    expect(listed).toEqual([
      {
        address: "asha@example.org",
        reason: "list-unsubscribe",
        message_id: mail.message_id,
        created_at: expect.any(String),
      },
    ]);
    // Again (a second click, a provider's retry): 200, nothing new.
    expect((await oneClick()).status).toBe(200);
    expect(await suppressions(t, account)).toEqual(listed);
    expect(await (await fetch(url)).text()).not.toContain("<form");

    // The send's notifyurl hears of it once, as status unsubscribed (signed with the account's secret).
    const secret = (await call(t, "GET", "/api/v2/webhooks", { headers: bearer(account) })).body.data.secret as string;
    const events = () => hook.received.map((r) => verify(secret, r) as Record<string, unknown>);
    await until(() => events().some((e) => e.status === "unsubscribed"));
    const unsubscribed = events().filter((e) => e.status === "unsubscribed");
    expect(unsubscribed).toHaveLength(1);
    expect(unsubscribed[0]).toMatchObject({
      event: "email",
      email: "Asha@example.org",
      message_id: mail.message_id,
      broadcast_id: sent.text,
      callbackdata: "spring-sale",
    });

    // A multipart one-click (RFC 8058 allows it) works as well.
    const form = new FormData();
    form.set("List-Unsubscribe", "One-Click");
    expect((await fetch(unsubscribeUrlOf(ravi.raw), { method: "POST", body: form })).status).toBe(200);
    expect((await suppressions(t, account)).map((s) => s.address).sort()).toEqual([
      "asha@example.org",
      "ravi@example.org",
    ]);
  });

  it("leaves unsubscribed addresses out of later list mail; transactional mail still reaches them; the operator lists and removes them", async () => {
    const t = gateway();
    const account = await emailAccount(t);
    await postEmail(t, { ...base(account), to: "asha@example.org" });
    const mail = await waitForMail(t, account.id, "asha@example.org");
    expect((await fetch(unsubscribeUrlOf(mail.raw), { method: "POST" })).status).toBe(200);

    // List mail to asha (any case) and meera: meera only, 1 credit, asha in the log of refusals.
    const balance = async () =>
      (await call(t, "GET", "/api/v2/credits", { headers: bearer(account) })).body.data.wallets.email as number;
    const before = await balance();
    const campaign = await postEmail(t, { ...base(account), to: "ASHA@example.org, meera@example.org" });
    expect(campaign.text).toMatch(/^\d+_\d{8}_\d+$/);
    expect(await balance()).toBe(before - 1);
    const status = await call(t, "GET", `/api/v2/email/status/${campaign.text}`, { headers: bearer(account) });
    expect(status.body.data.recipients.map((r: { email: string }) => r.email)).toEqual(["meera@example.org"]);
    await until(async () => {
      const refusals = await call(t, "GET", `/api/v2/refusals?broadcast_id=${campaign.text}`, {
        headers: bearer(account),
      });
      return refusals.body.data?.length === 1;
    });
    const refusals = await call(t, "GET", `/api/v2/refusals?broadcast_id=${campaign.text}`, {
      headers: bearer(account),
    });
    expect(refusals.body.data[0]).toMatchObject({ code: "recipient_opted_out", recipients: ["ASHA@example.org"] });
    // The To header still shows the send's list as written.
    const meera = await waitForMail(t, account.id, "meera@example.org");
    expect(meera.raw).toMatch(/^To: ASHA@example\.org, meera@example\.org/im);

    // Nobody left: refused in each family's words, nothing charged.
    expect((await postEmail(t, { ...base(account), to: "asha@example.org" })).text).toBe("-11");
    const v2 = { from: "news@shop.example.com", to: "asha@example.org", subject: "Sale", html: "<p>Sale</p>" };
    const refused = await call(t, "POST", "/api/v2/email/send", { headers: bearer(account), json: v2 });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe("recipient_opted_out");
    expect(refused.body.message).toContain("asha@example.org unsubscribed");
    expect(await balance()).toBe(before - 1);

    // Transactional mail (a receipt) reaches asha, without List-Unsubscribe, on both families.
    const receipt = await postEmail(t, { ...base(account), to: "asha@example.org", unsubscribe: "0" });
    expect(receipt.text).toMatch(/^\d+_\d{8}_\d+$/);
    const second = await waitForMail(t, account.id, "asha@example.org", 2);
    expect(second.raw).not.toMatch(/^List-Unsubscribe/im);
    const json = await call(t, "POST", "/api/v2/email/send", {
      headers: bearer(account),
      json: { ...v2, list_unsubscribe: false },
    });
    expect(json.status, json.text).toBe(201);
    expect((await postEmail(t, { ...base(account), unsubscribe: "maybe" })).text).toBe("-11");

    // The operator sees the list and takes asha off it (audited); list mail reaches her again.
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const path = `/admin/api/accounts/${account.username}/email/suppressions`;
    const listed = await call(t, "GET", path, { headers: bearer(operator) });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toMatchObject([{ address: "asha@example.org", reason: "list-unsubscribe" }]);
    expect((await call(t, "GET", path, { headers: bearer(account) })).status).toBe(403);
    const removed = await call(t, "DELETE", `${path}/Asha@Example.org`, { headers: bearer(operator) });
    expect(removed.status, removed.text).toBe(200);
    expect(removed.body.data).toEqual({ account: account.username, address: "asha@example.org", removed: true });
    expect((await call(t, "DELETE", `${path}/asha@example.org`, { headers: bearer(operator) })).status).toBe(404);
    const entries = await auditEntries(t, operator, { action: "email_suppression.remove" });
    expect(entries.at(-1)).toMatchObject({
      target: `email suppression list of ${account.username}`,
      before: { address: "asha@example.org", reason: "list-unsubscribe", message_id: mail.message_id },
    });
    expect(await suppressions(t, account)).toEqual([]);
    expect((await postEmail(t, { ...base(account), to: "asha@example.org" })).text).toMatch(/^\d+_\d{8}_\d+$/);
  });
});
