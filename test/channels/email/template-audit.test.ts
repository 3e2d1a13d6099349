// Email templates made, changed and deleted through the real server on both engines: each change
// is one audit entry naming the actor (an API key, a team user's console session), the account
// and what changed (never the bodies); a refused change and a change to what it was write none.
import { beforeAll, expect, it } from "vitest";
import { type AuditEntry, auditEntries, expectAuditChainIntact } from "../../helpers/audit-log.js";
import { callAs, type SignedIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

const HTML = "<p>Hello {{name}}, your order {{order}} is on its way.</p>";
const HTML_2 = `${HTML}<p>Thanks</p>`;

describeEachEngine("audit entries of email templates", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let shop: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    other = await buildAccount(t);
  });

  const templates = (account: TestAccount, method: string, path = "", json?: unknown) =>
    call(gateway(), method, `/api/v2/email/templates${path}`, {
      headers: keyOf(account),
      ...(json === undefined ? {} : { json }),
    });
  const shopLog = (filters: Record<string, string> = {}) =>
    auditEntries(gateway(), operator, { account: shop.username, action: "email_template", ...filters });

  it("records a template made, changed and deleted with an API key, and nothing for refused or empty changes", async () => {
    const t = gateway();
    const created = await templates(shop, "POST", "", { name: "Shipped", subject: "On its way", html: HTML });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as number;

    // Refused: bad input, another account's id, an id that cannot be one; a change to what it was.
    expect((await templates(shop, "POST", "", { name: "", subject: "x", html: "x" })).status).toBe(400);
    expect((await templates(shop, "PUT", `/${id}`, { subject: "" })).status).toBe(400);
    expect((await templates(other, "PUT", `/${id}`, { subject: "Taken over" })).status).toBe(404);
    expect((await templates(other, "DELETE", `/${id}`)).status).toBe(404);
    expect((await templates(shop, "DELETE", "/abc")).status).toBe(404);
    const nul = await templates(shop, "PUT", `/${id}`, { name: "Ship\u0000ped" });
    expect(nul.status, nul.text).toBe(400);
    expect(nul.body.error).toMatchObject({ code: "invalid_request", field: "name" });
    const same = await templates(shop, "PUT", `/${id}`, { name: "Shipped", subject: "On its way", html: HTML });
    expect(same.status, same.text).toBe(200);

    const changed = await templates(shop, "PUT", `/${id}`, { subject: "Shipped today", html: HTML_2 });
    expect(changed.status, changed.text).toBe(200);
    expect((await templates(shop, "PUT", `/${id}`, { text: "Plain words" })).status).toBe(200);
    expect((await templates(shop, "DELETE", `/${id}`)).status).toBe(200);

    const log = await shopLog();
    for (const entry of log) {
      expect(entry).toMatchObject({
        actor: shop.username,
        actor_user: null,
        channel: "api",
        credential: expect.stringMatching(/^key:\d+$/),
        account: shop.username,
        target: `email template ${id}`,
      });
      expect(JSON.stringify(entry)).not.toContain("your order");
    }
    expect(log.map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      [
        "email_template.create",
        null,
        { name: "Shipped", subject: "On its way", html_length: HTML.length, text_length: 0 },
      ],
      ["email_template.update", { subject: "On its way" }, { subject: "Shipped today", html_changed: true }],
      ["email_template.update", null, { text_changed: true }],
      [
        "email_template.delete",
        { name: "Shipped", subject: "Shipped today", html_length: HTML_2.length, text_length: 11 },
        null,
      ],
    ]);
    // Neither the other account's own log nor the operator's view of it holds an entry.
    expect(await auditEntries(t, other, { action: "email_template" }, { operator: false })).toEqual([]);
    expect(await auditEntries(t, operator, { account: other.username, action: "email_template" })).toEqual([]);
    // The account reads its own entries through its log too.
    const own = await auditEntries(t, shop, { action: "email_template.update" }, { operator: false });
    expect(own.map((entry) => entry.after)).toEqual([
      { subject: "Shipped today", html_changed: true },
      { text_changed: true },
    ]);
    await expectAuditChainIntact(t, operator);
  });

  it("names the team user whose console session made the change", async () => {
    const t = gateway();
    const added = await call(t, "POST", "/api/v2/users", {
      headers: keyOf(shop),
      json: { login: "dev", user_role: "developer", password: "dev-password-1" },
    });
    expect(added.status, added.text).toBe(201);
    const signedIn = await call(t, "POST", "/console/session", {
      json: { username: shop.username, login: "dev", password: "dev-password-1" },
    });
    expect(signedIn.status, signedIn.text).toBe(201);
    const session: SignedIn = {
      cookie: (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
      csrf: signedIn.body.data.csrf_token,
      setCookie: "",
    };

    const made = await callAs(t, session, "POST", "/api/v2/email/templates", {
      json: { name: "Welcome", subject: "Hi", html: "<p>Hi</p>" },
    });
    expect(made.status, made.text).toBe(201);
    const bad = await callAs(t, session, "PUT", `/api/v2/email/templates/${made.body.data.id}`, {
      json: { name: "x".repeat(101) },
    });
    expect(bad.status).toBe(400);

    const byDev: AuditEntry[] = await shopLog({ actor_user: "DEV" });
    expect(byDev).toEqual([
      expect.objectContaining({
        action: "email_template.create",
        actor: shop.username,
        actor_user: "dev",
        channel: "console",
        credential: expect.stringMatching(/^session:/),
        account: shop.username,
        target: `email template ${made.body.data.id}`,
        after: { name: "Welcome", subject: "Hi", html_length: 9, text_length: 0 },
      }),
    ]);
    await expectAuditChainIntact(t, operator);
  });
});
