// GET /api/v2/account/status answers an account that is not active (blocked, inactive, or under
// a parent that is, decision 0148): 200 with `account_status` the status it acts with and
// `send_disabled_reason` saying why, where it answered 403 account_inactive, so the field could
// only ever read `active`. Every other v2 route (each one the server has) still refuses it with
// 403 account_inactive and changes nothing; a key's scopes still apply to the status call; once
// active again, the status reads `active`, reason null.
import { beforeAll, expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import {
  buildAccount,
  call,
  type JsonResponse,
  type TestAccount,
  type TestGateway,
  useTestGateway,
} from "../../helpers/gateway.js";
import { operatorCall } from "../../helpers/legacy.js";
import { subAccount } from "../../helpers/resellers.js";
import { keyOf } from "../../helpers/sms.js";

const STATUS_ROUTE = "GET /api/v2/account/status";

function accountStatus(t: TestGateway, key: string, how: "header" | "query" = "header"): Promise<JsonResponse> {
  return how === "header"
    ? call(t, "GET", "/api/v2/account/status", { headers: { authorization: `Bearer ${key}` } })
    : call(t, "GET", `/api/v2/account/status?api_key=${encodeURIComponent(key)}`);
}

/** What a refused call must not change: the account's wallets, messages and templates. */
async function footprint(t: TestGateway, accountId: number) {
  const db = t.db.store.db;
  const wallets = await db
    .selectFrom("wallets")
    .select(["wallet", "balance"])
    .where("account_id", "=", accountId)
    .orderBy("wallet")
    .execute();
  const count = async (table: "messages" | "templates" | "ledger_entries") =>
    Number(
      (
        await db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("account_id", "=", accountId)
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    wallets: wallets.map((w) => `${w.wallet}=${Number(w.balance)}`),
    messages: await count("messages"),
    templates: await count("templates"),
    ledger: await count("ledger_entries"),
  };
}

describeEachEngine("the v2 account status of an account that is not active", (engine) => {
  const gateway = useTestGateway(engine, { roles: ["api"] });
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  /** Every v2 route the server has, as `METHOD url`, its parameters filled in. */
  function v2Routes(t: TestGateway): string[] {
    const routes = [...t.gateway.app.keyedRoutes.keys()].filter((route) => route.split(" ")[1]!.startsWith("/api/v2/"));
    expect(routes).toContain(STATUS_ROUTE);
    expect(routes.length).toBeGreaterThan(80);
    return routes;
  }

  /** Every v2 route but the status call answers 403 account_inactive, saying `reason`; nothing changes. */
  async function expectEveryOtherRefused(t: TestGateway, account: TestAccount, reason: RegExp) {
    const before = await footprint(t, account.id);
    const answered: string[] = [];
    for (const route of v2Routes(t)) {
      if (route === STATUS_ROUTE) continue;
      const [method, url] = route.split(" ") as [string, string];
      const path = url.replace(/:[A-Za-z]+/g, "1");
      const json = method === "GET" || method === "DELETE" ? undefined : {};
      const response = await call(t, method, path, { headers: keyOf(account), ...(json ? { json } : {}) });
      const text = `${route}: ${response.status} ${response.text}`;
      if (response.status !== 403 || !response.text.includes("account_inactive") || !reason.test(response.text)) {
        answered.push(text);
      }
    }
    expect(answered, "v2 routes that did not refuse the account with 403 account_inactive").toEqual([]);
    expect(await footprint(t, account.id)).toEqual(before);
  }

  for (const status of ["blocked", "inactive"] as const) {
    it(`${status === "inactive" ? "an" : "a"} ${status} account reads its status (200, ${status}, why it cannot send); every other v2 call is 403`, async () => {
      const t = gateway();
      const account = await buildAccount(t, { credits: { sms: 250 } });
      const active = await accountStatus(t, account.apiKey);
      expect(active.status, active.text).toBe(200);
      expect(active.body.data).toMatchObject({ account_status: "active", send_disabled_reason: null });

      await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status });
      for (const how of ["header", "query"] as const) {
        const answer = await accountStatus(t, account.apiKey, how);
        expect(answer.status, answer.text).toBe(200);
        expect(answer.body).toEqual({
          status: "success",
          data: {
            credit_balance: 250,
            today: { total_sent: 0, delivered: 0, failed: 0, credits_used: 0 },
            pending: { templates: 0, sender_ids: 0 },
            account_status: status,
            send_disabled_reason: `The account is ${status}; it cannot send.`,
            server_time: expect.any(String),
          },
        });
      }
      await expectEveryOtherRefused(t, account, new RegExp(`The account is ${status}`));

      // Reactivated: active, no reason, and the other calls answer again.
      await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status: "active" });
      const again = await accountStatus(t, account.apiKey);
      expect(again.body.data).toMatchObject({ account_status: "active", send_disabled_reason: null });
      expect((await call(t, "GET", "/api/v2/balance", { headers: keyOf(account) })).status).toBe(200);
    });
  }

  it("a sub-account whose parent is blocked reads blocked, the reason not naming the parent; its own status stays active", async () => {
    const t = gateway();
    const parent = await buildAccount(t, { credits: { sms: 1000 } });
    const child = await subAccount(t, parent, {}, { sms: 100 });
    await operatorCall(t, operator, "PATCH", `/accounts/${parent.username}`, { status: "blocked" });

    const answer = await accountStatus(t, child.apiKey);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.data).toMatchObject({
      credit_balance: 100,
      account_status: "blocked",
      send_disabled_reason: "A parent account of this account is blocked; this account cannot send.",
    });
    expect(answer.text).not.toContain(parent.username);
    const own = await t.db.store.db
      .selectFrom("accounts")
      .select("status")
      .where("id", "=", child.id)
      .executeTakeFirstOrThrow();
    expect(own.status).toBe("active");
    // The parent reads its own status too.
    expect((await accountStatus(t, parent.apiKey)).body.data.account_status).toBe("blocked");
    await expectEveryOtherRefused(t, child, /A parent account of this account is blocked/);

    await operatorCall(t, operator, "PATCH", `/accounts/${parent.username}`, { status: "active" });
    expect((await accountStatus(t, child.apiKey)).body.data).toMatchObject({
      account_status: "active",
      send_disabled_reason: null,
    });
  });

  it("still refuses a wrong key (401), a key without the read scope (403 insufficient_scope)", async () => {
    const t = gateway();
    const account = await buildAccount(t);
    const made = await call(t, "POST", "/api/v2/keys", {
      headers: keyOf(account),
      json: { name: "sender only", scopes: ["send"] },
    });
    expect(made.status, made.text).toBe(201);
    const sendOnly: string = made.body.data.api_key;
    await operatorCall(t, operator, "PATCH", `/accounts/${account.username}`, { status: "blocked" });

    const wrong = await accountStatus(t, `${account.apiKey}x`);
    expect(wrong.status, wrong.text).toBe(401);
    expect(wrong.body.error.code).toBe("unauthorized");
    const missing = await call(t, "GET", "/api/v2/account/status");
    expect(missing.status, missing.text).toBe(401);
    const scoped = await accountStatus(t, sendOnly);
    expect(scoped.status, scoped.text).toBe(403);
    expect(scoped.body.error.code).toBe("insufficient_scope");
    // The status call writes nothing: its answer is the same twice, and the account stays blocked.
    const first = await accountStatus(t, account.apiKey);
    const second = await accountStatus(t, account.apiKey);
    expect(second.body.data.account_status).toBe("blocked");
    expect({ ...second.body.data, server_time: 0 }).toEqual({ ...first.body.data, server_time: 0 });
  });
});
