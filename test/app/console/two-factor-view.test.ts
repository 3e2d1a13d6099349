// The signed-in login's second factor is not in an operator's read-only view of an account (api.md,
// Two-factor sign-in; audit-sec finding 4), through the real server on both engines: with a view
// open, every /console/two-factor route answers 403 `read_only_view` and changes nothing; with the
// view closed (even with its dead cookie still sent), the staff login sets up its own factor.
import { expect, it } from "vitest";
import { callAs, type SignedIn, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("two-factor routes in an operator's view", (engine) => {
  const gateway = useTestGateway(engine);

  it("refuses the staff login's factor routes while a view is open; answers them once it is closed", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const staff = await signIn(t, operator.username, operator.password);
    const opened = await callAs(t, staff, "POST", "/console/session/view", { json: { username: account.username } });
    expect(opened.status, opened.text).toBe(201);
    const viewCookie = (opened.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    const view: SignedIn = { ...staff, cookie: `${staff.cookie}; ${viewCookie}` };

    const refused = [
      await callAs(t, view, "GET", "/console/two-factor"),
      await callAs(t, view, "POST", "/console/two-factor", { json: {} }),
      await callAs(t, view, "POST", "/console/two-factor/confirm", { json: { code: "123456" } }),
      await callAs(t, view, "DELETE", "/console/two-factor", { json: { code: "123456" } }),
    ];
    for (const answer of refused) {
      expect(answer.status, answer.text).toBe(403);
      expect(answer.body.error).toMatchObject({ code: "read_only_view" });
      expect(answer.body.message).toContain(`read-only view of ${account.username}`);
    }
    // Nothing was started for the staff login.
    const rows = await t.db.store.db.selectFrom("two_factors").selectAll().execute();
    expect(rows).toEqual([]);
    // The account's policy still reads in the view.
    expect((await callAs(t, view, "GET", "/api/v2/two-factor/policy")).status).toBe(200);

    const closed = await callAs(t, view, "DELETE", "/console/session/view");
    expect(closed.status, closed.text).toBe(200);
    // The closed view's cookie, still sent, stands in the way of nothing.
    const own = await callAs(t, view, "GET", "/console/two-factor");
    expect(own.status, own.text).toBe(200);
    expect(own.body.data).toMatchObject({ login: operator.username, enabled: false });
    const started = await callAs(t, staff, "POST", "/console/two-factor", { json: {} });
    expect(started.status, started.text).toBe(201);
    expect(started.body.data.otpauth_url).toContain(operator.username);
  });

  it("is refused to a customer's own session only by a view, never by itself", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const owner = await signIn(t, account.username, account.password);
    const answer = await call(t, "GET", "/console/two-factor", { headers: { cookie: owner.cookie } });
    expect(answer.status, answer.text).toBe(200);
  });
});
