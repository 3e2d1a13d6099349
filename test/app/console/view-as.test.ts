// "View as this account" (issue 38): an operator signed in to the console opens an account's
// console read-only. The view is a session of the account carried by its own cookie (sb_view)
// beside the operator's; it reads what the account reads, changes nothing (403 read_only_view),
// ends when closed, and every view is recorded: who, which account, when, from where (in the
// audit log too).
import { expect, it } from "vitest";
import { callAs, type SignedIn, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("an operator's view of an account", (engine) => {
  const gateway = useTestGateway(engine);

  it("reads as the account, changes nothing, ends when closed, and is recorded", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t, { credits: { sms: 42 } });
    const signedIn = await signIn(t, operator.username, operator.password);

    const opened = await callAs(t, signedIn, "POST", "/console/session/view", { json: { username: acme.username } });
    expect(opened.status, opened.text).toBe(201);
    const setCookie = opened.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/^sb_view=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Strict$/);
    expect(opened.body.data).toMatchObject({
      username: acme.username,
      role: "customer",
      viewer: operator.username,
      read_only: true,
    });
    // The browser now carries both cookies; the view stands for the account.
    const viewing: SignedIn = {
      cookie: `${signedIn.cookie}; ${setCookie.split(";")[0]}`,
      csrf: opened.body.data.csrf_token,
      setCookie,
    };
    const current = await callAs(t, viewing, "GET", "/console/session");
    expect(current.body.data).toMatchObject({ username: acme.username, viewer: operator.username, read_only: true });
    expect((await callAs(t, viewing, "GET", "/api/v2/balance")).body.data.balance).toBe(42);

    const send = await callAs(t, viewing, "POST", "/api/v2/sms/send", {
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "from the view" },
    });
    expect(send.status).toBe(403);
    expect(send.body.error.code).toBe("read_only_view");
    expect(send.body.message).toContain(`${operator.username}'s read-only view of ${acme.username}`);
    expect(
      (await call(t, "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${acme.apiKey}` } })).body.data
        .balance,
    ).toBe(42);
    const key = await callAs(t, viewing, "POST", "/api/v2/keys", { json: { name: "sneaky" } });
    expect(key.status).toBe(403);

    const closed = await callAs(t, viewing, "DELETE", "/console/session/view");
    expect(closed.body.data).toEqual({ ended: true });
    expect(closed.headers.get("set-cookie")).toMatch(/^sb_view=; Max-Age=0/);
    // The view's token is dead; the operator's own session is what the browser has.
    const stale = await call(t, "GET", "/console/session", { headers: { cookie: viewing.cookie } });
    expect(stale.status).toBe(401);
    const back = await callAs(t, signedIn, "GET", "/console/session");
    expect(back.body.data).toMatchObject({ username: operator.username, role: "operator" });
    expect(back.body.data.viewer).toBeUndefined();

    const views = await call(t, "GET", `/admin/api/account-views?account=${acme.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(views.status, views.text).toBe(200);
    expect(views.body.data).toEqual([
      {
        id: expect.any(Number),
        account: acme.username,
        viewer: operator.username,
        address: "127.0.0.1",
        user_agent: expect.any(String),
        started_at: expect.stringMatching(/Z$/),
        ended_at: expect.stringMatching(/Z$/),
      },
    ]);
    // The audit log holds the view's start and end, by the operator's own console session.
    const audit = await call(t, "GET", `/admin/api/audit?action=account&account=${acme.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    const entries = (audit.body.data as Record<string, unknown>[]).filter((entry) => entry.actor === operator.username);
    expect(entries.map((entry) => entry.action)).toEqual(["account.view_end", "account.view"]);
    expect(entries[1]).toMatchObject({
      channel: "console",
      credential: expect.stringMatching(/^session:/),
      address: "127.0.0.1",
    });
  });

  it("is for operators only, of accounts that exist", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const customer = await buildAccount(t);
    const other = await buildAccount(t);
    const asCustomer = await signIn(t, customer.username, customer.password);
    const refused = await callAs(t, asCustomer, "POST", "/console/session/view", {
      json: { username: other.username },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("operator_only");
    const asOperator = await signIn(t, operator.username, operator.password);
    expect(
      (await callAs(t, asOperator, "POST", "/console/session/view", { json: { username: "nobody-here" } })).status,
    ).toBe(404);
    expect((await call(t, "POST", "/console/session/view", { json: { username: other.username } })).status).toBe(401);
    const withoutCsrf = await callAs(t, asOperator, "POST", "/console/session/view", {
      json: { username: other.username },
      csrf: false,
    });
    expect(withoutCsrf.status).toBe(403);
    expect(withoutCsrf.body.error.code).toBe("csrf_rejected");
  });
});
