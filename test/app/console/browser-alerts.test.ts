// The console's Alerts page in a real browser, as the operator on a 390 px phone: settings saved
// from the form (a bad value refused with its reason, nothing saved), a low-balance alert raised
// by the worker and shown, then cleared after a top-up and gone from the page; axe clean, no
// sideways scroll. On an account's page, the operator sets its price card and its own
// low-balance threshold (a bad one refused), which raises the alert for that account alone.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  noneLoading,
  signInAs,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: alerts", () => {
  const gateway = useTestGateway("sqlite", { env: { ALERT_CHECK_SECONDS: "1" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let poor: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    poor = await buildAccount(t, { credits: { sms: 5 } });
  });

  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(json !== undefined ? { json } : {}),
    });

  it("saves the settings, shows a low-balance alert raised and then cleared, at 390 px", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await signInAs(page, operator.username, operator.password, "/operator/alerts");
    await page.getByRole("heading", { name: "Alerts" }).waitFor();
    await noneLoading(page);
    await page.getByTestId("alerts-none").waitFor();
    await expectAccessible(page, "alerts page");
    await expectNoHorizontalScroll(page, "alerts page");

    // A delivery rate of 0 % is refused, and nothing is saved.
    await page.getByLabel("Delivery rate below (%)").fill("0");
    await page.getByRole("button", { name: "Save alert settings" }).click();
    await page.getByText("Not saved").waitFor();
    expect((await admin("GET", "/alerts")).body.data.delivery_rate.percent).toBe(50);

    await page.getByLabel("Delivery rate below (%)").fill("80");
    await page.getByLabel("Low balance threshold (credits)").fill("10");
    await page.getByLabel("Connector down for (seconds)").fill("120");
    await page.getByLabel("Alert email").fill("ops@example.org");
    await page.getByRole("button", { name: "Save alert settings" }).click();
    await page.getByText("Saved.").waitFor();
    expect((await admin("GET", "/alerts")).body.data).toMatchObject({
      email: "ops@example.org",
      low_balance: { enabled: true, threshold: 10 },
      connector_down: { seconds: 120 },
      delivery_rate: { percent: 80, messages: 100 },
    });

    // The account with 5 credits is below 10: raised by the worker, shown within a refresh.
    const alert = page.getByTestId("alert").filter({ hasText: poor.username });
    await alert.waitFor({ timeout: 15_000 });
    await expect.poll(() => alert.textContent()).toContain("below its threshold of 10");
    await expectAccessible(page, "alerts page with an alert");
    await expectNoHorizontalScroll(page, "alerts page with an alert");

    const topUp = await admin("POST", `/accounts/${poor.username}/credits`, { wallet: "sms", amount: 20 });
    expect(topUp.status).toBe(200);
    await alert.waitFor({ state: "detached", timeout: 15_000 });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("sets an account's price card and its own low-balance threshold from its page, at 390 px", async () => {
    const rich = await buildAccount(gateway(), { credits: { sms: 50 } });
    const card = await admin("PUT", "/price-cards/retail", {
      rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.25 }],
    });
    expect(card.status).toBe(200);
    const { page, context, problems } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await signInAs(page, operator.username, operator.password, `/operator/accounts/${rich.username}`);
    await page.getByRole("heading", { name: `Account ${rich.username}` }).waitFor();
    await noneLoading(page);
    await expectAccessible(page, "account page");
    await expectNoHorizontalScroll(page, "account page");

    await page.getByLabel("Price card").selectOption("retail");
    await page.getByRole("button", { name: "Set the price card" }).click();
    await page.getByText("Priced by retail from the next send.").waitFor();
    expect((await admin("GET", `/accounts/${rich.username}`)).body.data.price_card).toBe("retail");
    const quote = await call(gateway(), "GET", "/api/v2/pricing?channel=sms&route=T&recipient=9876543210", {
      headers: { authorization: `Bearer ${rich.apiKey}` },
    });
    expect(quote.body.data).toMatchObject({ price: 0.25, prefix: "91" });

    // A negative threshold is refused and nothing is saved.
    await page.getByLabel("Alert below (credits)").fill("-5");
    await page.getByRole("button", { name: "Set the threshold" }).click();
    await page.getByText("Not saved").waitFor();
    const unset = await admin("GET", `/accounts/${rich.username}/low-balance-threshold`);
    expect(unset.body.data.threshold).toBeNull();

    // 50 credits is below its own 100: raised for this account only, then back to the default.
    await page.getByLabel("Alert below (credits)").fill("100");
    await page.getByRole("button", { name: "Set the threshold" }).click();
    await page.getByText("alerted when the SMS wallet falls below 100 credits").waitFor();
    expect((await admin("GET", `/accounts/${rich.username}/low-balance-threshold`)).body.data).toMatchObject({
      wallet: "sms",
      threshold: 100,
    });
    await expect
      .poll(async () => (await admin("GET", "/alerts")).body.data.active.map((a: { detail: string }) => a.detail), {
        timeout: 15_000,
      })
      .toContainEqual(expect.stringContaining(`${rich.username}'s sms balance is 50 credits`));
    await page.getByRole("button", { name: "Use the default" }).click();
    await page.getByText("none of its own").waitFor();
    expect((await admin("GET", `/accounts/${rich.username}/low-balance-threshold`)).body.data.threshold).toBeNull();
    await expectAccessible(page, "account page after the changes");

    // A sub-account is priced by its parent until it has a card of its own: the form says so,
    // offers it first (then the built-in default, decision 0165), and saves it back as no card; a
    // card clears its markup.
    const sub = `${rich.username}_sub`;
    const made = await admin("POST", "/accounts", {
      username: sub,
      password: "longenough",
      parent: rich.username,
      markup_percent: 10,
    });
    expect(made.status, made.text).toBe(201);
    await visit(page, `/operator/accounts/${sub}`);
    const select = page.getByLabel("Price card");
    expect(await select.inputValue()).toBe("parent+10%");
    await page.getByText(`the parent ${rich.username}'s price plus 10 %`).waitFor();
    expect(await select.locator("option").allTextContents()).toEqual(["parent+10%", "default", "retail"]);
    await select.selectOption("retail");
    await page.getByRole("button", { name: "Set the price card" }).click();
    await page.getByText("Priced by retail from the next send.").waitFor();
    await select.selectOption("parent+0%");
    await page.getByRole("button", { name: "Set the price card" }).click();
    await page.getByText("Priced by parent+0% from the next send.").waitFor();
    const stored = await gateway()
      .db.store.db.selectFrom("accounts")
      .select("price_card")
      .where("username", "=", sub)
      .executeTakeFirstOrThrow();
    expect(stored.price_card).toBeNull();
    await expectNoHorizontalScroll(page, "a sub-account's page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
