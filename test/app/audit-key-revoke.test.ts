// A key.revoke entry says which key stopped, through the real server on both engines: before and
// after describe the key as key.create does (prefix, name, rate, scopes, addresses, maker), the
// operator's revocation and the account's own alike, and never hold the key or its hash.
import { beforeAll, expect, it } from "vitest";
import { type AuditEntry, auditEntries, expectAuditChainIntact } from "../helpers/audit-log.js";
import { callAs, signIn } from "../helpers/console.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("the audit entry of a revoked API key", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let operator: TestAccount;
  let shop: TestAccount;

  const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });

  async function hashOf(keyId: number): Promise<string> {
    const row = await t.db.store.db
      .selectFrom("api_keys")
      .select("key_hash")
      .where("id", "=", keyId)
      .executeTakeFirst();
    return row?.key_hash ?? "";
  }

  function expectDescribes(entry: AuditEntry | undefined, described: Record<string, unknown>, secrets: string[]) {
    expect(entry).toMatchObject({ before: { ...described, revoked: false }, after: { ...described, revoked: true } });
    for (const secret of secrets) expect(JSON.stringify(entry)).not.toContain(secret);
  }

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
  });

  it("describes the key the account revokes itself, and names its maker", async () => {
    const owner = await signIn(t, shop.username, shop.password);
    const made = await callAs(t, owner, "POST", "/api/v2/keys", {
      json: { name: "billing robot", scopes: ["read", "billing"], allowed_ips: ["203.0.113.0/24"] },
    });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data as { id: number; api_key: string; prefix: string; rate_limit: number };
    const hash = await hashOf(key.id);

    const revoked = await callAs(t, owner, "DELETE", `/api/v2/keys/${key.id}`);
    expect(revoked.status, revoked.text).toBe(200);

    const entries = await auditEntries(t, shop, { action: "key.revoke" }, { operator: false });
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ target: `key ${key.id}`, actor_user: shop.username });
    expectDescribes(
      entries[0],
      {
        prefix: key.prefix,
        name: "billing robot",
        rate_limit: key.rate_limit,
        scopes: ["read", "billing"],
        allowed_ips: ["203.0.113.0/24"],
        created_by: shop.username,
      },
      [key.api_key, hash],
    );
  });

  it("describes the key the operator revokes, as its key.create entry did", async () => {
    const made = await call(t, "POST", `/admin/api/accounts/${shop.username}/keys`, {
      headers: bearer(operator),
      json: { name: "partner", rate_limit: 120, scopes: ["send"] },
    });
    expect(made.status, made.text).toBe(201);
    const key = made.body.data as { id: number; api_key: string; prefix: string };
    const hash = await hashOf(key.id);

    const revoked = await call(t, "DELETE", `/admin/api/keys/${key.id}`, { headers: bearer(operator) });
    expect(revoked.status, revoked.text).toBe(200);
    expect(revoked.body.data).toMatchObject({ id: key.id, revoked: true });

    const [created] = await auditEntries(t, operator, { action: "key.create", account: shop.username }).then((all) =>
      all.filter((entry) => entry.target === `key ${key.id}`),
    );
    const entries = (await auditEntries(t, operator, { action: "key.revoke" })).filter(
      (entry) => entry.target === `key ${key.id}`,
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: operator.username, channel: "operator_api", account: shop.username });
    const described = { prefix: key.prefix, name: "partner", rate_limit: 120, scopes: ["send"], allowed_ips: null };
    expect(created?.after).toMatchObject(described);
    expectDescribes(entries[0], { ...described, created_by: null }, [key.api_key, hash]);

    // Revoked once: a second revocation is a 404 and writes nothing.
    const again = await call(t, "DELETE", `/admin/api/keys/${key.id}`, { headers: bearer(operator) });
    expect(again.status, again.text).toBe(404);
    const after = (await auditEntries(t, operator, { action: "key.revoke" })).filter(
      (entry) => entry.target === `key ${key.id}`,
    );
    expect(after).toHaveLength(1);
    await expectAuditChainIntact(t, operator);
  });
});
