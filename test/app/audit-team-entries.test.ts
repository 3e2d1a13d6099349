// What a team's audit entries hold, through the real server on both engines: an invitation sent
// again says when each link expired as a time (not epoch milliseconds), an accepted invitation
// says what the user was and is (it wrote nothing, `— → —` on the console), sessions ended name
// the sessions there were, and a role change, a new password or a removal count the sessions
// they ended.
import { afterAll, beforeAll, expect, it } from "vitest";
import { callAs, type SignedIn, signIn, signInUser, userPassword } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, startTestGateway, type TestAccount, type TestGateway } from "../helpers/gateway.js";

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

describeEachEngine("a team's audit entries: before and after of invitations and sessions", (engine) => {
  let t: TestGateway;
  let account: TestAccount;
  let owner: SignedIn;

  beforeAll(async () => {
    t = await startTestGateway(engine);
    account = await buildAccount(t);
    owner = await signIn(t, account.username, account.password);
  });
  afterAll(async () => {
    await t?.gateway.stop();
    await t?.db.drop();
  });

  /** The newest entry of one action in the account's log. */
  async function newest(action: string) {
    const response = await callAs(t, owner, "GET", `/api/v2/audit?action=${action}&limit=1`);
    expect(response.status, response.text).toBe(200);
    return (response.body.data as Record<string, unknown>[])[0];
  }

  it("an invitation sent again and accepted: times as times, what the user was and is", async () => {
    const invited = await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login: "ivy", user_role: "support", email: "ivy@example.org" },
    });
    expect(invited.status, invited.text).toBe(201);
    const again = await callAs(t, owner, "POST", "/api/v2/users/ivy/invitation");
    expect(again.status, again.text).toBe(201);
    const resend = await newest("user.invite_resend");
    const before = resend?.before as Record<string, unknown>;
    const after = resend?.after as Record<string, unknown>;
    expect(before.invitation_expires_at).toMatch(ISO);
    expect(after.invitation_expires_at).toMatch(ISO);
    expect(after.invitation_expires_at).toBe(again.body.data.invitation.expires_at);

    const token = new URL(again.body.data.invitation.url).searchParams.get("token")!;
    const accepted = await call(t, "POST", "/console/invitation", { json: { token, password: "pw-ivy-password-1" } });
    expect(accepted.status, accepted.text).toBe(200);
    expect(await newest("user.invite_accept")).toMatchObject({
      actor: account.username,
      actor_user: "ivy",
      target: `user ivy of ${account.username}`,
      before: {
        login: "ivy",
        user_role: "support",
        status: "invited",
        invitation_expires_at: after.invitation_expires_at,
      },
      after: { login: "ivy", user_role: "support", status: "active", password: "set" },
    });
  });

  it("sessions ended name the sessions there were; a role change and a removal count theirs", async () => {
    await callAs(t, owner, "POST", "/api/v2/users", {
      json: { login: "sam", user_role: "developer", password: userPassword("sam") },
    });
    const first = await signInUser(t, account.username, "sam");
    await signInUser(t, account.username, "sam");
    const listed = await callAs(t, first, "GET", "/api/v2/sessions");
    const ids = (listed.body.data as { id: number }[]).map((s) => s.id).sort((a, b) => a - b);
    expect(ids).toHaveLength(2);

    const ended = await callAs(t, owner, "DELETE", "/api/v2/users/sam/sessions");
    expect(ended.body.data).toEqual({ ended: 2 });
    expect(await newest("session.end")).toMatchObject({
      target: "sessions of sam",
      before: { sessions: ids },
      after: { ended: 2 },
    });

    // One of your own sessions, by its id.
    const mine = await signInUser(t, account.username, "sam");
    const own = (await callAs(t, mine, "GET", "/api/v2/sessions")).body.data[0].id as number;
    expect((await callAs(t, mine, "DELETE", `/api/v2/sessions/${own}`)).body.data).toEqual({ ended: 1 });
    expect(await newest("session.end")).toMatchObject({ before: { sessions: [own] }, after: { session_id: own } });

    await signInUser(t, account.username, "sam");
    const changed = await callAs(t, owner, "PATCH", "/api/v2/users/sam", { json: { user_role: "support" } });
    expect(changed.status, changed.text).toBe(200);
    expect(await newest("user.role_change")).toMatchObject({
      before: { user_role: "developer" },
      after: { user_role: "support", sessions_ended: 1 },
    });

    await signInUser(t, account.username, "sam");
    await callAs(t, owner, "PATCH", "/api/v2/users/sam", { json: { display_name: "Sam" } });
    expect((await newest("user.update"))?.after).not.toHaveProperty("sessions_ended");
    expect((await callAs(t, owner, "DELETE", "/api/v2/users/sam")).status).toBe(200);
    expect(await newest("user.delete")).toMatchObject({
      before: { login: "sam", user_role: "support", display_name: "Sam" },
      after: { keys_revoked: [], sessions_ended: 1 },
    });
  });
});
