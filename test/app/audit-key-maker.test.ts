// What an API key does is in the audit log under the login that made the key (decision 0174),
// through the real server on both engines: a key the owner login made names the account's
// username, a team user's key that user, a parent's user's key for a sub-account
// `<parent>/<login>`; a key that records no maker (the operator's, the CLI's, an older one)
// names none.
import { beforeAll, expect, it } from "vitest";
import { auditEntries } from "../helpers/audit-log.js";
import { addConsoleUser, callAs, type SignedIn, signIn } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";
import { subAccount } from "../helpers/resellers.js";

describeEachEngine("the audit log's actor_user for an API key", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let operator: TestAccount;
  let shop: TestAccount;

  const withKey = (key: string, method: string, path: string, json?: unknown) =>
    call(t, method, path, { headers: { authorization: `Bearer ${key}` }, ...(json !== undefined ? { json } : {}) });

  async function keyOf(session: SignedIn, path = "/api/v2/keys"): Promise<{ id: number; api_key: string }> {
    const made = await callAs(t, session, "POST", path, { json: { name: "audited" } });
    expect(made.status, made.text).toBe(201);
    return made.body.data;
  }

  /** The entry of a contact group the key makes, as the operator's audit log shows it. */
  async function groupEntryBy(key: { id: number; api_key: string }, name: string) {
    const made = await withKey(key.api_key, "POST", "/api/v2/groups", { name });
    expect(made.status, made.text).toBe(201);
    const entries = await auditEntries(t, operator, { action: "contact_group.create" });
    const entry = entries.find((e) => JSON.stringify(e.after).includes(name));
    expect(entry, name).toBeDefined();
    expect(entry).toMatchObject({ channel: "api", credential: `key:${key.id}` });
    return entry;
  }

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { credits: { sms: 5 } });
  });

  it("names the owner login for a key it made, and a team user for theirs", async () => {
    const owner = await signIn(t, shop.username, shop.password);
    const ownerKey = await keyOf(owner);
    expect(await groupEntryBy(ownerKey, "by the owner's key")).toMatchObject({ actor_user: shop.username });

    const dev = await addConsoleUser(t, shop, "dana", "developer");
    const devKey = await keyOf(dev);
    expect(await groupEntryBy(devKey, "by dana's key")).toMatchObject({ actor_user: "dana" });
    // Found by the filter, as a session's entries are.
    const dana = await withKey(shop.apiKey, "GET", "/api/v2/audit?actor_user=DANA");
    expect(dana.body.data.map((e: { action: string }) => e.action)).toEqual(["contact_group.create", "key.create"]);
  });

  it("names a parent's user for the key they made a sub-account", async () => {
    const parent = await buildAccount(t, { credits: { sms: 50 } });
    const sub = await subAccount(t, parent);
    const admin = await addConsoleUser(t, parent, "petra", "admin");
    const key = await keyOf(admin, `/api/v2/subaccounts/${sub.username}/keys`);
    expect(await groupEntryBy(key, "by petra's sub-account key")).toMatchObject({
      actor: sub.username,
      actor_user: `${parent.username}/petra`,
    });
  });

  it("names no one for a key that records no maker", async () => {
    const entry = await groupEntryBy({ id: await keyIdOf(shop), api_key: shop.apiKey }, "by the onboarding key");
    expect(entry).toMatchObject({ actor: shop.username, actor_user: null });
  });

  async function keyIdOf(account: TestAccount): Promise<number> {
    const keys = await withKey(account.apiKey, "GET", "/api/v2/keys");
    const first = (keys.body.data as { id: number; created_by: string | null }[]).find((k) => k.created_by === null);
    expect(first).toBeDefined();
    return first?.id ?? 0;
  }
});
