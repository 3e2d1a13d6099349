// The role × route matrix (issue 42, item 1): every v2 and operator-API route, called by a console
// session of every role, is refused with 403 `insufficient_role` exactly when the role lacks what
// the route needs, and the table's main lines are held against the words.
import { afterAll, beforeAll, expect, it } from "vitest";
import { ROLE_CAPABILITIES, type UserRole } from "../../src/domain/auth/index.js";
import { addConsoleUser, addStaffUser, callAs, type SignedIn, signIn } from "../helpers/console.js";
import { describeEnginesTogether } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";

const ACCOUNT_ROLES = ["admin", "developer", "support", "billing"] as const;
const STAFF = ["operator_support", "operator_finance"] as const;

describeEnginesTogether("role × route matrix", (engine) => {
  let t: TestGateway;
  const sessions = new Map<string, { role: UserRole; session: SignedIn; operator: boolean }>();

  async function user(owner: TestAccount, login: string, role: UserRole, operator: boolean) {
    const session = await (operator ? addStaffUser : addConsoleUser)(t, owner, login, role);
    sessions.set(`${operator ? "op" : "acct"}:${role}`, { role, session, operator });
  }

  beforeAll(async () => {
    t = await startTestGateway(engine);
    const account = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    sessions.set("acct:owner", {
      role: "owner",
      session: await signIn(t, account.username, account.password),
      operator: false,
    });
    sessions.set("op:operator_admin", {
      role: "operator_admin",
      session: await signIn(t, operator.username, operator.password),
      operator: true,
    });
    for (const role of ACCOUNT_ROLES) await user(account, `u-${role}`, role, false);
    for (const role of STAFF) await user(operator, `s-${role}`, role, true);
  }, 120_000);
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  /** Whether `role` got past the role check of `method path` (anything but 403 insufficient_role). */
  async function passes(key: string, method: string, path: string): Promise<boolean> {
    const { session } = sessions.get(key)!;
    const response = await callAs(t, session, method, path);
    return !(response.status === 403 && response.body?.error?.code === "insufficient_role");
  }

  it("answers every route as the table says, for every role", async () => {
    const routes = t.gateway.app.routeAccess;
    expect(routes.length).toBeGreaterThan(150);
    const mismatches: string[] = [];
    let calls = 0;
    for (const route of routes) {
      if (route.keyOnly) continue;
      const admin = route.url.startsWith("/admin/api");
      const path = route.url.replace(/:\w+/g, "zz0");
      // Operator routes: the operator's roles (a customer's users are refused as any customer).
      const keys = [...sessions.keys()].filter((key) => !admin || key.startsWith("op:"));
      await Promise.all(
        keys.map(async (key) => {
          const { role } = sessions.get(key)!;
          const expected = route.access.some((capability) => ROLE_CAPABILITIES[role].includes(capability));
          const got = await passes(key, route.method, path);
          calls += 1;
          if (got !== expected)
            mismatches.push(`${role} ${route.method} ${route.url}: expected ${expected}, got ${got}`);
        }),
      );
    }
    expect(mismatches).toEqual([]);
    expect(calls).toBeGreaterThan(800);
  }, 300_000);

  it("holds the issue's words: support reads but cannot send or touch money or keys; billing has money", async () => {
    const cases: [string, string, string, boolean][] = [
      ["acct:support", "GET", "/api/v2/messages", true],
      ["acct:support", "GET", "/api/v2/refusals", true],
      ["acct:support", "GET", "/api/v2/analytics/delivery", true],
      ["acct:support", "POST", "/api/v2/sms/send", false],
      ["acct:support", "GET", "/api/v2/credits/history", false],
      ["acct:support", "POST", "/api/v2/keys", false],
      ["acct:support", "GET", "/api/v2/users", false],
      ["acct:billing", "GET", "/api/v2/credits/history", true],
      ["acct:billing", "GET", "/api/v2/credits/export", true],
      ["acct:billing", "GET", "/api/v2/messages/export", true],
      ["acct:billing", "POST", "/api/v2/sms/send", false],
      ["acct:billing", "PUT", "/api/v2/webhooks", false],
      ["acct:developer", "POST", "/api/v2/keys", true],
      ["acct:developer", "PUT", "/api/v2/webhooks", true],
      ["acct:developer", "POST", "/api/v2/sms/send", true],
      ["acct:developer", "GET", "/api/v2/users", false],
      ["acct:developer", "GET", "/api/v2/credits/history", false],
      ["acct:admin", "POST", "/api/v2/users", true],
      ["acct:admin", "POST", "/api/v2/keys", true],
      ["op:operator_support", "GET", "/admin/api/accounts", true],
      ["op:operator_support", "POST", "/admin/api/accounts", false],
      ["op:operator_support", "GET", "/admin/api/staff", true],
      ["op:operator_support", "POST", "/admin/api/staff", false],
      ["op:operator_finance", "POST", "/admin/api/accounts/zz0/credits", true],
      ["op:operator_finance", "PUT", "/admin/api/price-cards/zz0", true],
      ["op:operator_finance", "PATCH", "/admin/api/accounts/zz0", false],
      ["op:operator_finance", "POST", "/admin/api/staff", false],
      // Two-factor: every login reads the policy; the policy and a login's reset are an owner's or admin's.
      ["acct:support", "GET", "/api/v2/two-factor/policy", true],
      ["acct:support", "PUT", "/api/v2/two-factor/policy", false],
      ["acct:developer", "DELETE", "/api/v2/two-factor/logins/zz0", false],
      ["acct:admin", "PUT", "/api/v2/two-factor/policy", true],
    ];
    for (const [key, method, path, allowed] of cases) {
      expect(await passes(key, method, path), `${key} ${method} ${path}`).toBe(allowed);
    }
  });

  it("an API key acts as the owner login", async () => {
    const account = await buildAccount(t);
    const headers = { authorization: `Bearer ${account.apiKey}` };
    expect((await call(t, "GET", "/api/v2/users", { headers })).status).toBe(200);
  });
});
