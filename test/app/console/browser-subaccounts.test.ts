// The console's Sub-accounts page in a real browser, at phone width (360 px): a reseller creates
// a sub-account with a markup, gives it credits (issued, not taken from its own wallet), makes it
// an API key that works at once, suspends it (its key refused) and reactivates it, pages the list;
// takes credits back at 390 px (removed from the sub-account, not added to the reseller; more than
// it holds is refused in words); a support user sees the list without the controls its role would
// be refused, and opens a sub-account's messages from its row; a billing user gives credits (the
// list read under its role) but is offered no taking back; suspending and taking back ask for a
// confirmation first, and a success clears an earlier failure's notice (console audit C11, C12,
// C13); a reseller walks down its tree at 390 px (a row's count of sub-accounts opens theirs, read
// only, to a grandchild's; the trail leads back up; a name opens its messages; another tree's name
// is not found); the axe check and no sideways scroll.
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  signInAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, useTestGateway } from "../../helpers/gateway.js";
import { milli, resellerTree, subAccount } from "../../helpers/resellers.js";

describeInBrowser("console in the browser: sub-accounts", () => {
  const gateway = useTestGateway("sqlite", { roles: ["api"] });
  const browser = useBrowser();

  it("creates, funds and keys a sub-account at 360 px", async () => {
    const t = gateway();
    const reseller = await buildAccount(t, { credits: { sms: 500 } });
    const { page, context, problems } = await newPage(browser(), t.url, { width: 360, height: 800 });
    await signInAs(page, reseller.username, reseller.password, "/subaccounts");
    await page.getByRole("heading", { name: "Sub-accounts" }).waitFor();
    await page.getByText("Sub-accounts, oldest first").waitFor();

    const username = `shop_${Math.random().toString(36).slice(2, 8)}`;
    await page.getByLabel("Username", { exact: true }).fill(username);
    await page.getByLabel("Password", { exact: true }).fill("shop-password-1");
    await page.getByLabel("Markup (%)").fill("12.5");
    await page.getByRole("button", { name: "Create sub-account" }).click();
    await page.getByTestId(`sub-${username}`).waitFor();
    expect(await page.getByTestId(`sub-${username}`).textContent()).toContain("your price + 12.5 %");

    // A wrong amount is refused in words, with the API's code (a negative one the field itself refuses).
    await page.getByLabel("Sub-account", { exact: true }).selectOption(username);
    await page.getByLabel("Credits", { exact: true }).fill("0");
    await page.getByRole("button", { name: "Give credits" }).click();
    await page.getByRole("button", { name: /^Confirm: give / }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/Not given/);
    await page.getByLabel("Credits", { exact: true }).fill("40");
    await page.getByRole("button", { name: "Give credits" }).click();
    await page.getByRole("button", { name: /^Confirm: give / }).click();
    await page.getByText(/SMS wallet: 40 credits/).waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await expect.poll(() => page.getByTestId(`sub-${username}`).textContent()).toContain("40");
    expect(await milli(t, reseller.id)).toBe(500_000);
    // Every wallet given credits is in the list, not only SMS.
    await page.getByLabel("Wallet", { exact: true }).selectOption("whatsapp");
    await page.getByLabel("Credits", { exact: true }).fill("7");
    await page.getByRole("button", { name: "Give credits" }).click();
    await page.getByRole("button", { name: /^Confirm: give / }).click();
    await page.getByText(/WhatsApp wallet: 7 credits/).waitFor();
    await expect.poll(() => page.getByTestId(`credits-${username}`).textContent()).toBe("SMS 40 · WhatsApp 7");

    await page.getByRole("button", { name: `New key for ${username}` }).click();
    const key = (await page.getByTestId("new-sub-key").textContent()) ?? "";
    expect(key).toMatch(/^sb_/);
    const balance = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": key } });
    expect(balance.status).toBe(200);
    expect(balance.body.data.balance).toBe(40);

    // The sub-account's own Credits page names no card of its provider's (decision 0150).
    const own = await newPage(browser(), t.url, { width: 360, height: 800 });
    await signInAs(own.page, username, "shop-password-1", "/credits");
    await own.page.getByText("Your prices are set by your provider").waitFor();
    expect(await own.page.locator("main").textContent()).not.toMatch(/Price card|parent\+/);
    await own.context.close();

    await page.getByRole("button", { name: `Suspend ${username}` }).click();
    await page.getByText(`${username} and its own sub-accounts can send nothing until you reactivate it.`).waitFor();
    expect((await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": key } })).status).toBe(200);
    await page.getByRole("button", { name: `Confirm: suspend ${username}` }).click();
    await page.getByRole("button", { name: `Reactivate ${username}` }).waitFor();
    expect(await page.getByTestId(`sub-${username}`).textContent()).toMatch(/inactive/i);
    const refused = await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": key } });
    expect(refused.status, refused.text).toBe(403);
    await page.getByRole("button", { name: `Reactivate ${username}` }).click();
    await page.getByRole("button", { name: `Suspend ${username}` }).waitFor();
    expect((await call(t, "GET", "/api/v2/balance", { headers: { "x-api-key": key } })).status).toBe(200);

    await expectAccessible(page, "sub-accounts");
    await expectNoHorizontalScroll(page, "sub-accounts");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("takes credits back from a sub-account at 390 px", async () => {
    const t = gateway();
    const reseller = await buildAccount(t, { credits: { sms: 500 } });
    const username = `back_${Math.random().toString(36).slice(2, 8)}`;
    const headers = { "x-api-key": reseller.apiKey };
    const made = await call(t, "POST", "/api/v2/subaccounts", {
      headers,
      json: { username, password: "back-password-1" },
    });
    expect(made.status, made.text).toBe(201);
    const funded = await call(t, "POST", `/api/v2/subaccounts/${username}/credits`, {
      headers,
      json: { wallet: "sms", amount: 40 },
    });
    expect(funded.status, funded.text).toBe(200);
    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await signInAs(page, reseller.username, reseller.password, "/subaccounts");
    await page.getByTestId(`sub-${username}`).waitFor();

    await page.getByLabel("Sub-account", { exact: true }).selectOption(username);
    await page.getByLabel("Credits", { exact: true }).fill("55");
    await page.getByRole("button", { name: "Take back credits" }).click();
    await page.getByRole("button", { name: `Confirm: take 55 back from ${username}` }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toMatch(/Not taken back.*40 credits that can be taken back/s);
    await page.getByLabel("Credits", { exact: true }).fill("15");
    await page.getByRole("button", { name: "Take back credits" }).click();
    expect(await page.getByTestId("take-back-confirm").textContent()).toContain(
      `15 credits leave ${username}'s SMS wallet now`,
    );
    await expectNoHorizontalScroll(page, "sub-accounts, confirming a take-back");
    const subId = async () =>
      (
        await t.db.store.db
          .selectFrom("accounts")
          .select("id")
          .where("username", "=", username)
          .executeTakeFirstOrThrow()
      ).id;
    expect(await milli(t, await subId())).toBe(40_000);
    await page.getByRole("button", { name: `Confirm: take 15 back from ${username}` }).click();
    await page.getByText(/Took back 15: .*SMS wallet: 25 credits/).waitFor();
    await expect.poll(() => page.getByTestId(`sub-${username}`).textContent()).toContain("25");
    expect(await milli(t, reseller.id)).toBe(500_000);
    const sub = await t.db.store.db
      .selectFrom("accounts")
      .select("id")
      .where("username", "=", username)
      .executeTakeFirstOrThrow();
    expect(await milli(t, sub.id)).toBe(25_000);

    await expectAccessible(page, "sub-accounts after taking credits back");
    await expectNoHorizontalScroll(page, "sub-accounts after taking credits back");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("walks down the tree to a grandchild's sub-accounts and back up at 390 px, read only", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const sibling = await subAccount(t, mid);
    const great = await subAccount(t, leaf, { markup_percent: 5 });
    const otherSub = await subAccount(t, await buildAccount(t));
    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await signInAs(page, top.username, top.password, "/subaccounts");
    await page.getByTestId(`sub-${mid.username}`).waitFor();
    expect(await page.getByTestId(`subs-of-${mid.username}`).textContent()).toBe(`2 sub-accounts of ${mid.username}`);

    await page.getByRole("link", { name: `2 sub-accounts of ${mid.username}` }).click();
    await page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` }).waitFor();
    await page.getByTestId(`sub-${sibling.username}`).waitFor();
    expect(await page.getByTestId("subaccount-trail").textContent()).toBe(`Your sub-accounts › ${mid.username}`);
    expect(await page.getByTestId(`price-${leaf.username}`).textContent()).toBe(`${mid.username}'s price + 12.5 %`);
    expect(await page.getByTestId(`credits-${leaf.username}`).textContent()).toBe("SMS 100");
    expect(await page.getByTestId(`subs-of-${sibling.username}`).textContent()).toBe("none");
    // Managed by their own parent: no form or button of the reseller's own list.
    expect(await page.getByRole("form").count()).toBe(0);
    expect(await page.getByRole("button", { name: /Suspend|Reactivate|New key|Give credits|Take back/ }).count()).toBe(
      0,
    );
    await expectAccessible(page, "a sub-account's sub-accounts");
    await expectNoHorizontalScroll(page, "a sub-account's sub-accounts");

    await page.getByRole("link", { name: `1 sub-account of ${leaf.username}` }).click();
    await page.getByRole("heading", { name: `Sub-accounts of ${leaf.username}` }).waitFor();
    await page.getByTestId(`sub-${great.username}`).waitFor();
    expect(await page.getByTestId("subaccount-trail").textContent()).toBe(
      `Your sub-accounts › ${mid.username} › ${leaf.username}`,
    );
    expect(await page.getByTestId(`price-${great.username}`).textContent()).toBe(`${leaf.username}'s price + 5 %`);
    await expectAccessible(page, "a grandchild's sub-accounts");
    await expectNoHorizontalScroll(page, "a grandchild's sub-accounts");
    // The grandchild's own messages, from its row's name and from the line above the table.
    await page.getByRole("link", { name: `${leaf.username}'s messages` }).click();
    await page.getByRole("heading", { name: `Messages of ${leaf.username}` }).waitFor();
    await page.getByText("No messages match.").waitFor();
    await page.goBack();
    await page.getByTestId(`sub-${great.username}`).getByRole("link", { name: great.username, exact: true }).click();
    await page.getByRole("heading", { name: `Messages of ${great.username}` }).waitFor();
    await page.goBack();

    await page.getByTestId("subaccount-trail").getByRole("link", { name: mid.username }).click();
    await page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` }).waitFor();
    await page.getByTestId("subaccount-trail").getByRole("link", { name: "Your sub-accounts" }).click();
    await page.getByRole("heading", { name: "Sub-accounts", exact: true }).waitFor();
    await page.getByTestId(`sub-${mid.username}`).waitFor();
    expect(problems).toEqual([]);

    // Another tree's account is not found, its sub-accounts never listed.
    await page.goto(`/subaccounts?subaccount=${otherSub.username}`);
    await expect
      .poll(async () => (await page.getByRole("alert").textContent()) ?? "")
      .toContain(`No sub-account named "${otherSub.username}"`);
    expect(await page.locator("table").count()).toBe(0);
    await expectNoHorizontalScroll(page, "another tree's sub-accounts");
    await context.close();
  });

  it("shows a support user the list only: no create, credits or key controls it would be refused (audit row 16)", async () => {
    const t = gateway();
    const reseller = await buildAccount(t, { credits: { sms: 500 } });
    const sub = await call(t, "POST", "/api/v2/subaccounts", {
      headers: { "x-api-key": reseller.apiKey },
      json: { username: `kid_${Math.random().toString(36).slice(2, 8)}`, password: "kid-password-1" },
    });
    expect(sub.status, sub.text).toBe(201);
    const user = await call(t, "POST", "/api/v2/users", {
      headers: { "x-api-key": reseller.apiKey },
      json: { login: "sue", user_role: "support", password: "sue-password-1" },
    });
    expect(user.status, user.text).toBe(201);
    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await page.goto("/subaccounts");
    await page.getByLabel("Username").fill(reseller.username);
    await page.getByLabel("Your login").fill("sue");
    await page.getByLabel("Password").fill("sue-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sub-accounts" }).waitFor();
    await page.getByTestId(`sub-${sub.body.data.username}`).waitFor();
    await page.getByTestId("subaccounts-read-only").waitFor();
    expect(await page.getByRole("form", { name: "Create a sub-account" }).count()).toBe(0);
    expect(await page.getByRole("form", { name: "Give credits to a sub-account" }).count()).toBe(0);
    expect(
      await page
        .getByRole("button", { name: /Create sub-account|Give credits|Take back|New key for|Suspend|Reactivate/ })
        .count(),
    ).toBe(0);
    // The sub-account's name opens its messages (GET /api/v2/messages?subaccount=).
    await page.getByRole("link", { name: sub.body.data.username, exact: true }).click();
    await page.getByRole("heading", { name: `Messages of ${sub.body.data.username}` }).waitFor();
    await page.getByText("No messages match.").waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await expectNoHorizontalScroll(page, "a sub-account's messages");
    await page.goBack();
    await page.getByTestId(`sub-${sub.body.data.username}`).waitFor();
    await expectAccessible(page, "sub-accounts of a support user");
    await expectNoHorizontalScroll(page, "sub-accounts of a support user");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a billing user reads the list and gives credits, with no taking back (console audit C11)", async () => {
    const t = gateway();
    const reseller = await buildAccount(t, { credits: { sms: 500 } });
    const username = `paid_${Math.random().toString(36).slice(2, 8)}`;
    const headers = { "x-api-key": reseller.apiKey };
    const made = await call(t, "POST", "/api/v2/subaccounts", {
      headers,
      json: { username, password: "paid-password-1" },
    });
    expect(made.status, made.text).toBe(201);
    const user = await call(t, "POST", "/api/v2/users", {
      headers,
      json: { login: "bill", user_role: "billing", password: "bill-password-1" },
    });
    expect(user.status, user.text).toBe(201);
    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await page.goto("/");
    await page.getByLabel("Username").fill(reseller.username);
    await page.getByLabel("Your login").fill("bill");
    await page.getByLabel("Password").fill("bill-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sub-accounts" }).click();
    await page.getByTestId(`sub-${username}`).waitFor();
    expect(await page.getByRole("form", { name: "Create a sub-account" }).count()).toBe(0);
    expect(await page.getByRole("button", { name: /Take back|Suspend|New key for/ }).count()).toBe(0);
    await page.getByLabel("Sub-account", { exact: true }).selectOption(username);
    await page.getByLabel("Credits", { exact: true }).fill("30");
    await page.getByRole("button", { name: "Give credits" }).click();
    await page.getByRole("button", { name: /^Confirm: give / }).click();
    await page.getByText(`${username}'s SMS wallet: 30 credits.`).waitFor();
    await expect.poll(() => page.getByTestId(`credits-${username}`).textContent()).toBe("SMS 30");
    await expectAccessible(page, "sub-accounts of a billing user");
    await expectNoHorizontalScroll(page, "sub-accounts of a billing user");
    expect(problems).toEqual([]);
    await context.close();
  });
});
