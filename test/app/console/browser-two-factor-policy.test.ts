// The Two-factor page's "Require two-factor sign-in for every login" at phone width (390 px),
// for an admin (decision 0182): off, the admin ticks it and it is saved; on, the box is disabled
// and says only the owner can stop requiring it, and the server still holds it on. The owner's
// box stays enabled and turns it off.
import { beforeAll, expect, it } from "vitest";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: who turns the account's two-factor requirement off", () => {
  const { gateway, page: signedOutPage, phonePage } = useConsole();
  let account: TestAccount;
  const adminPassword = "adm-password-1";

  beforeAll(async () => {
    account = await buildAccount(gateway());
    const added = await call(gateway(), "POST", "/api/v2/users", {
      headers: { authorization: `Bearer ${account.apiKey}` },
      json: { login: "adm", user_role: "admin", password: adminPassword },
    });
    expect(added.status, added.text).toBe(201);
  });

  const required = async () => {
    const read = await call(gateway(), "GET", "/api/v2/two-factor/policy", {
      headers: { authorization: `Bearer ${account.apiKey}` },
    });
    return read.body.data.required as boolean;
  };

  it("lets an admin turn it on, then disables the box with the reason; the owner turns it off", async () => {
    // The owner signs in first: once it is required, a new sign-in is asked to enrol.
    const owner = await phonePage(account, "/settings/two-factor");
    const { page, context, problems } = await signedOutPage();
    await page.goto("/settings/two-factor");
    await page.getByLabel("Username").fill(account.username);
    await page.getByLabel("Your login").fill("adm");
    await page.getByLabel("Password").fill(adminPassword);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
    const box = page.getByRole("checkbox", { name: "Require two-factor sign-in for every login of this account" });
    await box.waitFor();
    expect(await box.isChecked()).toBe(false);
    expect(await box.isEnabled()).toBe(true);
    // A click, not check(): the box shows the saved setting, ticked once the server answers.
    await box.click();
    await page.getByText("Saved.").waitFor();
    expect(await required()).toBe(true);

    // On: the admin's box is disabled, and says why.
    const reason = page.getByTestId("policy-owners-only");
    await reason.waitFor();
    expect(await reason.textContent()).toBe(
      "Only the account's owner can stop requiring it: your role (admin) can turn it on, not off.",
    );
    await expect.poll(() => box.isDisabled()).toBe(true);
    expect(await box.isChecked()).toBe(true);
    expect(await box.getAttribute("aria-describedby")).toBe("policy-owners-only");
    await expectNoHorizontalScroll(page, "an admin's two-factor page, required");
    await expectAccessible(page, "an admin's two-factor page, required");
    // A reload reads the same: still on, still the owner's to turn off.
    await page.reload();
    await page.getByTestId("policy-owners-only").waitFor();
    expect(await box.isDisabled()).toBe(true);
    expect(await required()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();

    await owner.page.reload();
    const ownersBox = owner.page.getByRole("checkbox", {
      name: "Require two-factor sign-in for every login of this account",
    });
    await expect.poll(() => ownersBox.isChecked()).toBe(true);
    expect(await ownersBox.isEnabled()).toBe(true);
    expect(await owner.page.getByTestId("policy-owners-only").count()).toBe(0);
    await ownersBox.click();
    await owner.page.getByText("Saved.").waitFor();
    expect(await required()).toBe(false);
    expect(owner.problems).toEqual([]);
    await owner.context.close();
  }, 90_000);
});
