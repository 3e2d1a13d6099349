// The audit log in a real browser, at phone width (390 px): the account's Audit log page shows the
// operator's top-up of it and its own new key, filters by action, and offers the exports; the
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
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

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
    expect(text).toContain("note: invoice 7");
    expect(await page.getByRole("link", { name: "CSV" }).getAttribute("href")).toBe("/api/v2/audit/export?format=csv");
    await expectNoHorizontalScroll(page, "audit page");
    await expectAccessible(page, "audit page");

    await page.getByLabel("Action").fill("key");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.textContent()).toContain("key.create");

    await page.goto("/operator/audit");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the operator every account's, and verifies the chain, at 390 px", async () => {
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
    expect(await changes.first().innerText()).toBe("flood_limit: 5000 → 0");
    expect(await changes.nth(1).innerText()).toBe("flood_limit: 0 → 5000");
    await expectNoHorizontalScroll(page, "operator audit page of account.update");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
