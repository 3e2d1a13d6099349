// The API keys page offers what the API allows (decision 0140), at phone width (390 px): a
// developer is offered no Change or Revoke of an admin's key, even one with the developer's own
// scopes, and reads why (what the key can do that a developer cannot, and who may change it);
// the API refuses that key too. The owner's send-only key, which can do nothing a developer
// cannot, the developer revokes on the page. An admin is offered the owner's key.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  useConsole,
  visit,
} from "../../helpers/browser.js";
import { addConsoleUser, callAs, signInAsConsoleUser } from "../../helpers/console.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: the keys a user may change, by their maker's role, at 390 px", () => {
  const { gateway, page: newPage } = useConsole();
  let owner: TestAccount;
  let adminKey: { id: number; prefix: string };
  let sendOnly: { id: number; prefix: string };

  beforeAll(async () => {
    owner = await buildAccount(gateway());
    const ada = await addConsoleUser(gateway(), owner, "ada", "admin");
    await addConsoleUser(gateway(), owner, "dev", "developer");
    // Within a developer's scopes, but it acts as the admin: it can manage users and settings.
    const made = await callAs(gateway(), ada, "POST", "/api/v2/keys", {
      json: { name: "ada's deploys", scopes: ["send", "read", "manage"] },
    });
    expect(made.status, made.text).toBe(201);
    adminKey = made.body.data;
    const sender = await call(gateway(), "POST", "/api/v2/keys", {
      headers: { authorization: `Bearer ${owner.apiKey}` },
      json: { name: "sender", scopes: ["send"] },
    });
    expect(sender.status, sender.text).toBe(201);
    sendOnly = sender.body.data;
  });

  it("a developer reads why an admin's key is not theirs, and revokes the owner's send-only key", async () => {
    const { page, context, problems } = await newPage();
    await signInAsConsoleUser(page, owner.username, "dev");
    await visit(page, "/settings/keys");

    const adminRow = page.getByTestId(`key-${adminKey.prefix}`);
    expect(await adminRow.getByTestId("key-not-yours").textContent()).toBe(
      "Made by ada (admin): it can manage users and settings, which your role (developer) cannot. Only an owner or an admin can change or revoke it.",
    );
    expect(await adminRow.getByRole("button").count()).toBe(0);
    // The account's own key (every scope, no maker recorded) acts as the owner.
    const ownRow = page.getByTestId(`key-${owner.apiKey.slice(0, 10)}`);
    expect(await ownRow.getByTestId("key-not-yours").textContent()).toContain("go beyond your role's");
    // What the page withholds, the API refuses.
    const { csrf_token } = (await (await page.request.get("/console/session")).json()).data;
    const refused = await page.request.delete(`/api/v2/keys/${adminKey.id}`, {
      headers: { "x-csrf-token": csrf_token },
    });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).error.code).toBe("insufficient_role");
    await expectNoHorizontalScroll(page, "keys as a developer, with an admin's key");
    await expectAccessible(page, "keys as a developer, with an admin's key");

    const senderRow = page.getByTestId(`key-${sendOnly.prefix}`);
    expect(await senderRow.getByTestId("key-not-yours").count()).toBe(0);
    await senderRow.getByRole("button", { name: `Revoke ${sendOnly.prefix}…` }).click();
    await senderRow.getByRole("button", { name: `Confirm: revoke ${sendOnly.prefix}…` }).click();
    await expect.poll(() => senderRow.textContent()).toContain("revoked");
    expect(await page.getByRole("alert").count()).toBe(0);
    await expectNoHorizontalScroll(page, "keys as a developer, a key revoked");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an admin is offered Change and Revoke of the owner's and their own keys", async () => {
    const { page, context, problems } = await newPage();
    await signInAsConsoleUser(page, owner.username, "ada");
    await visit(page, "/settings/keys");
    for (const prefix of [owner.apiKey.slice(0, 10), adminKey.prefix]) {
      const row = page.getByTestId(`key-${prefix}`);
      await row.getByRole("button", { name: `Change ${prefix}…` }).waitFor();
      expect(await row.getByRole("button", { name: `Revoke ${prefix}…` }).count(), prefix).toBe(1);
      expect(await row.getByTestId("key-not-yours").count(), prefix).toBe(0);
    }
    await expectNoHorizontalScroll(page, "keys as an admin");
    expect(problems).toEqual([]);
    await context.close();
  });
});
