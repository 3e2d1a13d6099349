// Console sessions through the real server: sign-in with the API's password rules, the cookie
// standing in for an API key on v2 and the operator API, CSRF, isolation, sign-out and expiry
// (counted from the last use, whichever API process saw it).
import { afterAll, beforeAll, expect, it } from "vitest";
import { type Gateway, startGateway } from "../../../src/app/gateway.js";
import { ManualClock } from "../../../src/base/core/clock.js";
import { createLogger } from "../../../src/base/runtime/logging.js";
import { openStore, type Store } from "../../../src/base/store/store.js";
import { callAs, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestGateway, testConfig, useTestGateway } from "../../helpers/gateway.js";

const SEND = { sender_id: "SWBRD", recipient: "9876543210", message: "Hello from the console" };

describeEachEngine("console sessions", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const gateway = useTestGateway(engine, {
    clock,
    env: { LOGIN_LOCK_THRESHOLD: "3", SESSION_IDLE_MINUTES: "30", SESSION_MAX_HOURS: "2" },
  });

  it("signs in with username and password: an HttpOnly, SameSite=Strict cookie that opens v2", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 75 } });
    const session = await signIn(t, account.username.toUpperCase(), account.password);
    expect(session.setCookie).toMatch(/^sb_session=[\w-]{43}; Max-Age=7200; Path=\/; HttpOnly; SameSite=Strict$/);

    const balance = await callAs(t, session, "GET", "/api/v2/balance");
    expect(balance.status).toBe(200);
    expect(balance.body.data.balance).toBe(75);

    const current = await callAs(t, session, "GET", "/console/session");
    expect(current.body.data).toEqual({
      username: account.username,
      role: "customer",
      login: account.username,
      user_role: "owner",
      time_zone: "Asia/Kolkata",
      csrf_token: session.csrf,
      expires_at: "2026-11-22T08:30:00.000Z",
      idle_expires_at: "2026-11-22T07:00:00.000Z",
    });
    // The token never travels in an answer's body, only in the cookie.
    expect(current.text).not.toContain(session.cookie.split("=")[1]);
  });

  it("refuses a wrong password as the API does, then locks the address with -16's code", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const unknown = await call(t, "POST", "/console/session", { json: { username: "nobody-here", password: "x" } });
    expect(unknown.status).toBe(401);
    expect(unknown.body).toMatchObject({ status: "error", error: { code: "unauthorized", legacy_code: -7 } });
    expect(unknown.headers.get("set-cookie")).toBeNull();

    for (let i = 0; i < 3; i++) {
      const wrong = await call(t, "POST", "/console/session", {
        json: { username: account.username, password: "wrong-password" },
      });
      expect(wrong.status).toBe(401);
    }
    const locked = await call(t, "POST", "/console/session", {
      json: { username: account.username, password: account.password },
    });
    expect(locked.status).toBe(403);
    expect(locked.body.error).toMatchObject({ code: "account_locked", legacy_code: -16 });
    expect(locked.body.message).toMatch(/locked/);
  });

  it("refuses an inactive account, a form body and a missing field", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);
    const blocked = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { status: "blocked" },
    });
    expect(blocked.status).toBe(200);
    const refused = await call(t, "POST", "/console/session", {
      json: { username: account.username, password: account.password },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("account_inactive");

    // A form can be posted from any site; JSON cannot be without the gateway's consent (CORS).
    const form = await call(t, "POST", "/console/session", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `username=${operator.username}&password=${operator.password}`,
    });
    expect(form.status).toBe(415);
    const missing = await call(t, "POST", "/console/session", { json: { username: operator.username } });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toContain("password");
    // A NUL no name holds: the same 400 naming the field on both engines (PostgreSQL's text refuses
    // it: an unnamed 400 there, where SQLite answered 401).
    for (const [field, json] of [
      ["username", { username: `${operator.username}\u0000`, password: "x" }],
      ["login", { username: operator.username, login: "a\u0000", password: "x" }],
    ] as const) {
      const nul = await call(t, "POST", "/console/session", { json });
      expect(nul.status, nul.text).toBe(400);
      expect(nul.body.error).toMatchObject({ code: "invalid_request", field });
    }
  });

  it("needs the session's CSRF token on every state-changing request, and charges nothing without it", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    const session = await signIn(t, account.username, account.password);
    for (const csrf of [false, "forged-token", `${session.csrf}x`] as const) {
      const refused = await callAs(t, session, "POST", "/api/v2/sms/send", { json: SEND, csrf });
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ success: false, error: { code: "csrf_rejected" } });
    }
    const balance = await callAs(t, session, "GET", "/api/v2/balance", { csrf: false });
    expect(balance.body.data.balance).toBe(10);

    const sent = await callAs(t, session, "POST", "/api/v2/sms/send", { json: SEND });
    expect(sent.status).toBe(200);
    expect((await callAs(t, session, "GET", "/api/v2/balance")).body.data.balance).toBe(9);
    // Another session's token does not fit this one.
    const other = await signIn(t, account.username, account.password);
    const crossed = await callAs(t, session, "POST", "/api/v2/sms/send", { json: SEND, csrf: other.csrf });
    expect(crossed.status).toBe(403);
  });

  it("never sends on a GET with the cookie alone: GET send takes an API key, and charges nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t, { credits: { sms: 10 } });
    // An operator turned GET sends on, as an old integration needs; the account is signed in to the console.
    const enabled = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${(await buildAccount(t, { role: "operator", sender: null })).apiKey}` },
      json: { get_api_enabled: true },
    });
    expect(enabled.status).toBe(200);
    const session = await signIn(t, account.username, account.password);
    const query = new URLSearchParams({ sender_id: "SWBRD", recipient: "9876543210", message: "Hello" });
    // What an <img> or a link on any page can make the browser send: a GET with the cookie.
    // Strict cookies stop another site; a page of this origin (or a browser without SameSite) would not.
    for (const csrf of [false, true]) {
      const refused = await callAs(t, session, "GET", `/api/v2/sms/send?${query}`, { csrf });
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ success: false, error: { code: "unauthorized" } });
      expect(refused.body.message).toMatch(/^GET \/api\/v2\/sms\/send takes an API key/);
    }
    expect((await callAs(t, session, "GET", "/api/v2/balance")).body.data.balance).toBe(10);
    expect((await callAs(t, session, "GET", "/api/v2/messages")).body.data).toEqual([]);

    // The key still sends by GET, with or without the cookie beside it.
    const byKey = await callAs(t, session, "GET", `/api/v2/sms/send?${query}&api_key=${account.apiKey}`);
    expect(byKey.status, byKey.text).toBe(200);
    expect((await callAs(t, session, "GET", "/api/v2/balance")).body.data.balance).toBe(9);
  });

  it("refuses a cross-site form post to the operator API that carries the operator's cookie", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t, { credits: { sms: 5 } });
    const session = await signIn(t, operator.username, operator.password);
    // What a page on another site can make a browser send: a form, the cookie, no custom header.
    const forged = await call(t, "POST", `/admin/api/accounts/${account.username}/credits`, {
      headers: {
        cookie: session.cookie,
        "content-type": "application/x-www-form-urlencoded",
        origin: "http://evil.test",
      },
      body: "wallet=sms&amount=100000",
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error.code).toBe("csrf_rejected");
    const detail = await callAs(t, session, "GET", `/admin/api/accounts/${account.username}`);
    expect(detail.body.data.balances.sms).toBe(5);

    const topUp = await callAs(t, session, "POST", `/admin/api/accounts/${account.username}/credits`, {
      json: { wallet: "sms", amount: 20 },
    });
    expect(topUp.status).toBe(200);
    expect(topUp.body.data.balance).toBe(25);
  });

  it("leaves API-key requests as they were: no CSRF token, and the key wins over a cookie", async () => {
    const t = gateway();
    const a = await buildAccount(t, { credits: { sms: 10 } });
    const b = await buildAccount(t, { credits: { sms: 40 } });
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${a.apiKey}` },
      json: SEND,
    });
    expect(sent.status).toBe(200);
    const sessionOfB = await signIn(t, b.username, b.password);
    const both = await call(t, "GET", "/api/v2/balance", {
      headers: { authorization: `Bearer ${a.apiKey}`, cookie: sessionOfB.cookie },
    });
    expect(both.body.data.balance).toBe(9);
  });

  it("keeps a session to its own account: another's message is not found, lists hold only its own", async () => {
    const t = gateway();
    const a = await buildAccount(t);
    const b = await buildAccount(t);
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${a.apiKey}` },
      json: SEND,
    });
    const id = sent.body.data.message_id;
    const sessionOfB = await signIn(t, b.username, b.password);
    const status = await callAs(t, sessionOfB, "GET", `/api/v2/sms/status/${id}`);
    expect(status.status).toBe(404);
    expect(status.body.error.code).toBe("not_found");
    const list = await callAs(t, sessionOfB, "GET", "/api/v2/messages");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    const ofA = await callAs(t, sessionOfB, "GET", `/api/v2/messages?id=${id}`);
    expect(ofA.body.data).toEqual([]);
    // Nor does a customer's session open the operator API.
    const admin = await callAs(t, sessionOfB, "GET", "/admin/api/accounts");
    expect(admin.status).toBe(403);
    expect(admin.body.error.code).toBe("operator_only");
  });

  it("keeps the pages' other calls to the session's account: groups, uploads, jobs, registrations, caller numbers", async () => {
    const t = gateway();
    const a = await buildAccount(t, { credits: { sms: 20 } });
    const b = await buildAccount(t);
    const asA = { headers: { authorization: `Bearer ${a.apiKey}` } };
    const group = (await call(t, "POST", "/api/v2/groups", { ...asA, json: { name: "A's customers" } })).body.data;
    await call(t, "POST", `/api/v2/groups/${group.id}/contacts`, { ...asA, json: ["9876543210"] });
    const job = await call(t, "POST", "/api/v2/sms/bulk", {
      ...asA,
      json: { group_id: group.id, sender_id: "SWBRD", message: "Sale", schedule_at: "2099-01-01 10:00:00" },
    });
    await call(t, "POST", "/api/v2/dlt/entities", { ...asA, json: { entity_id: "1101160000000000005" } });
    await call(t, "POST", "/api/v2/voice/caller-ids", { ...asA, json: { number: "+918047110000" } });

    const sessionOfB = await signIn(t, b.username, b.password);
    for (const [method, path, body] of [
      ["GET", `/api/v2/groups/${group.id}/contacts`],
      ["POST", `/api/v2/groups/${group.id}/contacts`, ["9876543211"]],
      ["DELETE", `/api/v2/groups/${group.id}`],
      ["GET", `/api/v2/bulk-jobs/${job.body.data.job_id}`],
      ["POST", `/api/v2/bulk-jobs/${job.body.data.job_id}/cancel`, {}],
      ["POST", "/api/v2/sms/bulk", { group_id: group.id, sender_id: "SWBRD", message: "Not mine" }],
    ] as const) {
      const answer = await callAs(t, sessionOfB, method, path, body === undefined ? {} : { json: body });
      expect({ path, status: answer.status, code: answer.body.error?.code }).toEqual({
        path,
        status: 404,
        code: "not_found",
      });
    }
    expect((await callAs(t, sessionOfB, "GET", "/api/v2/groups")).body.data).toEqual([]);
    expect((await callAs(t, sessionOfB, "GET", "/api/v2/bulk-jobs")).body.data).toEqual([]);
    expect((await callAs(t, sessionOfB, "GET", "/api/v2/dlt")).body.data).toEqual({
      entities: [],
      headers: [],
      urls: [],
      callbacks: [],
    });
    expect((await callAs(t, sessionOfB, "GET", "/api/v2/voice/caller-ids")).body.data).toEqual([]);
    // A's job and group are untouched.
    const still = await call(t, "GET", `/api/v2/bulk-jobs/${job.body.data.job_id}`, asA);
    expect(still.body.data.delivery_summary).toMatchObject({ total: 1, cancelled: 0 });
    for (const path of ["/admin/api/approvals", "/admin/api/system", `/admin/api/accounts/${a.username}`]) {
      expect((await callAs(t, sessionOfB, "GET", path)).body.error.code).toBe("operator_only");
    }
  });

  it("signs out: the cookie is cleared and the old token opens nothing", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const session = await signIn(t, account.username, account.password);
    const withoutToken = await callAs(t, session, "DELETE", "/console/session", { csrf: false });
    expect(withoutToken.status).toBe(403);
    const out = await callAs(t, session, "DELETE", "/console/session");
    expect(out.status).toBe(200);
    expect(out.headers.get("set-cookie")).toMatch(/^sb_session=; Max-Age=0; Path=\/; HttpOnly; SameSite=Strict$/);
    const after = await callAs(t, session, "GET", "/api/v2/balance");
    expect(after.status).toBe(401);
    expect(after.body.message).toMatch(/session has ended/);
    expect((await callAs(t, session, "GET", "/console/session")).status).toBe(401);
  });

  it("ends a session left idle, one past its end, and every session of an account whose password changed", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const account = await buildAccount(t);

    const idle = await signIn(t, account.username, account.password);
    clock.advance(29 * 60_000);
    expect((await callAs(t, idle, "GET", "/api/v2/balance")).status).toBe(200);
    clock.advance(29 * 60_000);
    expect((await callAs(t, idle, "GET", "/api/v2/balance")).status).toBe(200);
    // 30 minutes after its last use, and the 1/60 of that by which a use may be recorded late.
    clock.advance(30 * 60_000 + 30_000);
    expect((await callAs(t, idle, "GET", "/api/v2/balance")).status).toBe(401);

    // Used every 20 minutes, it still ends 2 hours after the sign-in.
    const busy = await signIn(t, account.username, account.password);
    for (let minutes = 20; minutes < 120; minutes += 20) {
      clock.advance(20 * 60_000);
      expect((await callAs(t, busy, "GET", "/api/v2/balance")).status).toBe(200);
    }
    clock.advance(20 * 60_000);
    expect((await callAs(t, busy, "GET", "/api/v2/balance")).status).toBe(401);

    const before = await signIn(t, account.username, account.password);
    const changed = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { password: "a-new-password-1" },
    });
    expect(changed.status).toBe(200);
    expect((await callAs(t, before, "GET", "/api/v2/balance")).status).toBe(401);
    const again = await signIn(t, account.username, "a-new-password-1");
    expect((await callAs(t, again, "GET", "/api/v2/balance")).status).toBe(200);
  });

  it("answers 401 to a request without key or cookie, as before", async () => {
    const t = gateway();
    const none = await call(t, "GET", "/console/session");
    expect(none.status).toBe(401);
    const v2 = await call(t, "GET", "/api/v2/balance");
    expect(v2.status).toBe(401);
    expect(v2.body.message).toMatch(/Missing API key/);
  });
});

describeEachEngine("console sessions' idle expiry, over two API processes", (engine) => {
  const clock = new ManualClock("2026-11-22T06:30:00Z");
  const IDLE_MS = 60_000;
  /** How late a use may be recorded: 1/60 of the idle period (at most a minute). */
  const RECORDED_WITHIN_MS = 1_000;
  const gateway = useTestGateway(engine, { clock, env: { SESSION_IDLE_MINUTES: "1", SESSION_MAX_HOURS: "2" } });
  // A second api process on the same database, with its own store and memory.
  let otherStore: Store;
  let other: Gateway;
  let b: TestGateway;

  beforeAll(async () => {
    const t = gateway();
    otherStore = await openStore(t.db.target, t.db.schema ? { pgSchema: t.db.schema } : {});
    other = await startGateway({
      config: testConfig(t.db, { SESSION_IDLE_MINUTES: "1", SESSION_MAX_HOURS: "2" }),
      roles: ["api"],
      clock,
      store: otherStore,
      logger: createLogger({ logLevel: "silent" }),
      openApiAtStart: false,
    });
    b = { ...t, gateway: other, url: other.url ?? "" };
  });

  afterAll(async () => {
    await other?.stop();
    await otherStore?.close();
  });

  it("keeps a session used within the idle period, wherever it was used, and ends it after", async () => {
    const a = gateway();
    const account = await buildAccount(a);
    const session = await signIn(a, account.username, account.password);
    clock.advance(50_000);
    expect((await callAs(b, session, "GET", "/api/v2/balance")).status).toBe(200);
    // 100 s after the sign-in, 50 s after its last use: alive (it ended here when uses were
    // recorded at most once a minute).
    clock.advance(50_000);
    expect((await callAs(a, session, "GET", "/api/v2/balance")).status).toBe(200);
    clock.advance(500);
    const current = await callAs(b, session, "GET", "/console/session");
    expect(current.status).toBe(200);
    expect(current.body.data.idle_expires_at).toBe(new Date(clock.now().getTime() + IDLE_MS).toISOString());
    // 59.9 s after that last use, which came so soon after the one before that it may not be
    // written: still alive, in the other process.
    clock.advance(IDLE_MS - 100);
    expect((await callAs(a, session, "GET", "/api/v2/balance")).status).toBe(200);
    clock.advance(IDLE_MS + RECORDED_WITHIN_MS);
    expect((await callAs(b, session, "GET", "/api/v2/balance")).status).toBe(401);
  });

  it("ends a session unused for the idle period, its recording allowance included, in either process", async () => {
    const a = gateway();
    const account = await buildAccount(a);
    const ended = await signIn(a, account.username, account.password);
    const alive = await signIn(a, account.username, account.password);
    clock.advance(IDLE_MS - 1);
    expect((await callAs(b, alive, "GET", "/api/v2/balance")).status).toBe(200);
    clock.advance(1 + RECORDED_WITHIN_MS);
    const refused = await callAs(b, ended, "GET", "/api/v2/balance");
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/session has ended/);
    expect((await callAs(a, ended, "GET", "/console/session")).status).toBe(401);
    expect((await callAs(a, alive, "GET", "/console/session")).status).toBe(200);
  });
});
