// An operator's staff viewing an account (decision 0141), through the real server on both
// engines: the views list and the audit log name the staff login that looked, not only the
// operator account; the view reads the webhook settings with the signing secret masked, and no
// sessions of the account; staff who change nothing read the secret masked on the operator API
// too; a view ends when its staff user is removed.
import { expect, it } from "vitest";
import { addStaffUser, callAs, openView, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("a staff login's view of an account", (engine) => {
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });

  it("names the staff login, masks the signing secret, lists no sessions, ends with the staff user", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t);
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const hooks = await call(t, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${acme.apiKey}` },
      json: { delivery_report: "http://127.0.0.1:9/hook" },
    });
    expect(hooks.status, hooks.text).toBe(200);
    const secret = hooks.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    // The customer is signed in somewhere: the view must not show where from.
    await signIn(t, acme.username, acme.password);

    const olga = await addStaffUser(t, operator, "olga", "operator_finance");
    const opsup = await addStaffUser(t, operator, "opsup", "operator_support");
    const olgaView = await openView(t, olga, acme.username);
    const opsupView = await openView(t, opsup, acme.username);
    expect((await callAs(t, olgaView, "GET", "/console/session")).body.data).toMatchObject({
      viewer: "olga",
      read_only: true,
    });

    const views = await call(t, "GET", `/admin/api/account-views?account=${acme.username}`, { headers: asOperator });
    expect(views.status, views.text).toBe(200);
    expect((views.body.data as { viewer: string }[]).map((v) => v.viewer)).toEqual(["opsup", "olga"]);
    const audit = await call(t, "GET", `/admin/api/audit?action=account.view&account=${acme.username}`, {
      headers: asOperator,
    });
    expect(
      (audit.body.data as Record<string, unknown>[]).map((entry) => [entry.actor, entry.actor_user, entry.action]),
    ).toEqual([
      [operator.username, "opsup", "account.view"],
      [operator.username, "olga", "account.view"],
    ]);

    const seen = await callAs(t, opsupView, "GET", "/api/v2/webhooks");
    expect(seen.status, seen.text).toBe(200);
    expect(seen.body.data).toMatchObject({
      delivery_report: "http://127.0.0.1:9/hook",
      secret: `whsec_…${secret.slice(-4)}`,
    });
    expect(seen.text).not.toContain(secret);
    const sessions = await callAs(t, opsupView, "GET", "/api/v2/sessions");
    expect(sessions.status, sessions.text).toBe(200);
    expect(sessions.body.data).toEqual([]);
    // The customer's own key reads its secret whole, and its own sessions.
    const own = await call(t, "GET", "/api/v2/webhooks", { headers: { authorization: `Bearer ${acme.apiKey}` } });
    expect(own.body.data.secret).toBe(secret);
    // On the operator API, staff who change nothing read it masked; the operator's admin key whole.
    const path = `/admin/api/accounts/${acme.username}/webhooks`;
    expect((await callAs(t, opsup, "GET", path)).body.data.secret).toBe(`whsec_…${secret.slice(-4)}`);
    expect((await call(t, "GET", path, { headers: asOperator })).body.data.secret).toBe(secret);

    // A staff user removed: their view ends with them.
    const removed = await call(t, "DELETE", "/admin/api/staff/olga", { headers: asOperator });
    expect(removed.status, removed.text).toBe(200);
    expect((await callAs(t, olgaView, "GET", "/api/v2/balance")).status).toBe(401);
    const closed = await callAs(t, opsupView, "DELETE", "/console/session/view");
    expect(closed.body.data).toEqual({ ended: true });
    const ends = await call(t, "GET", `/admin/api/audit?action=account.view_end&account=${acme.username}`, {
      headers: asOperator,
    });
    expect((ends.body.data as Record<string, unknown>[])[0]).toMatchObject({ actor_user: "opsup" });
  });
});
