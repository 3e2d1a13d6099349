// A view never lifts its viewer's role (security audit, medium): a view stands for the account
// it shows as that account's owner login, read-only, so a view of an operator account would read
// as operator_admin and open to operator_support and operator_finance the v2 reads their role
// refuses (keys, webhooks, users: "needs develop"). A view is of a customer account: the
// operator's own account (its staff are signed in to it already) and any other operator account
// are refused, and a view of one opened before this rule ends at its next use. Views of customer
// accounts read as documented. Through the real server on both engines.
import { createHash } from "node:crypto";
import { expect, it } from "vitest";
import { addStaffUser, callAs, openView, signIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("a view of an operator account", (engine) => {
  const gateway = useTestGateway(engine);

  const ROLE_GATED = ["/api/v2/keys", "/api/v2/webhooks", "/api/v2/users"];

  it("is refused to every staff role and the operator's own login; keys, webhooks and users stay 403", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const other = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t);
    const owner = await signIn(t, operator.username, operator.password);
    for (const [login, role] of [
      ["sam", "operator_support"],
      ["fin", "operator_finance"],
    ] as const) {
      const signedIn = await addStaffUser(t, operator, login, role);
      for (const target of [operator.username, other.username]) {
        const opened = await callAs(t, signedIn, "POST", "/console/session/view", { json: { username: target } });
        expect(opened.status, `${role} viewing ${target}: ${opened.text}`).toBe(403);
        expect(opened.body.error.code).toBe("forbidden");
        expect(opened.body.message).toContain("operator account");
        expect(opened.headers.get("set-cookie")).toBeNull();
      }
      // Still the staff member's own session, with its own role.
      const current = await callAs(t, signedIn, "GET", "/console/session");
      expect(current.body.data).toMatchObject({ username: operator.username, login, user_role: role });
      expect(current.body.data.read_only).toBeUndefined();
      for (const path of ROLE_GATED) {
        const read = await callAs(t, signedIn, "GET", path);
        expect(read.status, `${role} ${path}: ${read.text}`).toBe(403);
        expect(read.body.error.code).toBe("insufficient_role");
      }

      // A customer's account: viewed as documented, read-only, as the account reads.
      const viewing = await openView(t, signedIn, acme.username);
      expect(viewing.opened.body.data).toMatchObject({
        username: acme.username,
        role: "customer",
        viewer: login,
        read_only: true,
      });
      expect((await callAs(t, viewing, "GET", "/api/v2/keys")).status).toBe(200);
      const write = await callAs(t, viewing, "POST", "/api/v2/keys", { json: { name: "sneaky" } });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe("read_only_view");
      expect((await callAs(t, viewing, "DELETE", "/console/session/view")).body.data).toEqual({ ended: true });
    }
    // The operator's own login is signed in to its account already; another operator's is no customer.
    for (const target of [operator.username, other.username]) {
      const opened = await callAs(t, owner, "POST", "/console/session/view", { json: { username: target } });
      expect(opened.status, opened.text).toBe(403);
      expect(opened.body.error.code).toBe("forbidden");
    }
    // No view was recorded of an operator account.
    const views = await call(t, "GET", "/admin/api/account-views", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect((views.body.data as { account: string }[]).map((v) => v.account)).toEqual([acme.username, acme.username]);
  });

  it("ends a view of an operator account opened before the rule at its next use", async () => {
    const t = gateway();
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const acme = await buildAccount(t);
    const sam = await addStaffUser(t, operator, "sam", "operator_support");
    const viewing = await openView(t, sam, acme.username);
    // As a view of the operator account opened before the rule would be stored.
    const operatorRow = await t.db.store.db
      .selectFrom("accounts")
      .select(["id", "password_hash"])
      .where("username", "=", operator.username)
      .executeTakeFirstOrThrow();
    const stamp = createHash("sha256").update(operatorRow.password_hash).digest("hex");
    await t.db.store.db
      .updateTable("console_sessions")
      .set({ account_id: operatorRow.id, credential_stamp: stamp })
      .where("viewer_account_id", "is not", null)
      .execute();
    const keys = await call(t, "GET", "/api/v2/keys", { headers: { cookie: viewing.cookie } });
    expect(keys.status, keys.text).toBe(401);
    const views = await call(t, "GET", "/admin/api/account-views", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect((views.body.data as { ended_at: unknown }[])[0]?.ended_at).not.toBeNull();
  });
});
