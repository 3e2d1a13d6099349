// Two-factor sign-in in a real browser at phone width (390 px): a customer sets it up on the
// Two-factor page (QR code shown, "show the secret", a code computed here from that secret,
// recovery codes shown once), signs out, and signs in again in two steps; an operator without a
// factor (TWO_FACTOR_OPERATORS=required) sets one up at sign-in, lands on the operator pages and
// resets the customer's factor there.
// The gateway's clock is a manual one: each code is computed for it, a step after the last used.
import { beforeAll, expect, it } from "vitest";
import { ManualClock } from "../../../src/base/core/clock.js";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";
import { totpCode } from "../../helpers/totp.js";

describeInBrowser("console in the browser: two-factor sign-in", () => {
  const clock = new ManualClock("2026-11-22T06:30:05Z");
  const {
    gateway,
    operator,
    phonePage,
    page: signedOutPage,
  } = useConsole({
    clock,
    env: { TWO_FACTOR_OPERATORS: "required" },
  });
  let customer: TestAccount;

  beforeAll(async () => {
    customer = await buildAccount(gateway());
  });

  const codeNow = (secret: string) => totpCode(secret, clock.now().getTime());

  it("sets up a factor, signs out, and signs in with password and code, at 390 px", async () => {
    const { page, context, problems } = await phonePage(customer, "/settings/two-factor");
    await page.getByRole("heading", { name: "Two-factor sign-in" }).waitFor();
    await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
    const qr = page.getByRole("img", { name: "QR code of the two-factor secret" });
    await qr.waitFor();
    await expect
      .poll(() => qr.evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth))
      .toBeGreaterThan(0);
    await page.getByRole("button", { name: "Can't scan? Show the secret" }).click();
    const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByLabel("Code from the app").fill(codeNow(secret));
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    const codes = page.getByTestId("recovery-codes").getByRole("listitem");
    await expect.poll(() => codes.count()).toBe(10);
    await page
      .getByTestId("two-factor-state")
      .getByText(/Two-factor sign-in is on/)
      .waitFor();
    await expectNoHorizontalScroll(page, "two-factor page with recovery codes");
    await expectAccessible(page, "two-factor page");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByLabel("Username").waitFor();
    clock.advance(30_000);
    await page.getByLabel("Username").fill(customer.username);
    await page.getByLabel("Password").fill(customer.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    const code = page.getByLabel("Code", { exact: true });
    await code.waitFor();
    await expectNoHorizontalScroll(page, "the sign-in's second step");
    await expectAccessible(page, "the sign-in's second step");
    // A wrong code is refused and asked again.
    await code.fill(codeNow(secret) === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Verify" }).click();
    await page
      .getByRole("alert")
      .getByText(/wrong or already used code/)
      .waitFor();
    await code.fill(codeNow(secret));
    await page.getByRole("button", { name: "Verify" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await expectNoHorizontalScroll(page, "the console after a two-factor sign-in");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it("has an operator without a factor set one up at sign-in, then opens the operator pages", async () => {
    const { page, context, problems } = await signedOutPage();
    await page.goto("/");
    await page.getByLabel("Username").fill(operator().username);
    await page.getByLabel("Password").fill(operator().password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Your account requires two-factor sign-in").waitFor();
    await page.getByRole("img", { name: "QR code of the two-factor secret" }).waitFor();
    await page.getByRole("button", { name: "Can't scan? Show the secret" }).click();
    const secret = ((await page.getByTestId("totp-secret").textContent()) ?? "").replace(/\s/g, "");
    await expectNoHorizontalScroll(page, "enrolment at sign-in");
    await expectAccessible(page, "enrolment at sign-in");
    await page.getByLabel("Code from the app").fill(codeNow(secret));
    await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
    await expect.poll(() => page.getByTestId("recovery-codes").getByRole("listitem").count()).toBe(10);
    await page.getByRole("button", { name: "I have saved them: continue" }).click();
    await page.getByRole("button", { name: "Sign out" }).waitFor();
    await expect.poll(() => new URL(page.url()).pathname).toBe("/operator/accounts");

    // The customer lost the phone: the operator resets the factor on the account's page.
    await page.goto(`/operator/accounts/${customer.username}`);
    await page.getByRole("button", { name: "Reset two-factor sign-in" }).click();
    await page.getByRole("button", { name: `Confirm: reset ${customer.username}'s two-factor sign-in` }).click();
    await page.getByText(`Two-factor sign-in of ${customer.username} reset.`).waitFor();
    await expectNoHorizontalScroll(page, "the operator's account page");
    const password = await call(gateway(), "POST", "/console/session", {
      json: { username: customer.username, password: customer.password },
    });
    expect(password.status, password.text).toBe(201);
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
