// What a read-only or a billing user is offered, at phone width (console audit C2, C10): a support
// user reads Contacts, Templates, Registrations and Inbound without the forms the API would refuse
// (a note says whose they are); a billing user's Overview shows the balances and a link to Credits,
// with no traffic it may not read and no error. Then (console audit 3-6): support, billing and
// developer are not offered the account-wide two-factor requirement (disabled, with who may); a
// developer is offered no Change or Revoke of a key with scopes beyond its role's, and a revoke's
// error goes at the next success; a support user's message page asks nothing of the webhook
// settings (developer only); a billing user opening a message's or a group's URL is told the page
// is not for its role, as on their lists.

import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  useConsole,
  visit,
} from "../../helpers/browser.js";
import { addConsoleUser, signInAsConsoleUser } from "../../helpers/console.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";
import { sendSms } from "../../helpers/sms.js";

describeInBrowser("console in the browser: pages as a support and a billing user", () => {
  const { gateway, page: newPage } = useConsole();
  let owner: TestAccount;

  beforeAll(async () => {
    owner = await buildAccount(gateway());
    for (const [login, user_role] of [
      ["sue", "support"],
      ["bill", "billing"],
      ["dev", "developer"],
    ] as const) {
      await addConsoleUser(gateway(), owner, login, user_role, { signIn: false });
    }
  });

  it("a support user reads Contacts, Templates, Registrations and Inbound with no create form", async () => {
    const { page, context, problems } = await newPage();
    await signInAsConsoleUser(page, owner.username, "sue");
    for (const [path, what] of [
      ["/contacts", "making groups and uploading contacts"],
      ["/templates", "registering a template"],
      ["/registrations", "asking for a registration"],
      ["/inbound", "registering a keyword"],
    ] as const) {
      await visit(page, path);
      const note = page.getByTestId("role-note");
      expect(await note.textContent()).toBe(
        `Your role (support) reads this page; ${what} is for owner, admin or developer users.`,
      );
      expect(await page.locator("main form input, main form textarea").count(), path).toBe(0);
      expect(await page.getByRole("button", { name: /Create|Register|Ask for approval|Delete/ }).count(), path).toBe(0);
      expect(await page.getByRole("alert").count(), path).toBe(0);
      await expectAccessible(page, `${path} as support`);
      await expectNoHorizontalScroll(page, `${path} as support`);
    }
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a billing user's Overview shows the balances and no traffic it may not read", async () => {
    const { page, context, problems } = await newPage();
    await signInAsConsoleUser(page, owner.username, "bill");
    await page.getByTestId("wallet-sms").waitFor();
    expect(await page.getByTestId("wallet-sms").textContent()).toContain("1,000");
    expect(await page.getByRole("heading", { name: "Traffic" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Last 24 hours" }).count()).toBe(0);
    expect(await page.getByRole("alert").count()).toBe(0);
    const main = page.locator("main");
    expect(await main.getByRole("link", { name: /See every message|Send an SMS/ }).count()).toBe(0);
    expect(await main.textContent()).toContain("Your role (billing) does not read messages");
    await main.getByRole("link", { name: "Credits" }).click();
    await page.getByRole("heading", { name: "Credits", exact: true }).waitFor();
    // Billing has no Messages page but may export the messages (console audit C11).
    const exported = page
      .locator(".export-links", { hasText: "Export every message" })
      .getByRole("link", { name: "CSV" });
    const href = (await exported.getAttribute("href")) ?? "";
    expect(href).toBe("/api/v2/messages/export?format=csv");
    expect((await page.request.get(href)).status()).toBe(200);
    await visit(page, "/");
    await expectAccessible(page, "overview as billing");
    await expectNoHorizontalScroll(page, "overview as billing");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("support, billing and developer see the account's two-factor requirement disabled, saying who sets it", async () => {
    for (const login of ["sue", "bill", "dev"]) {
      const { page, context, problems } = await newPage();
      await signInAsConsoleUser(page, owner.username, login);
      await visit(page, "/settings/two-factor");
      const box = page.getByRole("checkbox", { name: "Require two-factor sign-in for every login of this account" });
      await box.waitFor();
      expect(await box.isDisabled(), login).toBe(true);
      expect(await page.getByTestId("role-note").textContent(), login).toContain("is for owner or admin users");
      await expectNoHorizontalScroll(page, `two-factor as ${login}`);
      expect(problems, login).toEqual([]);
      await context.close();
    }
  });

  it("a developer is offered no Change or Revoke of a key that moves money; a revoke's error goes at a success", async () => {
    const billingKey = await call(gateway(), "POST", "/api/v2/keys", {
      headers: { authorization: `Bearer ${owner.apiKey}` },
      json: { name: "money", scopes: ["billing"] },
    });
    expect(billingKey.status, billingKey.text).toBeLessThan(300);
    const prefix = billingKey.body.data.prefix as string;
    const { page, context, problems } = await newPage();
    await signInAsConsoleUser(page, owner.username, "dev");
    await visit(page, "/settings/keys");
    const row = page.locator("tr", { hasText: prefix });
    await row.getByTestId("key-not-yours").waitFor();
    expect(await row.getByRole("button").count()).toBe(0);
    // Its own key: a refused revoke's notice goes once a key is made.
    await page.getByLabel("Name of the new key").fill("mine");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByTestId("new-key").waitFor();
    await page.route("**/api/v2/keys/*", (route) =>
      route.fulfill({
        status: 409,
        contentType: "application/json",
        body: JSON.stringify({ success: false, message: "Busy.", error: { code: "conflict" } }),
      }),
    );
    const mine = page.locator("tr", { hasText: "mine" });
    await mine.getByRole("button", { name: /^Revoke / }).click();
    await mine.getByRole("button", { name: /^Confirm: revoke / }).click();
    await page.getByRole("alert").filter({ hasText: "Not revoked" }).waitFor();
    await page.unroute("**/api/v2/keys/*");
    await page.getByLabel("Name of the new key").fill("another");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => page.getByRole("alert").filter({ hasText: "Not revoked" }).count()).toBe(0);
    await expectNoHorizontalScroll(page, "keys as developer");
    expect(problems.filter((p) => !p.includes("409"))).toEqual([]);
    await context.close();
  });

  it("a support user's message page does not read the webhook settings; billing may not open a message or a group", async () => {
    const sent = await sendSms(gateway(), owner, { sender_id: "SWBRD", recipient: "9876543110", message: "hi" });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    const support = await newPage();
    const asked: string[] = [];
    support.page.on("request", (request) => asked.push(new URL(request.url()).pathname));
    await signInAsConsoleUser(support.page, owner.username, "sue");
    await visit(support.page, `/messages/${id}`);
    expect(await support.page.getByTestId("webhook-note").textContent()).toBe("None for this message.");
    expect(asked.filter((path) => path.startsWith("/api/v2/webhooks"))).toEqual([]);
    expect(support.problems).toEqual([]);
    await support.context.close();

    const billing = await newPage();
    await signInAsConsoleUser(billing.page, owner.username, "bill");
    for (const path of [`/messages/${id}`, "/contacts/1"]) {
      await visit(billing.page, path);
      expect(await billing.page.locator("h1").textContent(), path).toBe("Not for your role");
      await expectNoHorizontalScroll(billing.page, `${path} as billing`);
    }
    expect(billing.problems).toEqual([]);
    await billing.context.close();
  });
});
