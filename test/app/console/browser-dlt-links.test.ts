// The console in a real browser at 390 px (a phone), as the operator: an account's DLT links and
// callback numbers on its page — one added, a malformed one refused in words, the account's
// pending request approved in place (and in the approval queue's kinds), one removed — with
// axe and no sideways scroll.
import { beforeAll, expect, it } from "vitest";
import { addDltEntity, addDltHeader } from "../../../src/domain/accounts/index.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { keyOf } from "../../helpers/sms.js";

const ENTITY = "1101160000000000051";

describeInBrowser("console in the browser: DLT links and callback numbers", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { dltScrubbing: true });
    await addDltEntity(t.db.store.db, t.clock, shop.id, ENTITY);
    await addDltHeader(t.db.store.db, t.clock, shop.id, "SWBRD");
  });

  it("adds, approves and removes an account's links and numbers at 390 px", async () => {
    const t = gateway();
    const asked = await call(t, "POST", "/api/v2/dlt/urls", {
      headers: keyOf(shop),
      json: { entity_id: ENTITY, url: "https://app.example.com/get" },
    });
    expect(asked.status, asked.text).toBe(201);

    const { page, context, problems } = await phonePageAs(
      browser(),
      t.url,
      operator,
      `/operator/accounts/${shop.username}`,
    );
    const urls = page.getByTestId("dlt-urls");
    await urls.getByText("app.example.com/get", { exact: true }).waitFor();
    await noneLoading(page);
    await expectNoHorizontalScroll(page, "account page with DLT links");
    await expectAccessible(page, "account page with DLT links");

    // The account's request, approved in place.
    await urls.getByRole("button", { name: "Approve app.example.com/get" }).click();
    await expect.poll(() => urls.locator("li", { hasText: "app.example.com/get" }).textContent()).toContain("approved");

    // The operator's own, approved at once; a malformed one refused in words.
    await urls.getByLabel("Link to add").fill("not a url");
    await urls.getByRole("button", { name: "Add link" }).click();
    await expect.poll(() => urls.getByRole("alert").textContent()).toContain("is not a URL DLT can white-list");
    await urls.getByLabel("Link to add").fill("https://www.Example.com/offers/");
    await urls.getByRole("button", { name: "Add link" }).click();
    await urls.getByText("example.com/offers/", { exact: true }).waitFor();

    const callbacks = page.getByTestId("dlt-callbacks");
    await callbacks.getByLabel("Callback number to add").fill("1800-123-4567");
    await callbacks.getByRole("button", { name: "Add callback number" }).click();
    await callbacks.getByText("18001234567", { exact: true }).waitFor();
    await expectNoHorizontalScroll(page, "account page with DLT lists filled");

    await urls.getByRole("button", { name: "Remove example.com/offers/" }).click();
    await urls.getByRole("button", { name: "Confirm: remove example.com/offers/" }).click();
    await expect.poll(() => urls.getByText("example.com/offers/", { exact: true }).count()).toBe(0);

    const listed = await call(t, "GET", `/admin/api/accounts/${shop.username}/dlt/urls`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(listed.body.data.map((l: { url: string; status: string }) => [l.url, l.status])).toEqual([
      ["app.example.com/get", "approved"],
    ]);

    // The approval queue names the new kinds.
    await page.goto("/operator/approvals");
    await page.getByRole("heading", { name: "Approvals" }).waitFor();
    await noneLoading(page);
    expect(await page.getByLabel("Show").locator("option").allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining("DLT link"), expect.stringContaining("DLT callback number")]),
    );
    await expectNoHorizontalScroll(page, "approvals page");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
