// The Users page at phone width on a gateway without a mail relay (console audit C1, C14, C15):
// an invitation says it was not emailed and shows the link to copy; a role picked in a row's
// select changes nothing until it is confirmed (then the user's sessions end); an admin is not
// offered the owner role nor an owner's row; a failure's notice goes at the next success.
import { beforeAll, expect, it } from "vitest";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: the Users page tells what it did and confirms role changes", () => {
  const { gateway, phonePage, page: newPage } = useConsole();
  let owner: TestAccount;

  const add = async (login: string, user_role: string) => {
    const added = await call(gateway(), "POST", "/api/v2/users", {
      headers: { authorization: `Bearer ${owner.apiKey}` },
      json: { login, user_role, password: `${login}-password-1` },
    });
    expect(added.status, added.text).toBe(201);
  };
  const roleOf = async (login: string) => {
    const users = await call(gateway(), "GET", "/api/v2/users", {
      headers: { authorization: `Bearer ${owner.apiKey}` },
    });
    return (users.body.data as { login: string; user_role: string }[]).find((u) => u.login === login)?.user_role;
  };

  beforeAll(async () => {
    owner = await buildAccount(gateway());
    await add("sue", "support");
    await add("adam", "admin");
    await add("boss", "owner");
  });

  it("an invitation without a mail relay says it was not emailed and shows the link to copy", async () => {
    const { page, context, problems } = await phonePage(owner, "/settings/users");
    await page.getByRole("heading", { name: "Users" }).waitFor();
    expect(await page.locator("#user-email-hint").textContent()).toMatch(/if the gateway has a mail relay/);
    await page.getByLabel("Login").fill("ivy");
    await page.getByLabel("Email").fill("ivy@example.org");
    await page.getByRole("button", { name: "Invite" }).click();
    const notice = page.getByTestId("invitation");
    await expect.poll(() => notice.textContent()).toMatch(/Not emailed.*copy this link and send it to ivy yourself/);
    expect(await notice.textContent()).not.toMatch(/emailed to/);
    expect(await notice.locator("code").textContent()).toMatch(/\/invitation\?token=[\w-]{43}$/);
    await expectAccessible(page, "users page, invitation not emailed");
    await expectNoHorizontalScroll(page, "users page, invitation not emailed");
    expect(problems).toEqual([]);
    await context.close();
  });

  it("a role picked in a row changes nothing until confirmed; a stale error goes at the next success", async () => {
    const { page, context, problems } = await phonePage(owner, "/settings/users");
    await page.getByTestId("user-sue").waitFor();
    // A refused add leaves its notice, until something succeeds.
    await page.getByLabel("Login").fill("sue");
    await page.getByLabel("Password").fill("another-password-1");
    await page.getByRole("button", { name: "Add" }).click();
    await page.getByRole("alert").filter({ hasText: "Not added" }).waitFor();

    await page.getByLabel("Role of sue").focus();
    await page.keyboard.press("ArrowDown");
    await page.getByRole("button", { name: "Make sue billing" }).waitFor();
    expect(await roleOf("sue")).toBe("support");
    await page.getByRole("button", { name: "Make sue billing" }).click();
    expect(await page.getByText("their sessions end now").textContent()).toContain("sue becomes billing");
    expect(await roleOf("sue")).toBe("support");
    await expectNoHorizontalScroll(page, "users page, confirming a role");
    await page.getByRole("button", { name: "Confirm: make sue billing" }).click();
    await page.getByText("sue is billing now; their sessions ended.").waitFor();
    expect(await roleOf("sue")).toBe("billing");
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("an admin is offered no owner role and no action on an owner", async () => {
    const { page, context, problems } = await newPage();
    await page.goto("/settings/users");
    await page.getByLabel("Username").fill(owner.username);
    await page.getByLabel("Your login").fill("adam");
    await page.getByLabel("Password").fill("adam-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByTestId("user-boss").waitFor();
    const offered = await page.getByLabel("Role", { exact: true }).locator("option").allTextContents();
    expect(offered).toEqual(["admin", "developer", "support", "billing"]);
    const sueRoles = await page.getByLabel("Role of sue").locator("option").allTextContents();
    expect(sueRoles).not.toContain("owner");
    const boss = page.getByTestId("user-boss");
    expect(await boss.textContent()).toContain("Only an owner changes an owner.");
    expect(await boss.locator("select, button").count()).toBe(0);
    await expectAccessible(page, "users page as admin");
    await expectNoHorizontalScroll(page, "users page as admin");
    expect(problems).toEqual([]);
    await context.close();
  });
});
