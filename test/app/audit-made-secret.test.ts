// The webhooks.make_secret entry: the signing secret that an email's notifyurl or the operator's
// alerts webhook makes for an account without one is recorded once, in the transaction that made
// it, with who caused it, why, and the secret masked; an account that had a secret gets none.
// Through the real server on both engines, concurrent first sends included.
import { beforeAll, expect, it } from "vitest";
import { base, emailAccount } from "../channels/email/helpers.js";
import { type AuditEntry, auditEntries, expectAuditChainIntact } from "../helpers/audit-log.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

// Nothing listens there: a notification's attempts fail quietly, and no test waits for one.
const HOOK = "http://127.0.0.1:9/email-events";

describeEachEngine("the audit entry of a secret made for an email or the alerts", (engine) => {
  const gateway = useTestGateway(engine, { env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  let t: TestGateway;
  let operator: TestAccount;

  const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });
  const hint = (secret: string) => `whsec_…${secret.slice(-4)}`;

  async function legacySend(account: TestAccount, fields: Record<string, string> = {}) {
    const answer = await call(t, "POST", "/httpemailapi/v1/send", {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...base(account), ...fields }).toString(),
    });
    expect(answer.text).toMatch(/^\d+_\d{8}_\d+$/);
  }

  async function v2Send(account: TestAccount) {
    const answer = await call(t, "POST", "/api/v2/email/send", {
      headers: bearer(account),
      json: {
        from: "news@shop.example.com",
        to: "asha@example.org",
        subject: "Hi",
        html: "<p>Hi</p>",
        notify_url: HOOK,
      },
    });
    expect(answer.status, answer.text).toBe(201);
  }

  async function secretOf(account: TestAccount): Promise<string> {
    const settings = await call(t, "GET", "/api/v2/webhooks", { headers: bearer(account) });
    expect(settings.status, settings.text).toBe(200);
    return settings.body.data.secret as string;
  }

  const madeEntries = (account: TestAccount) =>
    auditEntries(t, account, { action: "webhooks.make_secret" }, { operator: false });

  async function keyOf(account: TestAccount): Promise<string> {
    const key = await t.db.store.db
      .selectFrom("api_keys")
      .select("id")
      .where("account_id", "=", account.id)
      .executeTakeFirstOrThrow();
    return `key:${key.id}`;
  }

  function expectNoSecret(entries: AuditEntry[], secret: string) {
    expect(JSON.stringify(entries)).not.toContain(secret);
    expect(JSON.stringify(entries)).not.toContain(secret.replace(/^whsec_/, ""));
  }

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
  });

  it("records the secret an email's notifyurl makes, with the key that sent it, once", async () => {
    const shop = await emailAccount(t);
    await legacySend(shop, { notifyurl: HOOK });
    const secret = await secretOf(shop);
    expect(secret).toMatch(/^whsec_/);

    const entries = await madeEntries(shop);
    expect(entries).toEqual([
      expect.objectContaining({
        actor: shop.username,
        actor_user: null,
        channel: "api",
        credential: await keyOf(shop),
        address: "127.0.0.1",
        account: shop.username,
        target: "webhook signing secret",
        before: null,
        after: { secret: hint(secret), needed_by: "an email's notifyurl" },
      }),
    ]);
    expectNoSecret(entries, secret);

    await v2Send(shop);
    await legacySend(shop, { notifyurl: HOOK });
    expect(await secretOf(shop)).toBe(secret);
    expect(await madeEntries(shop)).toHaveLength(1);
    expect(await auditEntries(t, operator, { action: "webhooks", account: shop.username })).toHaveLength(1);
  });

  it("records nothing for a send without a notifyurl or for an account that had a secret", async () => {
    const plain = await emailAccount(t);
    await legacySend(plain);
    expect(await madeEntries(plain)).toEqual([]);

    const shop = await emailAccount(t);
    const rotated = await call(t, "POST", "/api/v2/webhooks/rotate-secret", { headers: bearer(shop) });
    expect(rotated.status, rotated.text).toBe(200);
    await v2Send(shop);
    await legacySend(shop, { notifyurl: HOOK });
    expect(await secretOf(shop)).toBe(rotated.body.data.secret);
    expect(await madeEntries(shop)).toEqual([]);
  });

  it("makes one secret and one entry for first sends that come together", async () => {
    const shop = await emailAccount(t);
    await Promise.all([v2Send(shop), v2Send(shop), legacySend(shop, { notifyurl: HOOK }), v2Send(shop)]);

    const current = await t.db.store.db
      .selectFrom("webhook_secrets")
      .select("secret")
      .where("account_id", "=", shop.id)
      .where("expires_at", "is", null)
      .execute();
    expect(current).toHaveLength(1);
    const entries = await madeEntries(shop);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.after).toEqual({ secret: hint(current[0]!.secret), needed_by: "an email's notifyurl" });
    await expectAuditChainIntact(t, operator);
  });

  it("records the operator's secret the alerts webhook makes, with the operator who set it", async () => {
    const admin = (json: unknown) => call(t, "PUT", "/admin/api/alerts", { headers: bearer(operator), json });
    const set = await admin({ url: "http://127.0.0.1:9/alerts" });
    expect(set.status, set.text).toBe(200);
    const secret = set.body.data.secret as string;
    expect(secret).toMatch(/^whsec_/);
    expect((await admin({ url: "http://127.0.0.1:9/alerts-again" })).status).toBe(200);

    const entries = await auditEntries(t, operator, { action: "webhooks.make_secret", account: operator.username });
    expect(entries).toEqual([
      expect.objectContaining({
        actor: operator.username,
        channel: "operator_api",
        credential: await keyOf(operator),
        address: expect.any(String),
        account: operator.username,
        target: "webhook signing secret",
        after: { secret: hint(secret), needed_by: "the alerts webhook" },
      }),
    ]);
    expectNoSecret(entries, secret);
    expect((await admin({ url: null })).status).toBe(200);
  });
});
