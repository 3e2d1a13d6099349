// A webhooks.rotate_secret entry shows that the secret changed and which secret replaced which,
// and the webhooks.set entry that makes the account's first secret shows it, never a secret
// (decision 0141's masked form, `whsec_…` and the last four characters), through the real server
// on both engines: the account's own rotation and the operator's for it.
import { beforeAll, expect, it } from "vitest";
import { type AuditEntry, auditEntries } from "../helpers/audit-log.js";
import { describeEachEngine } from "../helpers/engines.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../helpers/gateway.js";

describeEachEngine("the audit entry of a rotated webhook secret", (engine) => {
  const gateway = useTestGateway(engine);
  let t: TestGateway;
  let operator: TestAccount;

  const bearer = (account: TestAccount) => ({ authorization: `Bearer ${account.apiKey}` });
  const hint = (secret: string) => `whsec_…${secret.slice(-4)}`;

  async function rotate(path: string, as: TestAccount): Promise<string> {
    const rotated = await call(t, "POST", path, { headers: bearer(as) });
    expect(rotated.status, rotated.text).toBe(200);
    return rotated.body.data.secret as string;
  }

  function expectNoSecret(entries: AuditEntry[], secrets: string[]) {
    for (const secret of secrets) {
      expect(JSON.stringify(entries)).not.toContain(secret);
      expect(JSON.stringify(entries)).not.toContain(secret.replace(/^whsec_/, ""));
    }
  }

  beforeAll(async () => {
    t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
  });

  it("names no secret before the first, then each rotation's old and new secret masked", async () => {
    const shop = await buildAccount(t);
    const settings = await call(t, "GET", "/api/v2/webhooks", { headers: bearer(shop) });
    expect(settings.body.data.secret).toBeNull();

    const first = await rotate("/api/v2/webhooks/rotate-secret", shop);
    const second = await rotate("/api/v2/webhooks/rotate-secret", shop);

    const entries = await auditEntries(t, shop, { action: "webhooks.rotate_secret" }, { operator: false });
    expect(entries).toMatchObject([
      { target: "webhook signing secret", actor: shop.username, before: null, after: { secret: hint(first) } },
      { before: { secret: hint(first) }, after: { secret: hint(second) } },
    ]);
    expectNoSecret(entries, [first, second]);
  });

  it("records the operator's rotation of an account's secret the same way", async () => {
    const shop = await buildAccount(t);
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: bearer(shop),
      json: { delivery_report: "https://hooks.example.com/dlr" },
    });
    expect(set.status, set.text).toBe(200);
    const made = set.body.data.secret as string;

    const rotated = await rotate(`/admin/api/accounts/${shop.username}/webhooks/rotate-secret`, operator);

    const entries = await auditEntries(t, operator, { action: "webhooks.rotate_secret", account: shop.username });
    expect(entries).toMatchObject([
      {
        actor: operator.username,
        channel: "operator_api",
        account: shop.username,
        before: { secret: hint(made) },
        after: { secret: hint(rotated) },
      },
    ]);
    expectNoSecret(entries, [made, rotated]);
  });

  it("shows the secret the first URLs make, masked, and nothing of it when the URLs change later", async () => {
    const shop = await buildAccount(t);
    const set = async (json: Record<string, string | null>) => {
      const answer = await call(t, "PUT", "/api/v2/webhooks", { headers: bearer(shop), json });
      expect(answer.status, answer.text).toBe(200);
      return answer.body.data.secret as string;
    };
    const made = await set({ delivery_report: "https://hooks.example.com/dlr" });
    expect(await set({ inbound_sms: "https://hooks.example.com/mo" })).toBe(made);
    expect(await set({ delivery_report: null })).toBe(made);

    const entries = await auditEntries(t, shop, { action: "webhooks.set" }, { operator: false });
    expect(entries).toMatchObject([
      { before: {}, after: { delivery_report: "https://hooks.example.com/dlr", secret: hint(made) } },
      {
        before: { delivery_report: "https://hooks.example.com/dlr" },
        after: { delivery_report: "https://hooks.example.com/dlr", inbound_sms: "https://hooks.example.com/mo" },
      },
      { after: { inbound_sms: "https://hooks.example.com/mo" } },
    ]);
    for (const later of entries.slice(1)) {
      expect(later.before).not.toHaveProperty("secret");
      expect(later.after).not.toHaveProperty("secret");
    }
    expectNoSecret(entries, [made]);
  });

  it("says nothing of the secret when the account had one before its first URLs", async () => {
    const shop = await buildAccount(t);
    const rotated = await rotate("/api/v2/webhooks/rotate-secret", shop);
    const set = await call(t, "PUT", "/api/v2/webhooks", {
      headers: bearer(shop),
      json: { delivery_report: "https://hooks.example.com/dlr" },
    });
    expect(set.status, set.text).toBe(200);
    expect(set.body.data.secret).toBe(rotated);

    const entries = await auditEntries(t, shop, { action: "webhooks.set" }, { operator: false });
    expect(entries).toEqual([
      expect.objectContaining({ before: {}, after: { delivery_report: "https://hooks.example.com/dlr" } }),
    ]);
    expectNoSecret(entries, [rotated]);
  });
});
