// What a read-only or a billing user is offered, at phone width (console audit C2, C10): a support
// user reads Contacts, Templates, Registrations and Inbound without the forms the API would refuse
// (a note says whose they are); a billing user's Overview shows the balances and a link to Credits,
// with no traffic it may not read and no error.

import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  useConsole,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: pages as a support and a billing user", () => {
  const { gateway, page: newPage } = useConsole();
  let owner: TestAccount;

  beforeAll(async () => {
    owner = await buildAccount(gateway());
    for (const [login, user_role] of [
      ["sue", "support"],
      ["bill", "billing"],
    ]) {
      const added = await call(gateway(), "POST", "/api/v2/users", {
        headers: { authorization: `Bearer ${owner.apiKey}` },
        json: { login, user_role, password: `${login}-password-1` },
      });
      expect(added.status, added.text).toBe(201);
    }
  });

  const signInAsUser = async (page: Page, login: string) => {
    await page.goto("/");
    await page.getByLabel("Username").fill(owner.username);
    await page.getByLabel("Your login").fill(login);
    await page.getByLabel("Password").fill(`${login}-password-1`);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
  };

  it("a support user reads Contacts, Templates, Registrations and Inbound with no create form", async () => {
    const { page, context, problems } = await newPage();
    await signInAsUser(page, "sue");
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
    await signInAsUser(page, "bill");
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
});
