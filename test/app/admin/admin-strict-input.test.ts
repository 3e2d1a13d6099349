// The operator API's strict input, through the real server on both engines:
// - query names (decision 0024 and its addenda): every operator route, with or without query
//   parameters of its own, refuses a name it does not take with a 400 naming it and what the
//   route takes; `_` (the cache-buster) and the operator key's `api_key` still pass. A route
//   without a querystring schema took any name (GET /admin/api/accounts/{u}?x=1 answered 200).
// - NUL (decision 0024, addendum): no path parameter, query value or JSON field of an operator route takes
//   U+0000, refused with a 400 naming the field on both engines alike. SQLite stored a credit's
//   note, a key's name or an adjustment's reason with a NUL (200) where PostgreSQL answered an
//   unnamed 400, and a password with a NUL was hashed on both.
// - passwords: one with a C0 control character or DEL is refused wherever a password is set
//   (operator account create and PATCH, staff, v2 users, the own-password change, invitations).
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type JsonResponse, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("operator API strict input", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await buildAccount(gateway());
  });

  const admin = (method: string, path: string, json?: unknown): Promise<JsonResponse> =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });

  function expectRefused(response: JsonResponse, field: string, message?: string | RegExp): void {
    expect({ status: response.status, error: response.body?.error }, response.text).toMatchObject({
      status: 400,
      error: { code: "invalid_request", field },
    });
    expect(response.body.status).toBe("error");
    if (typeof message === "string") expect(response.body.message).toBe(message);
    else if (message) expect(response.body.message).toMatch(message);
  }

  it("refuses an unknown query name on every operator route, naming it and what the route takes", async () => {
    const routes = gateway().gateway.app.routeAccess.filter((route) => route.url.startsWith("/admin/api/"));
    expect(routes.length).toBeGreaterThan(100);
    const without: string[] = [];
    for (const { method, url } of routes) {
      const path = url.replace(/:[a-z_]+/gi, "1").replace(/\*$/, "x");
      const answer = await call(gateway(), method, `${path}?colour=blue`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
      });
      expectRefused(answer, "colour", /^Unknown query parameter "colour"; this endpoint takes(: [a-z_, ]+| none)\.$/);
      if (answer.body.message.endsWith("takes none.")) without.push(`${method} ${url}`);
    }
    // The probe's route, and others that declared no query string before.
    expect(without).toEqual(
      expect.arrayContaining([
        "GET /admin/api/accounts/:username",
        "PATCH /admin/api/accounts/:username",
        "GET /admin/api/accounts/:username/sender-ids",
        "POST /admin/api/accounts",
      ]),
    );
    const u = shop.username;
    expectRefused(
      await admin("GET", `/accounts/${u}?x=1`),
      "x",
      'Unknown query parameter "x"; this endpoint takes none.',
    );
    expectRefused(
      await admin("GET", "/accounts?per_pag=5"),
      "per_pag",
      'Unknown query parameter "per_pag"; this endpoint takes: q, status, page, per_page.',
    );
    // Names that look like the cache-buster are not it; a HEAD and a PATCH are refused alike.
    for (const name of ["__", "_x"]) expectRefused(await admin("GET", `/accounts/${u}?${name}=1`), name);
    const head = await call(gateway(), "HEAD", `/admin/api/accounts/${u}?x=1`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(head.status).toBe(400);
    expectRefused(await admin("PATCH", `/accounts/${u}?x=1`, { flood_limit: 5 }), "x");
    expect((await admin("GET", `/accounts/${u}`)).body.data.flood_limit).toBe(0);
  });

  it("takes the cache-buster on every GET and the operator key in the query", async () => {
    const u = shop.username;
    expect((await admin("GET", `/accounts/${u}?_=1733100000000`)).status).toBe(200);
    expect((await admin("GET", `/accounts/${u}/sender-ids?_=1`)).status).toBe(200);
    expect((await admin("GET", "/accounts?_=1&per_page=5")).status).toBe(200);
    const keyed = await call(gateway(), "GET", `/admin/api/accounts/${u}?api_key=${operator.apiKey}&_=2`);
    expect(keyed.status, keyed.text).toBe(200);
    // Without a key, 401 first, whatever the query.
    expect((await call(gateway(), "GET", `/admin/api/accounts/${u}?x=1`)).status).toBe(401);
  });

  it("refuses a NUL in any path parameter, query value or JSON field, naming it, and writes nothing", async () => {
    const u = shop.username;
    const N = "\u0000";
    const cases: [string, string, unknown, string][] = [
      ["PATCH", `/accounts/${u}`, { password: `abcdefgh${N}` }, "password"],
      ["POST", "/accounts", { username: "nul-probe-1", password: `abc${N}defgh` }, "password"],
      ["POST", "/accounts", { username: "nul-probe-2", password: "password-1", parent: `x${N}` }, "parent"],
      [
        "POST",
        "/accounts",
        { username: "nul-probe-3", password: "password-1", sender_ids: [`AB${N}CDE`] },
        "sender_ids[0]",
      ],
      ["PATCH", `/accounts/${u}`, { price_card: `c${N}` }, "price_card"],
      ["PATCH", `/accounts/${u}`, { password_allowed_ips: ["10.0.0.1", `1.2.3.4${N}`] }, "password_allowed_ips[1]"],
      ["POST", `/accounts/${u}/sender-ids`, { sender: `AB${N}CDE` }, "sender"],
      ["POST", `/accounts/${u}/credits`, { wallet: "sms", amount: 1, note: `n${N}` }, "note"],
      ["POST", `/accounts/${u}/credits/adjust`, { wallet: "sms", amount: 1, reason: `r${N}` }, "reason"],
      ["POST", `/accounts/${u}/keys`, { name: `k${N}` }, "name"],
      ["POST", `/accounts/${u}/templates`, { name: "t", content: "hello", notes: `n${N}` }, "notes"],
      [
        "PUT",
        "/price-cards/card-1",
        { rows: [{ channel: "sms", route: "*", prefix: `9${N}1`, price: 0.1 }] },
        "rows[0].prefix",
      ],
      ["PUT", "/price-cards/c%00d", { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.1 }] }, "name"],
      ["POST", "/staff", { login: "staffer", user_role: "operator_admin", display_name: `d${N}` }, "display_name"],
      ["GET", "/accounts/a%00b", undefined, "username"],
      ["GET", "/accounts/a%00b/keys", undefined, "username"],
      ["GET", "/accounts?q=a%00", undefined, "q"],
      ["GET", "/account-views?account=a%00", undefined, "account"],
    ];
    for (const [method, path, json, field] of cases) {
      const answer = await admin(method, path, json);
      expectRefused(answer, field, /cannot contain U\+0000 \(NUL\)\.$/);
    }
    // Nothing was written: no account, no credit, no key, no template, no card, no staff.
    for (const name of ["nul-probe-1", "nul-probe-2", "nul-probe-3"]) {
      expect((await admin("GET", `/accounts/${name}`)).status).toBe(404);
    }
    const detail = (await admin("GET", `/accounts/${u}`)).body.data;
    expect(detail.balances.sms).toBe(1000);
    expect(detail.price_card).toBe("default");
    expect((await admin("GET", `/accounts/${u}/keys`)).body.data).toHaveLength(1);
    expect((await admin("GET", `/accounts/${u}/templates`)).body.meta.total).toBe(0);
    expect((await admin("GET", `/accounts/${u}/sender-ids`)).body.data).toHaveLength(1);
    expect((await admin("GET", "/price-cards/card-1")).status).toBe(404);
    expect((await admin("GET", "/staff")).body.data.map((s: { login: string }) => s.login)).not.toContain("staffer");
  });

  it.each([
    ["a NUL", "\u0000", "U+0000"],
    ["a tab", "\t", "U+0009"],
    ["a line break", "\n", "U+000A"],
    ["an escape", "\u001b", "U+001B"],
    ["a DEL", "\u007f", "U+007F"],
  ])("refuses a password with %s wherever one is set, and changes none", async (_what, control, code) => {
    const t = gateway();
    const password = `long-pass${control}word`;
    const u = shop.username;
    const hashOf = async () =>
      (
        await t.db.store.db
          .selectFrom("accounts")
          .select("password_hash")
          .where("id", "=", shop.id)
          .executeTakeFirstOrThrow()
      ).password_hash;
    const before = await hashOf();
    const words = (field: string) =>
      control === "\u0000"
        ? /cannot contain U\+0000 \(NUL\)\.$/
        : `${field} cannot contain control characters (U+0000 to U+001F, U+007F); it holds ${code}.`;
    // The operator API.
    expectRefused(await admin("PATCH", `/accounts/${u}`, { password }), "password", words("password"));
    expectRefused(await admin("POST", "/accounts", { username: "ctl-probe", password }), "password", words("password"));
    expectRefused(
      await admin("POST", "/staff", { login: "ctl-staff", user_role: "operator_support", password }),
      "password",
      words("password"),
    );
    expect(await hashOf()).toBe(before);
    expect((await admin("GET", "/accounts/ctl-probe")).status).toBe(404);

    // The v2 family: a user added with a password, the own-password change.
    const key = { authorization: `Bearer ${shop.apiKey}` };
    // Outside the operator API a NUL is told as any control character.
    const v2Words = (field: string) =>
      `${field} cannot contain control characters (U+0000 to U+001F, U+007F); it holds ${code}.`;
    const user = await call(t, "POST", "/api/v2/users", {
      headers: key,
      json: { login: "ctl-user", user_role: "support", password },
    });
    expect({ status: user.status, error: user.body.error }).toMatchObject({
      status: 400,
      error: { field: "password" },
    });
    expect(user.body.message).toBe(v2Words("password"));
    const change = await call(t, "PUT", "/api/v2/password", {
      headers: key,
      json: { current_password: shop.password, new_password: password },
    });
    expect({ status: change.status, error: change.body.error }).toMatchObject({
      status: 400,
      error: { field: "new_password" },
    });
    expect(change.body.message).toBe(v2Words("new_password"));
    expect(await hashOf()).toBe(before);

    // An invitation, accepted with such a password: refused, and still open.
    const invited = await call(t, "POST", "/api/v2/users", {
      headers: key,
      json: { login: `ctl-inv-${code.slice(2)}`, user_role: "support" },
    });
    expect(invited.status, invited.text).toBe(201);
    const token = new URL(invited.body.data.invitation.url).searchParams.get("token")!;
    const accepted = await call(t, "POST", "/console/invitation", { json: { token, password } });
    expect({ status: accepted.status, error: accepted.body.error }).toMatchObject({
      status: 400,
      error: { field: "password" },
    });
    expect(accepted.body.message).toBe(v2Words("password"));
    expect((await call(t, "GET", `/console/invitation?token=${token}`)).status).toBe(200);
  });

  it("still takes a password of printable characters, spaces and any script", async () => {
    const u = shop.username;
    expect((await admin("PATCH", `/accounts/${u}`, { password: "correct horse ßattery स्टेपल" })).status).toBe(200);
  });
});
