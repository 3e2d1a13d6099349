// Contact groups and uploads through the real server on both engines: a group made or deleted and
// each upload (JSON or a 100,000-line CSV) is one audit entry with counts, never the numbers,
// naming the actor and the account; a refused change and an upload that adds nothing write none,
// nor does an upload stopped part-way, which writes nothing.
import { beforeAll, expect, it } from "vitest";
import { auditEntries, expectAuditChainIntact } from "../../helpers/audit-log.js";
import { callAs, type SignedIn } from "../../helpers/console.js";
import { describeEachEngine } from "../../helpers/engines.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { createGroup, postCsv, v2 } from "./helpers.js";

describeEachEngine("audit entries of contact groups and uploads", (engine) => {
  const gateway = useTestGateway(engine);
  let operator: TestAccount;

  beforeAll(async () => {
    operator = await buildAccount(gateway(), { role: "operator", sender: null });
  });

  const logOf = (account: TestAccount, filters: Record<string, string> = {}) =>
    auditEntries(gateway(), operator, { account: account.username, ...filters });

  it("records a group made and deleted and a JSON upload, and nothing for refusals or an upload that adds nothing", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const other = await buildAccount(t);
    const made = await v2(t, shop, "POST", "/groups", { name: " Leads ", description: "from the fair" });
    expect(made.status, made.text).toBe(201);
    const group = made.body.data.id as number;

    // Refused: a name in use, a blank name, another account's group, an id that cannot be one.
    expect((await v2(t, shop, "POST", "/groups", { name: "Leads" })).status).toBe(409);
    expect((await v2(t, shop, "POST", "/groups", { name: "   " })).status).toBe(400);
    expect((await v2(t, other, "POST", `/groups/${group}/contacts`, ["9876500001"])).status).toBe(404);
    expect((await v2(t, other, "DELETE", `/groups/${group}`)).status).toBe(404);
    expect((await v2(t, shop, "DELETE", "/groups/0")).status).toBe(404);
    expect((await v2(t, shop, "POST", `/groups/${group}/contacts`, [])).status).toBe(400);

    const list = ["9876500001", { number: "+91 98765 00002", name: "Asha" }, "9876500001", "12345", "09876500003"];
    const added = await v2(t, shop, "POST", `/groups/${group}/contacts`, list);
    expect(added.body.data).toMatchObject({ received: 5, added: 3, duplicates: 1, invalid: 1 });
    // Every number there already, or not a number: nothing changed, no entry.
    const again = await v2(t, shop, "POST", `/groups/${group}/contacts`, ["9876500002", "nope"]);
    expect(again.body.data).toMatchObject({ added: 0, duplicates: 1, invalid: 1 });
    const deleted = await v2(t, shop, "DELETE", `/groups/${group}`);
    expect(deleted.body.data).toMatchObject({ deleted: true, contacts_deleted: 3 });

    const entries = [
      ...(await logOf(shop, { action: "contact_group" })),
      ...(await logOf(shop, { action: "contacts" })),
    ];
    entries.sort((a, b) => Number(a.seq) - Number(b.seq));
    for (const entry of entries) {
      expect(entry).toMatchObject({
        actor: shop.username,
        actor_user: null,
        channel: "api",
        credential: expect.stringMatching(/^key:\d+$/),
        account: shop.username,
        target: `contact group ${group}`,
      });
      expect(JSON.stringify(entry)).not.toContain("98765");
    }
    expect(entries.map((entry) => [entry.action, entry.before, entry.after])).toEqual([
      ["contact_group.create", null, { name: "Leads", description: "from the fair" }],
      ["contacts.add", null, { group: "Leads", received: 5, added: 3, duplicates: 1, invalid: 1 }],
      ["contact_group.delete", { name: "Leads", description: "from the fair", contacts: 3 }, null],
    ]);
    // The same entries by target, as the account reads its own log; none in the other account's.
    const own = await auditEntries(t, shop, { target: `contact group ${group}` }, { operator: false });
    expect(own.map((entry) => entry.action)).toEqual(entries.map((entry) => entry.action));
    expect(await auditEntries(t, other, { target: "contact group" }, { operator: false })).toEqual([]);
    await expectAuditChainIntact(t, operator);
  });

  it("writes one entry with the counts for a 100,000-line CSV upload", { timeout: 60_000 }, async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const group = await createGroup(t, shop, "Big");
    const lines = ["number,name"];
    for (let i = 0; i < 100_000; i += 1) {
      if (i % 100 === 99) lines.push(`bad-${i},x`);
      else if (i % 100 === 49) lines.push(`${6_000_000_000 + i - 1},Again`);
      else lines.push(`${6_000_000_000 + i},Name ${i}`);
    }
    const uploaded = await postCsv(t, shop, group, `${lines.join("\n")}\n`);
    expect(uploaded.status, uploaded.text).toBe(200);
    expect(uploaded.body.data).toMatchObject({ received: 100_000, added: 98_000, duplicates: 1_000, invalid: 1_000 });

    expect(await logOf(shop, { action: "contacts" })).toEqual([
      expect.objectContaining({
        action: "contacts.import",
        actor: shop.username,
        account: shop.username,
        target: `contact group ${group}`,
        before: null,
        after: { group: "Big", received: 100_000, added: 98_000, duplicates: 1_000, invalid: 1_000 },
      }),
    ]);
    await expectAuditChainIntact(t, operator);
  });

  it("records nothing for a CSV upload stopped by a malformed line, which adds nothing", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const group = await createGroup(t, shop, "Broken");
    // Far into the file: an upload that wrote chunks as it read them had written two by then.
    const numbers = Array.from({ length: 12_000 }, (_, i) => String(7_000_000_000 + i));
    const stopped = await postCsv(t, shop, group, `${numbers.join("\n")}\n"9811,unclosed\n`);
    expect(stopped.status, stopped.text).toBe(400);
    expect(stopped.body.error.added).toBe(0);
    expect(await logOf(shop, { action: "contacts.import" })).toEqual([]);
  });

  it("names the team user whose console session made the group and the upload", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const added = await call(t, "POST", "/api/v2/users", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { login: "dev", user_role: "developer", password: "dev-password-1" },
    });
    expect(added.status, added.text).toBe(201);
    const signedIn = await call(t, "POST", "/console/session", {
      json: { username: shop.username, login: "dev", password: "dev-password-1" },
    });
    expect(signedIn.status, signedIn.text).toBe(201);
    const session: SignedIn = {
      cookie: (signedIn.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
      csrf: signedIn.body.data.csrf_token,
      setCookie: "",
    };
    const made = await callAs(t, session, "POST", "/api/v2/groups", { json: { name: "Dev's" } });
    expect(made.status, made.text).toBe(201);
    const upload = await callAs(t, session, "POST", `/api/v2/groups/${made.body.data.id}/contacts`, {
      json: ["9876500011"],
    });
    expect(upload.status, upload.text).toBe(200);

    const byDev = await logOf(shop, { actor_user: "dev" });
    expect(byDev.map((entry) => [entry.action, entry.channel, entry.actor_user])).toEqual([
      ["contact_group.create", "console", "dev"],
      ["contacts.add", "console", "dev"],
    ]);
  });
});
