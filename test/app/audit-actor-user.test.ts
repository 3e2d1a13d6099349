// The audit log filtered by the login that acted (audit F8): `actor_user` on GET /admin/api/audit,
// GET /api/v2/audit and both exports, on both engines through the real server. A staff member's
// and a team user's changes are told apart from their account's other changes (same `actor`),
// in any case; an API key's (no login) are never matched; a bad value is a 400 naming it.
import { beforeAll, expect, it } from "vitest";
import { addConsoleUser, addStaffUser, callAs, signIn, userPassword } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("audit log by actor_user", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let operator: TestAccount;
  let shop: TestAccount;
  let opKey: Record<string, string>;
  let shopKey: Record<string, string>;

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { credits: { sms: 5 } });
    opKey = { authorization: `Bearer ${operator.apiKey}` };
    shopKey = { authorization: `Bearer ${shop.apiKey}` };
    // A staff member of the operator tops the shop up; the operator's key does too.
    const olga = await addStaffUser(t, operator, "olga", "operator_finance");
    for (const amount of [5, 7]) {
      const paid = await callAs(t, olga, "POST", `/admin/api/accounts/${shop.username}/credits`, {
        json: { wallet: "sms", amount },
      });
      expect(paid.status, paid.text).toBe(200);
    }
    const byKey = await call(t, "POST", `/admin/api/accounts/${shop.username}/credits`, {
      headers: opKey,
      json: { wallet: "sms", amount: 3 },
    });
    expect(byKey.status, byKey.text).toBe(200);
    // A team user of the shop changes its password; the owner login makes a key in the console.
    const pat = await addConsoleUser(t, shop, "pat", "support");
    const changed = await callAs(t, pat, "PUT", "/api/v2/password", {
      json: { current_password: userPassword("pat"), new_password: "pw-pat-password-2" },
    });
    expect(changed.status, changed.text).toBe(200);
    const owner = await signIn(t, shop.username, shop.password);
    expect((await callAs(t, owner, "POST", "/api/v2/keys", { json: { name: "ci" } })).status).toBe(201);
  });

  const actions = (rows: Array<{ action: string; actor_user: string | null }>) =>
    rows.map((row) => `${row.action}/${row.actor_user}`);

  it("the operator's list and export find a staff member's changes alone, in any case", async () => {
    for (const login of ["olga", "OLGA"]) {
      const page = await call(t, "GET", `/admin/api/audit?actor_user=${login}`, { headers: opKey });
      expect(page.status, page.text).toBe(200);
      expect(actions(page.body.data)).toEqual(["credits.topup/olga", "credits.topup/olga"]);
      expect(page.body.data.every((row: { actor: string }) => row.actor === operator.username)).toBe(true);
    }
    // With the other filters: one account's, an action, a cursor page.
    const first = await call(t, "GET", `/admin/api/audit?actor_user=olga&account=${shop.username}&limit=1`, {
      headers: opKey,
    });
    expect(first.body.data).toHaveLength(1);
    const next = await call(
      t,
      "GET",
      `/admin/api/audit?actor_user=olga&account=${shop.username}&limit=1&cursor=${first.body.meta.next_cursor}`,
      { headers: opKey },
    );
    expect(next.body.data).toHaveLength(1);
    expect(next.body.data[0].seq).toBeLessThan(first.body.data[0].seq);
    const csv = await call(t, "GET", "/admin/api/audit/export?format=csv&actor_user=olga", { headers: opKey });
    expect(csv.status).toBe(200);
    expect(csv.text.trim().split("\n")).toHaveLength(3);
    const pat = await call(t, "GET", "/admin/api/audit/export?format=jsonl&actor_user=Pat", { headers: opKey });
    expect(
      pat.text
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).action),
    ).toEqual(["password.change"]);
    const nobody = await call(t, "GET", "/admin/api/audit?actor_user=ivy", { headers: opKey });
    expect(nobody.body.data).toEqual([]);
  });

  it("an account's list and export find its team user's and its owner login's changes", async () => {
    const pat = await call(t, "GET", "/api/v2/audit?actor_user=pat", { headers: shopKey });
    expect(pat.status, pat.text).toBe(200);
    expect(actions(pat.body.data)).toEqual(["password.change/pat"]);
    const own = await call(t, "GET", `/api/v2/audit?actor_user=${shop.username.toUpperCase()}`, { headers: shopKey });
    expect(actions(own.body.data)).toEqual([`key.create/${shop.username}`]);
    // The operator's staff member acted on this account: its own list shows the entries too.
    const olga = await call(t, "GET", "/api/v2/audit/export?format=jsonl&actor_user=olga", { headers: shopKey });
    expect(olga.status).toBe(200);
    expect(olga.text.trim().split("\n")).toHaveLength(2);
  });

  it("names no other customer's login on an account's list: a transfer's sender is named, not who of its team sent it", async () => {
    const dealer = await buildAccount(t, { credits: { sms: 20 } });
    const dealerKey = { authorization: `Bearer ${dealer.apiKey}` };
    const session = await addConsoleUser(t, dealer, "billy", "billing");
    const moved = await callAs(t, session, "POST", "/api/v2/credits/transfer", {
      json: { recipient_username: shop.username, amount: 2 },
    });
    expect(moved.status, moved.text).toBe(200);

    const received = await call(t, "GET", "/api/v2/audit?action=credits", { headers: shopKey });
    const entry = received.body.data.find((row: { actor: string }) => row.actor === dealer.username);
    expect(entry).toMatchObject({ actor_user: null, credential: null, address: null });
    // Olga is the operator's staff: the shop still reads her login.
    expect(actions(received.body.data)).toContain("credits.topup/olga");
    const exported = await call(t, "GET", "/api/v2/audit/export?format=jsonl", { headers: shopKey });
    expect(exported.text).not.toContain("billy");
    // Nor can the shop find it by guessing the login.
    const guessed = await call(t, "GET", "/api/v2/audit?actor_user=billy", { headers: shopKey });
    expect(guessed.body.data).toEqual([]);
    const guessedExport = await call(t, "GET", "/api/v2/audit/export?format=jsonl&actor_user=billy", {
      headers: shopKey,
    });
    expect(guessedExport.text.trim()).toBe("");
    // The sender and the operator read who did it.
    const sent = await call(t, "GET", "/api/v2/audit?actor_user=billy", { headers: dealerKey });
    expect(sent.body.data.map((row: { action: string }) => row.action)).toContain("credits.transfer_in");
    const operatorView = await call(t, "GET", `/admin/api/audit?account=${shop.username}&actor_user=billy`, {
      headers: opKey,
    });
    expect(operatorView.body.data.length).toBeGreaterThan(0);
  });

  it("answers a bad actor_user 400 naming it, in each family's words", async () => {
    const long = await call(t, "GET", `/admin/api/audit?actor_user=${"a".repeat(65)}`, { headers: opKey });
    expect(long.status).toBe(400);
    const nul = await call(t, "GET", "/api/v2/audit?actor_user=a%00b", { headers: shopKey });
    expect(nul.status).toBe(400);
    expect(nul.body.error).toMatchObject({ code: "invalid_request", field: "actor_user" });
  });
});
