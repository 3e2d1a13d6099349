// An auditor follows one API key through the audit log in a real browser, at phone width: an
// entry's credential (key:N) is a link to the log filtered by it, on the account's page and the
// operator's; the Credential filter takes it typed too, and the export links carry it; the Keys page
// names each key as the log does (key:N), linked to what it did.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: the audit log by credential", () => {
  const { gateway, operator, phonePage } = useConsole();
  let shop: TestAccount;
  let second: number;

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t);
    const made = await call(t, "POST", "/api/v2/keys", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { name: "ci" },
    });
    expect(made.status, made.text).toBe(201);
    second = made.body.data.id;
    const hooked = await call(t, "PUT", "/api/v2/webhooks", {
      headers: { authorization: `Bearer ${made.body.data.api_key}` },
      json: { delivery_report: "https://hooks.example.com/dlr" },
    });
    expect(hooked.status, hooked.text).toBe(200);
  });

  it("opens everything one key did from an entry, on the account's log", async () => {
    const { page, context, problems } = await phonePage(shop, "/audit");
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await noneLoading(page);
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(async () => (await entries.first().textContent()) ?? "").toContain("webhooks.set");
    expect(await entries.count()).toBeGreaterThan(1);
    await entries
      .first()
      .getByRole("link", { name: `key:${second}` })
      .click();
    await expect.poll(() => new URL(page.url()).search).toBe(`?credential=key%3A${second}`);
    await expect.poll(() => entries.count()).toBe(1);
    expect(await entries.first().textContent()).toContain("webhooks.set");
    expect(await page.getByRole("searchbox", { name: "Credential" }).inputValue()).toBe(`key:${second}`);
    expect(await page.getByRole("link", { name: /JSON Lines/ }).getAttribute("href")).toContain(
      `credential=key%3A${second}`,
    );
    await expectNoHorizontalScroll(page, "the audit log by credential");
    await expectAccessible(page, "the audit log by credential");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("names each key on the Keys page as the log does, linked to what it did", async () => {
    const { page, context, problems } = await phonePage(shop, "/settings/keys");
    await page.getByRole("heading", { name: "API keys" }).waitFor();
    await noneLoading(page);
    await page.getByRole("link", { name: `key:${second} in the audit log` }).click();
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(async () => (await entries.allTextContents()).join(" | ")).toContain("webhooks.set");
    expect(await entries.count()).toBe(1);
    await expectNoHorizontalScroll(page, "the audit log from the Keys page");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("filters the operator's log by a credential typed in", async () => {
    const { page, context, problems } = await phonePage(operator(), "/operator/audit");
    await page.getByRole("heading", { name: "Audit log" }).waitFor();
    await noneLoading(page);
    await page.getByRole("searchbox", { name: "Credential" }).fill(String(second));
    await page.getByRole("button", { name: "Search" }).click();
    const entries = page.getByRole("list", { name: "Audit entries" }).getByRole("listitem");
    await expect.poll(async () => (await entries.allTextContents()).join(" | ")).toContain("webhooks.set");
    expect(await entries.count()).toBe(1);
    expect(await entries.first().getByRole("link", { name: shop.username }).count()).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
