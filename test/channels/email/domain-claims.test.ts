// A sending domain another account holds (decision 0179; audit-sec finding 5), through the real
// server on both engines: a second account's request waits as any other, but the approval queue
// names the account that holds it, and its approval is refused (409, field confirm_shared) unless
// the operator confirms with "confirm_shared": true.
import { expect, it } from "vitest";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";

describeEachEngine("a sending domain held by another account", (engine) => {
  const gateway = useTestGateway(engine);

  it("is flagged in the queue and approved only when the operator confirms", async () => {
    const t = gateway();
    const holder = await buildAccount(t);
    const other = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const held = await call(t, "POST", `/admin/api/accounts/${holder.username}/email/domains`, {
      headers: asOperator,
      json: { domain: "shop.example.com", approve: true },
    });
    expect(held.status, held.text).toBe(201);
    const asked = await call(t, "POST", "/api/v2/email/domains", {
      headers: { authorization: `Bearer ${other.apiKey}` },
      json: { domain: "Shop.Example.com" },
    });
    expect(asked.status, asked.text).toBe(201);
    expect(asked.body.data.status).toBe("pending");
    // The account asking learns nothing of the other.
    expect(asked.text).not.toContain(holder.username);

    const queue = await call(t, "GET", "/admin/api/approvals", { headers: asOperator });
    expect(queue.status, queue.text).toBe(200);
    const item = queue.body.data.find(
      (entry: { kind: string; account: string }) => entry.kind === "email_domain" && entry.account === other.username,
    );
    expect(item.detail).toContain(`${holder.username} (approved)`);

    const path = `/admin/api/accounts/${other.username}/email/domains/shop.example.com`;
    const refused = await call(t, "PUT", path, { headers: asOperator, json: { status: "approved" } });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "conflict", field: "confirm_shared" });
    expect(refused.text).toContain(holder.username);
    const confirmed = await call(t, "PUT", path, {
      headers: asOperator,
      json: { status: "approved", confirm_shared: true },
    });
    expect(confirmed.status, confirmed.text).toBe(200);
    expect(confirmed.body.data.status).toBe("approved");
    // A rejection needs no confirmation; a domain no other account holds neither.
    const alone = await call(t, "POST", "/api/v2/email/domains", {
      headers: { authorization: `Bearer ${other.apiKey}` },
      json: { domain: "other.example.com" },
    });
    expect(alone.status, alone.text).toBe(201);
    const approved = await call(t, "PUT", `/admin/api/accounts/${other.username}/email/domains/other.example.com`, {
      headers: asOperator,
      json: { status: "approved" },
    });
    expect(approved.status, approved.text).toBe(200);
  });
});
