// The log of refusals in a real browser, at phone width (390 px): the account's Refusals page
// shows its refused sends with the answer each family gave (a v2 422 and a legacy -5), filters by
// error code; the operator's page lists them under the account's name and finds the
// unauthenticated ones, and by the username a wrong password named; a customer does not reach the operator's page. axe on both pages.
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
import { legacy, sendParams } from "../../helpers/legacy.js";

describeInBrowser("console in the browser: the log of refusals", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    const v2 = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      json: { sender_id: "SWBRD", recipient: "98765", message: "a number too short" },
    });
    expect(v2.status).toBe(422);
    expect((await legacy(t, "/httpapi/send", sendParams(shop, { sender_id: "NOSUCH" }))).text).toMatch(/^-\d+$/);
    const unknown = await call(t, "POST", "/api/v2/sms/send", {
      headers: { authorization: "Bearer sb_not_a_key" },
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "who" },
    });
    expect(unknown.status).toBe(401);
    const wrongPassword = { ...sendParams(shop), username: shop.username.toUpperCase(), password: "not-it" };
    expect((await legacy(t, "/httpapi/send", wrongPassword)).text).toBe("-7");
    await t.gateway.ctx.refusals.flush();
  });

  it("shows the account its refusals, with the answers given, at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(browser(), gateway().url, shop, "/refusals");
    await page.getByRole("heading", { name: "Refusals" }).waitFor();
    await noneLoading(page);
    const cards = page.getByRole("list", { name: "Refused sends" }).getByRole("listitem");
    await expect.poll(() => cards.count()).toBe(2);
    const text = (await page.getByRole("list", { name: "Refused sends" }).textContent()) ?? "";
    expect(text).toContain("422 invalid_recipient");
    expect(text).toContain("POST /api/v2/sms/send");
    expect(text).toContain("98765");
    expect(text).toMatch(/GET \/httpapi\/send/);
    await expectNoHorizontalScroll(page, "refusals page");
    await expectAccessible(page, "refusals page");

    await page.getByLabel("Error code").fill("invalid_recipient");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => cards.count()).toBe(1);
    expect(await cards.first().textContent()).toContain("a number too short");

    // Not the operator's page.
    await page.goto("/operator/refusals");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the operator every account's, and the unauthenticated ones, at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(
      browser(),
      gateway().url,
      operator,
      `/operator/refusals?account=${shop.username}`,
    );
    await page.getByRole("heading", { name: "Refusals" }).waitFor();
    await noneLoading(page);
    const list = page.getByRole("list", { name: "Refused sends" });
    await expect.poll(() => list.getByRole("listitem").count()).toBe(2);
    expect(await list.getByRole("link", { name: shop.username }).count()).toBe(2);
    await expectNoHorizontalScroll(page, "operator refusals page");
    await expectAccessible(page, "operator refusals page");

    await page.getByRole("searchbox", { name: "Account" }).fill("-");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(async () => (await list.textContent()) ?? "").toContain("401 unauthorized");
    expect(await list.textContent()).toContain("not authenticated");

    await page.getByRole("searchbox", { name: "Username" }).fill(shop.username);
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => list.getByRole("listitem").count()).toBe(1);
    expect(await list.textContent()).toContain(`not authenticated as ${shop.username.toUpperCase()}`);
    expect(await list.textContent()).toContain("-7");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
