// The console in a real browser, as the operator: accounts (search, onboarding with the key shown
// once, top-up, limits, block and activate), the one approval queue (a template approved, then
// the account sends with it), carriers with live health (disabled and enabled again), the system
// view refreshing itself; a customer never reaches these pages. axe and 360 px on every page.
import { beforeAll, expect, it } from "vitest";
import { addDltEntity, addDltHeader } from "../../../src/domain/accounts/index.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  openSignedIn,
  sendersListed,
  signInAs,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: operator", () => {
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    // DLT scrubbing on, entity and header white-listed: a transactional SMS needs an approved template.
    shop = await buildAccount(t, { credits: { sms: 50 }, dltScrubbing: true });
    await addDltEntity(t.db.store.db, t.clock, shop.id, "1101160000000000001");
    await addDltHeader(t.db.store.db, t.clock, shop.id, "SWBRD");
    const carrier = await call(t, "POST", "/admin/api/carriers", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      json: {
        name: "aggregator-one",
        type: "http-sms",
        method: "GET",
        url: "http://127.0.0.1:9/send?to={to}&text={text}",
        auth: { type: "none" },
        response: { type: "json", id_path: "id" },
        timeout_ms: 2_000,
        max_connections: 2,
        rate_per_second: 10,
      },
    });
    expect(carrier.status, carrier.text).toBe(201);
  });

  it("searches and onboards accounts, tops one up, changes its limits and blocks and activates it", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    // Through the form: an operator signed in at the overview is taken to the accounts.
    await signInAs(page, operator.username, operator.password);
    await page.getByRole("heading", { name: "Accounts" }).waitFor();
    await expect.poll(() => page.getByTestId("accounts").locator("tbody tr").count()).toBeGreaterThanOrEqual(2);
    await page.getByLabel("Username contains").fill(shop.username.toUpperCase());
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.getByTestId("accounts").locator("tbody tr").count()).toBe(1);
    await expectAccessible(page, "operator accounts page");

    await page.getByLabel("Username", { exact: true }).fill("newshop");
    await page.getByLabel("Password", { exact: true }).fill("password-123");
    await page.getByLabel("SMS credits").fill("25");
    await page.getByLabel("Sender IDs (approved at once)").fill("NEWSHP");
    await page.getByRole("button", { name: "Create account" }).click();
    const key = (await page.getByTestId("new-account-key").textContent()) ?? "";
    expect(key).toMatch(/^sb_/);
    const balance = await call(gateway(), "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${key}` } });
    expect(balance.body.data.wallets.sms).toBe(25);

    await page.getByRole("link", { name: "newshop" }).click();
    await page.getByRole("heading", { name: "Account newshop" }).waitFor();
    await page.getByLabel("Credits to add").fill("10.5");
    await page.getByRole("button", { name: "Add credits" }).click();
    // A top-up waits for its confirmation (console audit 2).
    await page.getByRole("button", { name: "Confirm: add 10.5 credits to newshop" }).click();
    await expect.poll(() => page.getByTestId("operator-wallet-sms").textContent()).toContain("35.5");
    // The ledger shows the top-up, newest first, with the balance it left.
    const ledger = page.getByRole("table", { name: "The last 500 entries, newest first" });
    await expect.poll(() => ledger.locator("tbody tr").first().textContent()).toMatch(/sms.*10\.5.*35\.5/);
    await page.getByLabel("SMS per day (flood limit)").fill("500");
    await page.getByRole("checkbox", { name: "I", exact: true }).check();
    await page.getByRole("button", { name: "Save limits and routes" }).click();
    await page.getByText("Saved; it applies to the next request.").waitFor();
    await page.getByRole("button", { name: "Block newshop" }).click();
    await page.getByRole("button", { name: "Confirm: block newshop" }).click();
    await page.getByRole("button", { name: "Activate newshop" }).waitFor();
    const blocked = await call(gateway(), "GET", "/api/v2/balance", { headers: { authorization: `Bearer ${key}` } });
    expect(blocked.body.error.code).toBe("account_inactive");
    await page.getByRole("button", { name: "Activate newshop" }).click();
    await page.getByRole("button", { name: "Block newshop" }).waitFor();
    const detail = await call(gateway(), "GET", "/admin/api/accounts/newshop", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(detail.body.data).toMatchObject({ status: "active", flood_limit: 500, routes: ["T", "P", "I"] });
    await expectAccessible(page, "operator account page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("approves a template from the queue, and the account then sends with it", async () => {
    const customer = await newPage(browser(), gateway().url);
    await openSignedIn(customer.page, shop.username, shop.password, "/templates");
    await customer.page.getByLabel("Template name").fill("otp");
    await customer.page.getByLabel("Content").fill("Your OTP is {#var#}. Do not share it.");
    await customer.page.getByLabel("DLT template ID").fill("1107160000000000042");
    await customer.page.getByRole("button", { name: "Register template" }).click();
    await customer.page.getByText("waits for the operator's approval").waitFor();
    await expectAccessible(customer.page, "templates page");

    // Not approved yet: the send is refused, in words and with its code.
    await customer.page.goto("/send");
    await customer.page.getByLabel("To", { exact: true }).fill("9876543210");
    await customer.page.getByLabel("Message").fill("Your OTP is 4321. Do not share it.");
    await sendersListed(customer.page);
    await customer.page.getByRole("button", { name: "Send SMS" }).click();
    const refusal = customer.page.getByRole("alert");
    await expect.poll(() => refusal.locator(".error-code").textContent()).toBe("dlt_template_mismatch");

    const op = await newPage(browser(), gateway().url);
    await openSignedIn(op.page, operator.username, operator.password);
    await op.page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Approvals" }).click();
    await op.page.getByRole("heading", { name: "Approvals" }).waitFor();
    await op.page.getByLabel("Show").selectOption("template");
    const row = op.page.getByTestId("approvals").locator("tr", { hasText: shop.username });
    await row.waitFor();
    expect(await row.textContent()).toContain("Your OTP is {#var#}");
    await expectAccessible(op.page, "approvals page");
    await row.getByRole("button", { name: "Approve otp" }).click();
    await op.page.getByText(`Template otp of ${shop.username} approved.`).waitFor();
    await expect.poll(() => op.page.getByTestId("approvals").locator("tbody tr").count()).toBe(0);

    await customer.page.reload();
    await customer.page.getByLabel("DLT template").selectOption({ label: "otp (1107160000000000042)" });
    await customer.page.getByLabel("Variable 1").fill("4321");
    expect(await customer.page.getByLabel("Message").inputValue()).toBe("Your OTP is 4321. Do not share it.");
    await customer.page.getByLabel("To", { exact: true }).fill("9876543210");
    await sendersListed(customer.page);
    await customer.page.getByRole("button", { name: "Send SMS" }).click();
    await customer.page.getByTestId("sent-link").click();
    await expect
      .poll(() => customer.page.getByTestId("message-status").textContent(), { timeout: 20_000 })
      .toBe("delivered");
    expect(customer.problems).toEqual([]);
    expect(op.problems).toEqual([]);
    await customer.context.close();
    await op.context.close();
  }, 90_000);

  it("shows carriers with their health and disables and enables one; the system view refreshes itself", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await openSignedIn(page, operator.username, operator.password, "/operator/carriers");
    const row = page.getByTestId("carrier-aggregator-one");
    await row.waitFor();
    expect(await row.textContent()).toContain("enabled");
    await expectAccessible(page, "carriers page");
    await row.getByRole("button", { name: "Disable aggregator-one" }).click();
    await row.getByRole("button", { name: "Enable aggregator-one" }).waitFor();
    const carrier = await call(gateway(), "GET", "/admin/api/carriers/aggregator-one", {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(carrier.body.data.enabled).toBe(false);
    await row.getByRole("button", { name: "Enable aggregator-one" }).click();
    await row.getByRole("button", { name: "Disable aggregator-one" }).waitFor();

    await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "System" }).click();
    await page.getByRole("heading", { name: "System" }).waitFor();
    await page
      .getByTestId("system-connectors")
      .getByRole("rowheader", { name: "simulator", exact: true })
      .waitFor({ timeout: 15_000 });
    const first = await page.getByTestId("system-updated").textContent();
    await expect.poll(() => page.getByTestId("system-updated").textContent(), { timeout: 10_000 }).not.toBe(first);
    await expectAccessible(page, "system page");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("works at 360 px wide", async () => {
    const { page, context } = await newPage(browser(), gateway().url, { width: 360, height: 740 });
    await openSignedIn(page, operator.username, operator.password);
    for (const path of [
      "/operator/accounts",
      `/operator/accounts/${shop.username}`,
      "/operator/approvals",
      "/operator/carriers",
      "/operator/system",
    ]) {
      await visit(page, path);
      await expectNoHorizontalScroll(page, path);
    }
    await context.close();
  }, 60_000);

  it("keeps a customer out of the operator pages and API", async () => {
    const { page, context } = await newPage(browser(), gateway().url);
    await openSignedIn(page, shop.username, shop.password);
    expect(await page.getByRole("navigation", { name: "Operator" }).count()).toBe(0);
    await page.goto("/operator/approvals");
    await page.getByRole("heading", { name: "Not found" }).waitFor();
    const refused = (await page.evaluate(async () => {
      const response = await fetch("/admin/api/approvals");
      return { status: response.status, body: await response.json() };
    })) as { status: number; body: { error: { code: string } } };
    expect(refused).toMatchObject({ status: 403, body: { error: { code: "operator_only" } } });
    await context.close();
  });
});
