// A view's cookie left behind after its view ended (idle or expired, the operator away) must not
// lock the browser out: it stands in front of the operator's own session, so every request
// answers 401 "session has ended"; signing in again clears it, and the console works.
import { expect, it } from "vitest";
import { callAs, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("a view's cookie after the view ended", (engine) => {
  const gateway = useTestGateway(engine);

  it("is cleared by the next sign-in, which then works", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t);
    const own = await signIn(t, operator.username, operator.password);
    const opened = await callAs(t, own, "POST", "/console/session/view", { json: { username: acme.username } });
    expect(opened.status, opened.text).toBe(201);
    const viewCookie = (opened.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    // The view ends while the browser keeps its cookie.
    expect((await call(t, "DELETE", "/console/session/view", { headers: { cookie: viewCookie } })).body.data).toEqual({
      ended: true,
    });
    const both = `${own.cookie}; ${viewCookie}`;
    expect((await call(t, "GET", "/console/session", { headers: { cookie: both } })).status).toBe(401);

    const again = await call(t, "POST", "/console/session", {
      headers: { cookie: both },
      json: { username: operator.username, password: operator.password },
    });
    expect(again.status, again.text).toBe(201);
    const cookies = again.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("sb_view="))).toMatch(/^sb_view=; Max-Age=0; Path=\/; HttpOnly/);
    const fresh = cookies.find((c) => c.startsWith("sb_session="))?.split(";")[0] ?? "";
    // The browser drops the view's cookie (Max-Age=0) and keeps the new session's.
    const current = await call(t, "GET", "/console/session", { headers: { cookie: fresh } });
    expect(current.status, current.text).toBe(200);
    expect(current.body.data).toMatchObject({ username: operator.username, role: "operator" });
    expect(current.body.data.viewer).toBeUndefined();
  });
});
