// The console's SMPP binds in a real browser, at 1280 and 390 px, over real binds: the account's
// SMPP page (its access and the clients bound now, updated as one unbinds), a reseller's read of a
// grandchild's binds from its Sub-accounts pages (and another tree's account not found), and the
// operator's account page (the same binds with the process holding each, times in the account's
// zone).
import { expect, it } from "vitest";
import { setSmppSettings } from "../../../src/channels/smpp-server/index.js";
import { boundEsme, smppAccount } from "../../channels/smpp-server/client.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  openSignedIn,
  PHONE,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount } from "../../helpers/gateway.js";
import { resellerTree } from "../../helpers/resellers.js";

const WIDE = { width: 1280, height: 900 };

describeInBrowser("console in the browser: SMPP binds", () => {
  const { gateway, browser, operator } = useConsole({ env: { SMPP_SERVER_PORT: "auto" } });

  it("shows the account its access and the clients bound now, and drops one that unbinds", async () => {
    const t = gateway();
    const acme = await smppAccount(t, { maxBinds: 3 });
    const transmitter = await boundEsme(t, acme, "transmitter");
    await boundEsme(t, acme, "receiver");
    const answer = await transmitter.submit({
      source_addr: "SWBRD",
      destination_addr: "9876543210",
      short_message: "x",
    });
    expect(answer.command_status).toBe(0);
    for (const [viewport, width] of [
      [WIDE, 1280],
      [PHONE, 390],
    ] as const) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await openSignedIn(page, acme.username, acme.password, "/settings/smpp");
      await page.getByRole("heading", { name: "SMPP", level: 1 }).waitFor();
      const rows = page.getByTestId("bind");
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
      expect(await rows.nth(0).textContent()).toMatch(/^transmitter127\.0\.0\.1:\d+/);
      expect(await rows.nth(1).textContent()).toMatch(/^receiver127\.0\.0\.1:\d+/);
      // The account's zone (Asia/Kolkata) is named where its times are.
      expect(await page.getByRole("columnheader", { name: /Bound since/ }).textContent()).toBe(
        "Bound since (GMT+5:30)",
      );
      expect(await page.getByTestId("smpp-access").textContent()).toContain("3 at most");
      await expectNoHorizontalScroll(page, `the SMPP page at ${width} px`);
      await expectAccessible(page, `the SMPP page at ${width} px`);
      await page.screenshot({ path: `/tmp/sb-smpp-${width}.png`, fullPage: true });
      expect(problems).toEqual([]);
      if (width === 390) {
        await transmitter.request("unbind");
        await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);
        expect(await rows.nth(0).textContent()).toMatch(/^receiver/);
      }
      await context.close();
    }
  }, 90_000);

  it("tells an account without SMPP access so", async () => {
    const t = gateway();
    const plain = await buildAccount(t);
    const { page, context, problems } = await newPage(browser(), t.url, PHONE);
    await openSignedIn(page, plain.username, plain.password, "/settings/smpp");
    await page.getByTestId("smpp-off").waitFor();
    expect(await page.getByTestId("no-binds").textContent()).toMatch(/^No SMPP client is bound now/);
    await expectNoHorizontalScroll(page, "the SMPP page without access at 390 px");
    await expectAccessible(page, "the SMPP page without access");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("shows a reseller its grandchild's clients bound now, read only, from its Sub-accounts pages", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const smppPassword = `s${Math.random().toString(36).slice(2, 9)}`;
    await setSmppSettings(t.db.store, t.clock, leaf.username, { password: smppPassword, maxBinds: 4 });
    await boundEsme(t, { ...leaf, smppPassword }, "transceiver");
    const stranger = await smppAccount(t);
    await boundEsme(t, stranger, "transmitter");
    for (const [viewport, width] of [
      [WIDE, 1280],
      [PHONE, 390],
    ] as const) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await openSignedIn(page, top.username, top.password, "/subaccounts");
      const own = page.getByTestId(`activity-${mid.username}`);
      expect(await own.getByRole("link", { name: `SMPP binds of ${mid.username}` }).getAttribute("href")).toBe(
        `/settings/smpp?subaccount=${mid.username}`,
      );
      await page.getByRole("link", { name: `1 sub-account of ${mid.username}` }).click();
      await page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` }).waitFor();
      await page.getByTestId(`activity-${leaf.username}`).screenshot({ path: `/tmp/sb-subaccount-links-${width}.png` });
      await page
        .getByTestId(`activity-${leaf.username}`)
        .getByRole("link", { name: `SMPP binds of ${leaf.username}` })
        .click();

      await page.getByRole("heading", { name: `SMPP binds of ${leaf.username}`, level: 1 }).waitFor();
      expect(await page.getByTestId("subaccount-trail").textContent()).toBe(
        `Your sub-accounts › ${mid.username} › ${leaf.username} › SMPP binds`,
      );
      const rows = page.getByTestId("bind");
      await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(1);
      expect(await rows.nth(0).textContent()).toMatch(/^transceiver127\.0\.0\.1:\d+/);
      // Its access is its own: no limits of it here, and nothing to change.
      expect(await page.getByTestId("smpp-access").count()).toBe(0);
      expect(await page.locator("main").textContent()).not.toMatch(/4 at most/);
      expect(await page.locator("main form, main button").count()).toBe(0);
      await expectNoHorizontalScroll(page, `a grandchild's SMPP binds at ${width} px`);
      await expectAccessible(page, `a grandchild's SMPP binds at ${width} px`);
      await page.screenshot({ path: `/tmp/sb-subaccount-smpp-${width}.png`, fullPage: true });

      // Its messages and refused sends keep its place in the tree, as this page's way back does.
      expect(
        await page.getByTestId("subaccount-filter").getByRole("link", { name: "its messages" }).getAttribute("href"),
      ).toBe(`/messages?via=${mid.username}&subaccount=${leaf.username}`);
      // Back to the list that holds it; from there, its parent's own binds (none).
      await page
        .getByTestId("subaccount-filter")
        .getByRole("link", { name: `${mid.username}'s sub-accounts` })
        .click();
      await page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` }).waitFor();
      await page.getByRole("link", { name: "its SMPP binds" }).click();
      await page.getByRole("heading", { name: `SMPP binds of ${mid.username}`, level: 1 }).waitFor();
      await page.getByTestId("no-binds").waitFor();
      expect(await page.getByTestId("subaccount-trail").textContent()).toBe(
        `Your sub-accounts › ${mid.username} › SMPP binds`,
      );
      // Opened from mid's own list, its way back leads there; the trail leads to the top.
      await page
        .getByTestId("subaccount-filter")
        .getByRole("link", { name: `${mid.username}'s sub-accounts` })
        .click();
      await page.getByRole("heading", { name: `Sub-accounts of ${mid.username}` }).waitFor();
      await page.getByTestId("subaccount-trail").getByRole("link", { name: "Your sub-accounts" }).click();
      await page.getByRole("heading", { name: "Sub-accounts", exact: true }).waitFor();
      expect(problems).toEqual([]);

      // Another tree's account: the API's 404 in words, none of its binds.
      await page.goto(`/settings/smpp?subaccount=${stranger.username}`);
      await expect
        .poll(async () => (await page.getByRole("alert").textContent()) ?? "")
        .toContain(`Not found: No sub-account named "${stranger.username}"`);
      expect(await page.getByTestId("bind").count()).toBe(0);
      expect(await page.getByRole("heading", { name: "Bound now" }).count()).toBe(0);
      await expectNoHorizontalScroll(page, `another tree's SMPP binds at ${width} px`);
      await expectAccessible(page, `another tree's SMPP binds at ${width} px`);
      await context.close();
    }
  }, 90_000);

  it("shows the operator an account's binds, in the account's zone, with each one's process", async () => {
    const t = gateway();
    const london = await smppAccount(t);
    await t.db.store.db
      .updateTable("accounts")
      .set({ time_zone: "Europe/London" })
      .where("id", "=", london.id)
      .execute();
    await boundEsme(t, london, "transceiver");
    for (const [viewport, width] of [
      [WIDE, 1280],
      [PHONE, 390],
    ] as const) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await openSignedIn(page, operator().username, operator().password, `/operator/accounts/${london.username}`);
      const section = page.getByRole("region", { name: "SMPP binds" });
      await section.getByTestId("bind").waitFor({ timeout: 20_000 });
      const row = await section.getByTestId("bind").textContent();
      expect(row).toMatch(/^transceiver127\.0\.0\.1:\d+/);
      expect(row).toContain(`pid ${process.pid}`);
      expect(await section.getByRole("columnheader", { name: /Bound since/ }).textContent()).toMatch(
        /^Bound since \((GMT|UTC)\)$/,
      );
      expect(await page.getByTestId("times-zone").textContent()).toContain("the account's zone, Europe/London");
      await expectNoHorizontalScroll(page, `the operator's account page at ${width} px`);
      await expectAccessible(page, `the operator's account page at ${width} px`);
      await section.screenshot({ path: `/tmp/sb-operator-smpp-${width}.png` });
      expect(problems).toEqual([]);
      await context.close();
    }
  }, 90_000);
});
