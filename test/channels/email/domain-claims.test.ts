// A sending domain another account holds (decision 0179; audit-sec finding 5), through the real
// server on both engines: a second account's request waits as any other, but the approval queue
// names the account that holds it, and its approval is refused (409, field confirm_shared) unless
// the operator confirms with "confirm_shared": true. The operator's add with "approve": true is an
// approval too and is refused the same way; the queue's item lists the holders (shared_with).
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

  it("refuses the operator's add with approve: true of a domain another account holds, unless confirmed", async () => {
    const t = gateway();
    const holder = await buildAccount(t);
    const asker = await buildAccount(t);
    const other = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const add = (username: string, json: unknown) =>
      call(t, "POST", `/admin/api/accounts/${username}/email/domains`, { headers: asOperator, json });
    const domains = async (username: string) =>
      (await call(t, "GET", `/admin/api/accounts/${username}/email/domains`, { headers: asOperator })).body.data;
    // One holds it approved, one asks for it (pending): both are named.
    expect((await add(holder.username, { domain: "brand.example.com", approve: true })).status).toBe(201);
    const asked = await call(t, "POST", "/api/v2/email/domains", {
      headers: { authorization: `Bearer ${asker.apiKey}` },
      json: { domain: "brand.example.com" },
    });
    expect(asked.status, asked.text).toBe(201);

    const refused = await add(other.username, { domain: "Brand.Example.com.", approve: true });
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "conflict", field: "confirm_shared" });
    expect(refused.body.message).toBe(
      `brand.example.com is held by another account too: ${holder.username} (approved), ${asker.username} (pending). ` +
        'Approve it only if both send for it, with "confirm_shared": true.',
    );
    // Refused whole: nothing added, nothing audited.
    expect(await domains(other.username)).toEqual([]);
    const audit = await call(t, "GET", `/admin/api/audit?account=${other.username}`, { headers: asOperator });
    expect(audit.status, audit.text).toBe(200);
    expect(audit.text).not.toContain("brand.example.com");

    // confirm_shared goes with approve: true only.
    const stray = await add(other.username, { domain: "brand.example.com", confirm_shared: true });
    expect(stray.status, stray.text).toBe(400);
    expect(stray.body.error).toMatchObject({ code: "invalid_request", field: "confirm_shared" });
    const wrongType = await add(other.username, { domain: "brand.example.com", approve: true, confirm_shared: "yes" });
    expect(wrongType.status, wrongType.text).toBe(400);

    const confirmed = await add(other.username, { domain: "brand.example.com", approve: true, confirm_shared: true });
    expect(confirmed.status, confirmed.text).toBe(201);
    expect(confirmed.body.data.status).toBe("approved");
    // Added pending (no approval), it needs nothing: the approval is where the operator confirms.
    const third = await buildAccount(t);
    const pending = await add(third.username, { domain: "brand.example.com" });
    expect(pending.status, pending.text).toBe(201);
    expect(pending.body.data.status).toBe("pending");
    // The account's own domain again is the conflict it was, not a share.
    const again = await add(holder.username, { domain: "brand.example.com", approve: true });
    expect(again.status, again.text).toBe(409);
    expect(again.body.error.field).toBeUndefined();
    // Approving a domain the account lacks is the 404 it is, whoever else holds it.
    const stranger = await buildAccount(t);
    const lacking = await call(t, "PUT", `/admin/api/accounts/${stranger.username}/email/domains/brand.example.com`, {
      headers: asOperator,
      json: { status: "approved" },
    });
    expect(lacking.status, lacking.text).toBe(404);
    expect(lacking.body.error.code).toBe("not_found");
    // A domain nobody else holds is approved at once, as before.
    const alone = await add(other.username, { domain: "alone.example.com", approve: true });
    expect(alone.status, alone.text).toBe(201);
    expect(alone.body.data.status).toBe("approved");
  });

  it("lists the holders of each queued domain in shared_with; a rejected holder is none", async () => {
    const t = gateway();
    const holder = await buildAccount(t);
    const rejected = await buildAccount(t);
    const asker = await buildAccount(t);
    const operator = await buildAccount(t, { role: "operator", sender: null });
    const asOperator = { authorization: `Bearer ${operator.apiKey}` };
    const ask = (account: { apiKey: string }, domain: string) =>
      call(t, "POST", "/api/v2/email/domains", {
        headers: { authorization: `Bearer ${account.apiKey}` },
        json: { domain },
      });
    expect((await ask(holder, "held.example.com")).status).toBe(201);
    expect((await ask(rejected, "free.example.com")).status).toBe(201);
    const rejection = await call(t, "PUT", `/admin/api/accounts/${rejected.username}/email/domains/free.example.com`, {
      headers: asOperator,
      json: { status: "rejected" },
    });
    expect(rejection.status, rejection.text).toBe(200);
    expect((await ask(asker, "held.example.com")).status).toBe(201);
    expect((await ask(asker, "free.example.com")).status).toBe(201);

    const queue = await call(t, "GET", "/admin/api/approvals?kind=email_domain", { headers: asOperator });
    expect(queue.status, queue.text).toBe(200);
    const items = queue.body.data.filter((item: { account: string }) => item.account === asker.username);
    const byValue = Object.fromEntries(items.map((item: { value: string }) => [item.value, item]));
    expect(byValue["held.example.com"].shared_with).toEqual([{ account: holder.username, status: "pending" }]);
    expect(byValue["held.example.com"].detail).toBe(
      `Also held by ${holder.username} (pending): approving needs "confirm_shared": true.`,
    );
    expect(byValue["free.example.com"]).toMatchObject({ shared_with: [], detail: null });
    // The holder's own item names the asker, as the asker's names the holder.
    const own = queue.body.data.find(
      (item: { account: string; value: string }) =>
        item.account === holder.username && item.value === "held.example.com",
    );
    expect(own.shared_with).toEqual([{ account: asker.username, status: "pending" }]);
    // Another kind carries no shared_with.
    const sender = await call(t, "POST", "/api/v2/sender-id-requests", {
      headers: { authorization: `Bearer ${asker.apiKey}` },
      json: { sender_id: "ASKER" },
    });
    expect(sender.status, sender.text).toBe(201);
    const senders = await call(t, "GET", "/admin/api/approvals?kind=sender_id", { headers: asOperator });
    expect(senders.body.data[0]).not.toHaveProperty("shared_with");
  });
});
