// The console's Sub-accounts page changes a sub-account's price after creating it, in a real
// browser at 390 px (price audit 5): an owner picks a card or a markup, confirms it (Keep its price
// changes nothing), and a card below its own price is refused in words; a billing user is offered
// no such form. A card raised later that leaves a sub-account below the reseller's price (decision
// 0168) marks its row and names it above the list, and the operator's Price cards import says so
// when it saves the card. The axe check and no sideways scroll.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect, it } from "vitest";
import { parsePriceCsv, replacePriceCard, setAccountPriceCard } from "../../../src/domain/accounts/index.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  signInAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestGateway, useTestGateway } from "../../helpers/gateway.js";

const card = (t: TestGateway, name: string, rows: string) =>
  replacePriceCard(t.db.store, t.clock, name, parsePriceCsv(`channel,route,prefix,price\n${rows}`));

describeInBrowser("console in the browser: a sub-account's price", () => {
  const gateway = useTestGateway("sqlite", { roles: ["api"] });
  const browser = useBrowser();

  it("changes a sub-account's card or markup, confirmed, and marks one left below the reseller's price", async () => {
    const t = gateway();
    await card(t, "wholesale", "sms,*,*,0.5");
    await card(t, "cheap", "sms,*,*,0.4");
    await card(t, "retail", "sms,*,*,0.6");
    const reseller = await buildAccount(t, { credits: { sms: 500 } });
    await setAccountPriceCard(t.db.store, t.clock, reseller.username, "wholesale");
    const username = `shop_${Math.random().toString(36).slice(2, 8)}`;
    const made = await call(t, "POST", "/api/v2/subaccounts", {
      headers: { "x-api-key": reseller.apiKey },
      json: { username, password: "shop-password-1", markup_percent: 10 },
    });
    expect(made.status, made.text).toBe(201);
    const priced = async () =>
      (await call(t, "GET", "/api/v2/subaccounts", { headers: { "x-api-key": reseller.apiKey } })).body.data[0];

    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await signInAs(page, reseller.username, reseller.password, "/subaccounts");
    await page.getByTestId(`sub-${username}`).waitFor();
    const form = page.getByRole("form", { name: "Change a sub-account's price" });
    await form.getByLabel("Sub-account to price").selectOption(username);
    await page.getByText("Now: your price + 10 %").waitFor();

    // A card below its price: confirmed, then refused in words; nothing changed.
    await form.getByLabel("Priced by").selectOption("card");
    await form.getByLabel("Price card name").fill("cheap");
    await form.getByRole("button", { name: "Change the price" }).click();
    await page.getByTestId("price-change-confirm").waitFor();
    expect(await page.getByTestId("price-change-confirm").textContent()).toContain(
      `${username} is charged card cheap from its next send (now your price + 10 %).`,
    );
    await page.getByRole("button", { name: "Keep its price" }).click();
    expect(await page.getByTestId("price-change-confirm").count()).toBe(0);
    await form.getByRole("button", { name: "Change the price" }).click();
    await page.getByRole("button", { name: `Confirm: ${username} at card cheap` }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Price not changed.*below/s);
    expect((await priced()).markup_percent).toBe(10);

    await form.getByLabel("Price card name").fill("retail");
    await form.getByRole("button", { name: "Change the price" }).click();
    await page.getByRole("button", { name: `Confirm: ${username} at card retail` }).click();
    await page.getByText(`${username} is charged card retail from its next send.`).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await expect.poll(() => page.getByTestId(`price-${username}`).textContent()).toBe("card retail");
    expect((await priced()).price_card).toBe("retail");

    // The operator raises the reseller's card above retail: the row is marked, the sub-account named.
    await card(t, "wholesale", "sms,*,*,0.7");
    await page.reload();
    await page.getByTestId("subaccounts-below-parent").waitFor();
    expect(await page.getByTestId("subaccounts-below-parent").textContent()).toContain(
      `The sub-account ${username}'s card "retail" prices an SMS segment on route T to numbers no other prefix names (prefix *) at 0.6, below its parent ${reseller.username}'s price there (0.7)`,
    );
    expect(await page.getByTestId(`price-${username}`).textContent()).toBe("card retail below your price");
    await expectAccessible(page, "sub-accounts with one below the reseller's price");
    await expectNoHorizontalScroll(page, "sub-accounts with one below the reseller's price");

    // Back on a markup: the mark goes.
    await form.getByLabel("Sub-account to price").selectOption(username);
    await form.getByLabel("Priced by").selectOption("markup");
    await form.getByLabel("Markup on your price (%)").fill("20");
    await form.getByRole("button", { name: "Change the price" }).click();
    await page.getByRole("button", { name: `Confirm: ${username} at your price + 20 %` }).click();
    await expect.poll(() => page.getByTestId(`price-${username}`).textContent()).toBe("your price + 20 %");
    expect(await page.getByTestId("subaccounts-below-parent").count()).toBe(0);
    expect((await priced()).markup_percent).toBe(20);
    await expectNoHorizontalScroll(page, "sub-accounts after a price change");
    expect(problems).toEqual([]);
    await context.close();

    // A billing user reads the list and gives credits, but is offered no price change.
    const user = await call(t, "POST", "/api/v2/users", {
      headers: { "x-api-key": reseller.apiKey },
      json: { login: "bill", user_role: "billing", password: "bill-password-1" },
    });
    expect(user.status, user.text).toBe(201);
    const billing = await newPage(browser(), t.url, { width: 390, height: 844 });
    await billing.page.goto("/subaccounts");
    await billing.page.getByLabel("Username").fill(reseller.username);
    await billing.page.getByLabel("Your login").fill("bill");
    await billing.page.getByLabel("Password").fill("bill-password-1");
    await billing.page.getByRole("button", { name: "Sign in" }).click();
    await billing.page.getByTestId(`sub-${username}`).waitFor();
    expect(await billing.page.getByRole("form", { name: "Change a sub-account's price" }).count()).toBe(0);
    expect(billing.problems).toEqual([]);
    await billing.context.close();
  });

  it("names, on the operator's import, the sub-accounts a raised card leaves below their parent", async () => {
    const t = gateway();
    await card(t, "wholesale", "sms,*,*,0.5");
    await card(t, "retail", "sms,*,*,0.6");
    const reseller = await buildAccount(t);
    await setAccountPriceCard(t.db.store, t.clock, reseller.username, "wholesale");
    const username = `shop_${Math.random().toString(36).slice(2, 8)}`;
    const made = await call(t, "POST", "/api/v2/subaccounts", {
      headers: { "x-api-key": reseller.apiKey },
      json: { username, password: "shop-password-1", price_card: "retail" },
    });
    expect(made.status, made.text).toBe(201);
    const operator = await buildAccount(t, { role: "operator" });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "switchboard-below-"));
    const file = path.join(dir, "wholesale.csv");
    fs.writeFileSync(file, "channel,route,prefix,price\nsms,*,*,0.7\n");

    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await signInAs(page, operator.username, operator.password, "/operator/price-cards/wholesale");
    await page.getByLabel("CSV file").setInputFiles(file);
    await page.getByRole("button", { name: "Replace the rows of wholesale" }).click();
    await page.getByTestId("card-imported").waitFor();
    await page.getByTestId("card-below-parent").waitFor();
    expect(await page.getByTestId("card-below-parent").textContent()).toContain(
      `The sub-account ${username}'s card "retail" prices an SMS segment on route T to numbers no other prefix names (prefix *) at 0.6, below its parent ${reseller.username}'s price there (0.7)`,
    );
    // The reseller's account page says it too.
    await page.goto(`/operator/accounts/${reseller.username}`);
    await page.getByTestId("account-below-parent").waitFor();
    expect(await page.getByTestId("account-below-parent").textContent()).toContain(`The sub-account ${username}'s`);
    await expectAccessible(page, "an account with a sub-account below its price");
    await expectNoHorizontalScroll(page, "an account with a sub-account below its price");
    expect(problems).toEqual([]);
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
