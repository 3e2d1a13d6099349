// The audit log through the real server, on both engines: each kind of change (a top-up, an
// account's status, a key made by the account, its webhook URLs, a route, a template and its
// approval) writes one entry with who, from where, what before and after; a change that fails
// writes none; the operator's list filters and pages with a cursor, the account's own list shows
// only its entries (the operator's without key, session or address); the exports and the chain's
// check; an account key on the operator's list is refused.
import { beforeAll, expect, it } from "vitest";
import { addDltEntity } from "../../src/domain/accounts/index.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

async function entries(t: TestGateway, who: TestAccount, path: string) {
  const answer = await call(t, "GET", path, { headers: bearer(who) });
  expect(answer.status, answer.text).toBe(200);
  return answer.body as { data: Record<string, unknown>[]; meta: { limit: number; next_cursor: string | null } };
}

describeEachEngine("the audit log", (engine) => {
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  let operator: TestAccount;
  let shop: TestAccount;
  let other: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
    shop = await buildAccount(gateway(), { credits: { sms: 5 } });
    other = await buildAccount(gateway());
  });

  it("records each kind of change with who, from where, before and after", async () => {
    const t = gateway();
    const topup = await call(t, "POST", `/admin/api/accounts/${shop.username}/credits`, {
      headers: bearer(operator),
      json: { wallet: "sms", amount: 10, note: "invoice 7" },
    });
    expect(topup.status, topup.text).toBe(200);
    const status = await call(t, "PATCH", `/admin/api/accounts/${shop.username}`, {
      headers: bearer(operator),
      json: { status: "inactive" },
    });
    expect(status.status, status.text).toBe(200);
    await call(t, "PATCH", `/admin/api/accounts/${shop.username}`, {
      headers: bearer(operator),
      json: { status: "active" },
    });
    const smpp = await call(t, "PATCH", `/admin/api/accounts/${shop.username}`, {
      headers: bearer(operator),
      json: { smpp_password: "smpp-pw1", smpp_allowed_ips: ["10.0.0.0/8"] },
    });
    expect(smpp.status, smpp.text).toBe(200);
    const key = await call(t, "POST", "/api/v2/keys", { headers: bearer(shop), json: { name: "ci" } });
    expect(key.status, key.text).toBe(201);
    const hooks = await call(t, "PUT", "/api/v2/webhooks", {
      headers: bearer(shop),
      json: { delivery_report: "http://127.0.0.1:9/dlr" },
    });
    expect(hooks.status, hooks.text).toBe(200);
    const route = await call(t, "PUT", "/admin/api/routes", {
      headers: bearer(operator),
      json: { route: "T", prefix: "9199", connectors: [{ name: "simulator" }] },
    });
    expect(route.status, route.text).toBe(201);

    const template = await call(t, "POST", `/admin/api/accounts/${shop.username}/templates`, {
      headers: bearer(operator),
      json: { name: "otp", content: "Your code is {#var#}" },
    });
    expect(template.status, template.text).toBe(201);
    const templateId = (template.body as { data: { id: number } }).data.id;
    const approved = await call(t, "POST", `/admin/api/templates/${templateId}/approve`, { headers: bearer(operator) });
    expect(approved.status, approved.text).toBe(200);

    const log = (await entries(t, operator, "/admin/api/audit?limit=20")).data;
    const byAction = (action: string) => log.filter((entry) => entry.action === action);
    expect(byAction("credits.topup")[0]).toMatchObject({
      actor: operator.username,
      channel: "operator_api",
      credential: expect.stringMatching(/^key:\d+$/),
      address: expect.any(String),
      account: shop.username,
      target: `sms wallet of ${shop.username}`,
      before: { balance: 5 },
      after: { balance: 15, amount: 10, note: "invoice 7" },
    });
    const [reactivated, deactivated] = byAction("account.status");
    expect(deactivated).toMatchObject({ before: { status: "active" }, after: { status: "inactive" } });
    expect(reactivated).toMatchObject({ before: { status: "inactive" }, after: { status: "active" } });
    expect(byAction("key.create")[0]).toMatchObject({
      actor: shop.username,
      channel: "api",
      account: shop.username,
      target: `key ${(key.body as { data: { id: number } }).data.id}`,
      after: { name: "ci" },
    });
    expect(JSON.stringify(byAction("key.create")[0])).not.toContain(
      (key.body as { data: { api_key: string } }).data.api_key,
    );
    expect(byAction("webhooks.set")[0]).toMatchObject({
      before: {},
      after: { delivery_report: "http://127.0.0.1:9/dlr" },
    });
    expect(byAction("route.save")[0]).toMatchObject({ account: null, target: "route T/9199" });
    expect(byAction("account.smpp")[0]).toMatchObject({
      before: { enabled: false },
      after: { enabled: true, allowed_ips: ["10.0.0.0/8"], password_changed: true },
    });
    expect(JSON.stringify(byAction("account.smpp")[0])).not.toContain("smpp-pw1");
    expect(byAction("template.add")[0]).toMatchObject({
      target: `template ${templateId}`,
      after: { status: "pending" },
    });
    expect(byAction("template.approve")[0]).toMatchObject({
      target: `template ${templateId}`,
      account: shop.username,
      before: { status: "pending" },
      after: { status: "approved", content: "Your code is {#var#}" },
    });
  });

  it("records in account.update only the settings that changed, before and after (audit row 7)", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const changed = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: bearer(operator),
      json: { flood_limit: 5000, time_zone: "Asia/Dubai", password: "new-account-password-1" },
    });
    expect(changed.status, changed.text).toBe(200);
    const again = await call(t, "PATCH", `/admin/api/accounts/${account.username}`, {
      headers: bearer(operator),
      json: { flood_limit: 0, time_zone: "Asia/Dubai" },
    });
    expect(again.status, again.text).toBe(200);
    const log = (await entries(t, operator, `/admin/api/audit?account=${account.username}&action=account.update`)).data;
    expect(log.map((entry) => [entry.before, entry.after])).toEqual([
      [{ flood_limit: 5000 }, { flood_limit: 0 }],
      [
        { time_zone: "Asia/Kolkata", flood_limit: 0 },
        { time_zone: "Asia/Dubai", flood_limit: 5000, password_changed: true },
      ],
    ]);
    expect(JSON.stringify(log)).not.toContain("new-account-password-1");
  });

  it("records a price card put on an account once, and a sub-account's markup under one key either way", async () => {
    const t = gateway();
    const seller = await buildAccount(t);
    const card = await call(t, "PUT", "/admin/api/price-cards/audited", {
      headers: bearer(operator),
      json: { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.25 }] },
    });
    expect(card.status, card.text).toBe(200);
    const priced = await call(t, "PATCH", `/admin/api/accounts/${seller.username}`, {
      headers: bearer(operator),
      json: { price_card: "audited" },
    });
    expect(priced.status, priced.text).toBe(200);
    // A change of a setting to what it was writes nothing either.
    const same = await call(t, "PATCH", `/admin/api/accounts/${seller.username}`, {
      headers: bearer(operator),
      json: { status: "active" },
    });
    expect(same.status, same.text).toBe(200);
    const log = (await entries(t, operator, `/admin/api/audit?account=${seller.username}&limit=10`)).data;
    expect(log.map((entry) => entry.action)).toEqual(["account.price_card", "account.create"]);
    expect(log[0]).toMatchObject({ before: { price_card: "default" }, after: { price_card: "audited" } });

    const byOperator = await call(t, "POST", "/admin/api/accounts", {
      headers: bearer(operator),
      json: { username: `${seller.username}_op`, password: "longenough", parent: seller.username, markup_percent: 10 },
    });
    expect(byOperator.status, byOperator.text).toBe(201);
    const byParent = await call(t, "POST", "/api/v2/subaccounts", {
      headers: bearer(seller),
      json: { username: `${seller.username}_v2`, password: "longenough", markup_percent: 10 },
    });
    expect(byParent.status, byParent.text).toBe(201);
    for (const sub of [`${seller.username}_op`, `${seller.username}_v2`]) {
      const [created] = (await entries(t, operator, `/admin/api/audit?account=${sub}&limit=10`)).data;
      expect(created, sub).toMatchObject({
        action: "account.create",
        after: { parent: seller.username, markup_percent: 10 },
      });
      expect(created?.after, sub).not.toHaveProperty("markupPercent");
    }

    // Every field of an onboarding is recorded under the name the operator API takes it by.
    const onboarded = await call(t, "POST", "/admin/api/accounts", {
      headers: bearer(operator),
      json: {
        username: `${seller.username}_full`,
        password: "longenough",
        time_zone: "Asia/Kolkata",
        flood_limit: 5,
        rate_limit: 120,
        sender_ids: ["FULLIN"],
        dlt_entity_ids: ["1101160000000000091"],
        templates: [{ content: "Your code is {#var#}", dlt_template_id: "1107160000000000091" }],
      },
    });
    expect(onboarded.status, onboarded.text).toBe(201);
    const [full] = (await entries(t, operator, `/admin/api/audit?account=${seller.username}_full&limit=1`)).data;
    expect(full?.after).toMatchObject({
      username: `${seller.username}_full`,
      time_zone: "Asia/Kolkata",
      flood_limit: 5,
      rate_limit: 120,
      sender_ids: ["FULLIN"],
      dlt_entity_ids: ["1101160000000000091"],
      templates: [{ content: "Your code is {#var#}", dlt_template_id: "1107160000000000091" }],
    });
    expect(Object.keys(full?.after ?? {}).filter((key) => /[A-Z]/.test(key))).toEqual([]);
    expect(full?.after).not.toHaveProperty("password");
  });

  it("records a telemarketer chain declared, replaced and cleared, and login locks cleared", async () => {
    const t = gateway();
    const entity = "1101160000000000081";
    const seller = await buildAccount(t);
    await addDltEntity(t.db.store.db, t.clock, seller.id, entity);
    const chains = `/admin/api/accounts/${seller.username}/dlt/chains`;
    for (const chain of [["1702000000000000011"], ["1702000000000000012", "1702000000000000013"]]) {
      const declared = await call(t, "PUT", chains, { headers: bearer(operator), json: { entity_id: entity, chain } });
      expect(declared.status, declared.text).toBe(200);
    }
    const cleared = await call(t, "DELETE", chains, { headers: bearer(operator), json: { entity_id: entity } });
    expect(cleared.status, cleared.text).toBe(200);
    // A clear of no chain changes nothing and records nothing.
    const again = await call(t, "DELETE", chains, { headers: bearer(operator), json: { entity_id: entity } });
    expect(again.status).toBe(404);
    const lockedUntil = t.clock.now().getTime() + 600_000;
    await t.db.store.db
      .insertInto("login_failures")
      .values({ account_id: seller.id, address: "192.0.2.7", failures: 0, locked_until: lockedUntil, updated_at: 1 })
      .execute();
    const unlocked = await call(t, "DELETE", `/admin/api/accounts/${seller.username}/login-locks?address=192.0.2.7`, {
      headers: bearer(operator),
    });
    expect(unlocked.status, unlocked.text).toBe(200);

    const log = (await entries(t, operator, `/admin/api/audit?account=${seller.username}&limit=10`)).data;
    const target = `DLT entity ${entity} of ${seller.username}`;
    expect(log.slice(0, 4).map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      [
        "login_locks.clear",
        {
          locks: [
            {
              login: seller.username,
              scope: "address",
              address: "192.0.2.7",
              locked_until: new Date(lockedUntil).toISOString(),
            },
          ],
        },
        { cleared: 1 },
      ],
      ["dlt_chain.clear", { tm_chain: ["1702000000000000012", "1702000000000000013"] }, null],
      [
        "dlt_chain.set",
        { tm_chain: ["1702000000000000011"] },
        { tm_chain: ["1702000000000000012", "1702000000000000013"] },
      ],
      ["dlt_chain.set", null, { tm_chain: ["1702000000000000011"] }],
    ]);
    expect(log[0]).toMatchObject({
      actor: operator.username,
      target: `login lock of ${seller.username} from 192.0.2.7`,
    });
    expect(log[1]).toMatchObject({ actor: operator.username, channel: "operator_api", target });
  });

  it("records inbound numbers, keywords requested and decided, and suppressions", async () => {
    const t = gateway();
    const desk = await buildAccount(t);
    const op = (method: string, path: string, json?: unknown) =>
      call(t, method, `/admin/api${path}`, { headers: bearer(operator), ...(json === undefined ? {} : { json }) });
    expect((await op("POST", `/accounts/${desk.username}/inbound-numbers`, { number: "+919000012345" })).status).toBe(
      201,
    );
    // Assigned again: nothing changes, nothing is recorded.
    expect((await op("POST", `/accounts/${desk.username}/inbound-numbers`, { number: "+919000012345" })).status).toBe(
      200,
    );
    expect((await op("DELETE", `/accounts/${desk.username}/inbound-numbers/919000012345`)).status).toBe(200);
    const keyword = await call(t, "POST", "/api/v2/keywords", {
      headers: bearer(desk),
      json: { key: "OFFER", response_type: "none" },
    });
    expect(keyword.status, keyword.text).toBe(201);
    const keywordId = (keyword.body as { data: { id: number } }).data.id;
    expect((await op("POST", `/keywords/${keywordId}/approve`)).status).toBe(200);
    const numbers = ["9876500011", "9876500012"];
    expect((await op("POST", `/accounts/${desk.username}/suppressions`, { numbers, reason: "complaint" })).status).toBe(
      200,
    );
    expect((await op("DELETE", `/accounts/${desk.username}/suppressions`, { numbers: [numbers[0]] })).status).toBe(200);

    const log = (await entries(t, operator, `/admin/api/audit?account=${desk.username}&limit=10`)).data;
    expect(log.map((entry) => [entry.action, entry.actor])).toEqual([
      ["suppressions.remove", operator.username],
      ["suppressions.add", operator.username],
      ["keyword.approve", operator.username],
      ["keyword.request", desk.username],
      ["inbound_number.remove", operator.username],
      ["inbound_number.assign", operator.username],
      ["account.create", "cli"],
    ]);
    expect(log[1]).toMatchObject({
      after: { added: 2, reason: "complaint", numbers: ["9876500011", "9876500012"] },
    });
    expect(log[2]).toMatchObject({ before: { status: "pending" }, after: { status: "approved", keyword: "OFFER" } });
  });

  it("writes no entry for a change that fails", async () => {
    const t = gateway();
    const before = (await entries(t, operator, "/admin/api/audit?limit=1")).data[0]!.seq;
    const refused = await call(t, "POST", `/admin/api/accounts/${shop.username}/credits/adjust`, {
      headers: bearer(operator),
      json: { wallet: "sms", amount: -1_000_000, reason: "too much" },
    });
    expect(refused.status).toBe(402);
    const unknown = await call(t, "POST", "/admin/api/templates/999999/approve", { headers: bearer(operator) });
    expect(unknown.status).toBe(404);
    expect((await entries(t, operator, "/admin/api/audit?limit=1")).data[0]!.seq).toBe(before);
  });

  it("filters, pages with a cursor, and shows an account its own entries", async () => {
    const t = gateway();
    const topups = await entries(
      t,
      operator,
      `/admin/api/audit?action=credits&actor=${operator.username.toUpperCase()}`,
    );
    expect(topups.data.map((entry) => entry.action)).toEqual(["credits.topup"]);
    const first = await entries(t, operator, `/admin/api/audit?account=${shop.username}&limit=2`);
    expect(first.data).toHaveLength(2);
    const second = await entries(
      t,
      operator,
      `/admin/api/audit?account=${shop.username}&limit=2&cursor=${first.meta.next_cursor}`,
    );
    expect(Number(second.data[0]!.seq)).toBeLessThan(Number(first.data[1]!.seq));
    const byTarget = await entries(t, operator, "/admin/api/audit?target=t/9199");
    expect(byTarget.data.map((entry) => entry.action)).toEqual(["route.save"]);

    const own = await entries(t, shop, "/api/v2/audit?limit=100");
    expect(new Set(own.data.map((entry) => entry.account))).toEqual(new Set([shop.username]));
    const operatorsEntry = own.data.find((entry) => entry.action === "credits.topup")!;
    expect(operatorsEntry).toMatchObject({ actor: operator.username, credential: null, address: null });
    expect(own.data.find((entry) => entry.action === "key.create")!.credential).toMatch(/^key:/);
    // Another account sees its own creation only.
    const others = (await entries(t, other, "/api/v2/audit")).data;
    expect(others.map((entry) => [entry.action, entry.account])).toEqual([["account.create", other.username]]);

    const refused = await call(t, "GET", "/admin/api/audit", { headers: bearer(shop) });
    expect(refused.status).toBe(403);
    const bad = await call(t, "GET", "/api/v2/audit?action=DROP%20TABLE", { headers: bearer(shop) });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain("action");
    const badCursor = await call(t, "GET", "/admin/api/audit?cursor=zzz", { headers: bearer(operator) });
    expect(badCursor.status).toBe(400);
  });

  it("exports as CSV and JSON Lines, and verifies the chain", async () => {
    const t = gateway();
    const csv = await call(t, "GET", `/admin/api/audit/export?account=${shop.username}`, { headers: bearer(operator) });
    expect(csv.status).toBe(200);
    const lines = csv.text.trim().split("\n");
    expect(lines[0]).toBe(
      "seq,at,actor,actor_user,channel,credential,address,account,action,target,before,after,hash,prev_hash,hashed",
    );
    expect(lines.length).toBeGreaterThan(5);
    const jsonl = await call(t, "GET", "/api/v2/audit/export?format=jsonl&action=key", { headers: bearer(shop) });
    expect(jsonl.status).toBe(200);
    const rows = jsonl.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows.map((row) => row.action)).toEqual(["key.create"]);

    const verified = await call(t, "GET", "/admin/api/audit/verify", { headers: bearer(operator) });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ data: { broken: null, entries: expect.any(Number) } });
  });
});
