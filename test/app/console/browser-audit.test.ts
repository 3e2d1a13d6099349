// The audit log in a real browser, at phone width (390 px): the account's Audit log page shows the
// operator's top-up of it and its own new key, filters by action and by the login that acted
// (a team user's password change), and offers the exports; the
// operator's page lists the account's entries under its name and verifies the chain; a customer
// does not reach the operator's page; an account.update entry reads as the settings it changed.
// axe on both pages.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { callAs, type SignedIn } from "../../helpers/console.js";
import { buildAccount, call, type TestAccount, type TestGateway, useTestGateway } from "../../helpers/gateway.js";

async function signInUser(t: TestGateway, username: string, login: string, password: string): Promise<SignedIn> {
  const response = await call(t, "POST", "/console/session", { json: { username, login, password } });
  expect(response.status, response.text).toBe(201);
  return {
    cookie: (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "",
    csrf: response.body.data.csrf_token,
    setCookie: "",
  };
}

describeInBrowser("console in the browser: the audit log", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { credits: { sms: 5 } });
    const topup = await call(t, "POST", `/admin/api/accounts/${shop.username}/credits`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { wallet: "sms", amount: 10, note: "invoice 7" },
    });
    expect(topup.status, topup.text).toBe(200);
    const key = await call(t, "POST", "/api/v2/keys", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { name: "ci" },
    });
    expect(key.status, key.text).toBe(201);
    const user = await call(t, "POST", "/api/v2/users", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { login: "pat", user_role: "support", password: "pat-password-1" },
    });
    expect(user.status, user.text).toBe(201);
    const pat = await signInUser(t, shop.username, "pat", "pat-password-1");
    const changed = await callAs(t, pat, "PUT", "/api/v2/password", {
      json: { current_password: "pat-password-1", new_password: "pat-password-2" },
    });
    expect(changed.status, changed.text).toBe(200);
  });

  it("shows the account its entries, filters them, at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(browser(), gateway().url, shop, "/audit");
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await noneLoading(page);
    const list = page.getByRole("list", { name: "Audit entries" });
    await expect.poll(async () => (await list.textContent()) ?? "").toContain("credits.topup");
    const text = (await list.textContent()) ?? "";
    expect(text).toContain("key.create");
    expect(text).toContain(operator.username);
    expect(text).toContain("Note: invoice 7");
    expect(await page.getByRole("link", { name: "CSV" }).getAttribute("href")).toBe("/api/v2/audit/export?format=csv");
    await expectNoHorizontalScroll(page, "audit page");
    await expectAccessible(page, "audit page");

    await page.getByLabel("Action").fill("key");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.textContent()).toContain("key.create");

    await page.getByLabel("Action").fill("");
    await page.getByLabel("Login").fill("PAT");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.textContent()).toContain("password.change");
    expect(await page.getByRole("link", { name: "CSV" }).getAttribute("href")).toBe(
      "/api/v2/audit/export?actor_user=PAT&format=csv",
    );

    await page.goto("/operator/audit");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the operator every account's, verifies the chain, filters by login, at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(
      browser(),
      gateway().url,
      operator,
      `/operator/audit?account=${shop.username}&action=credits`,
    );
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await noneLoading(page);
    const list = page.getByRole("list", { name: "Audit entries" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.getByRole("link", { name: shop.username }).count()).toBe(1);
    await page.getByRole("button", { name: "Verify the chain" }).click();
    await expect.poll(async () => (await page.getByRole("status").textContent()) ?? "").toMatch(/^Intact: \d+ entries/);
    await expectNoHorizontalScroll(page, "operator audit page");
    await expectAccessible(page, "operator audit page");
    await page.goto("/operator/audit?actor_user=pat");
    await noneLoading(page);
    expect(await page.getByLabel("Login").inputValue()).toBe("pat");
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.textContent()).toContain("password.change");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows an account.update entry as the settings it changed, was → now, at 390 px (audit row 7)", async () => {
    const t = gateway();
    const changed = await call(t, "PATCH", `/admin/api/accounts/${shop.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { flood_limit: 5000 },
    });
    expect(changed.status, changed.text).toBe(200);
    const again = await call(t, "PATCH", `/admin/api/accounts/${shop.username}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: { flood_limit: 0 },
    });
    expect(again.status, again.text).toBe(200);
    const { page, context, problems } = await phonePageAs(
      browser(),
      t.url,
      operator,
      `/operator/audit?account=${shop.username}&action=account.update`,
    );
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await noneLoading(page);
    const changes = page.getByTestId("audit-changes");
    await expect.poll(() => changes.count()).toBe(2);
    expect(await changes.first().innerText()).toBe("Flood limit: 5000 → 0");
    expect(await changes.nth(1).innerText()).toBe("Flood limit: 0 → 5000");
    await expectNoHorizontalScroll(page, "operator audit page of account.update");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
