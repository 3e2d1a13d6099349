// The console's header at phone width (audit of the console at 390 px): its links sat in the
// header, 270–450 px of the screen before the page began. At 390 px they are behind a Menu button
// (a disclosure: aria-expanded, aria-controls; Escape or a chosen link closes it) and the header is
// one line; at 1280 px the links show as before and there is no button.

import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  signInAs,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount } from "../../helpers/gateway.js";

const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;
const DESKTOP = { width: 1280, height: 900 };

async function headerHeight(page: Page): Promise<number> {
  return (await page.locator("header").boundingBox())?.height ?? Number.POSITIVE_INFINITY;
}

describeInBrowser("console in the browser: the header's menu at phone width", () => {
  const { gateway, operator, phonePage, page: newPage } = useConsole();

  it("hides an account's links behind a Menu button at 390 px; a link chosen there opens its page", async () => {
    const account = await buildAccount(gateway());
    const { page, context, problems } = await phonePage(account);
    const menu = page.getByRole("button", { name: "Menu" });
    const nav = page.getByRole("navigation", { name: "Main" });
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.count()).toBe(0);
    expect(await page.getByRole("link", { name: "Credits" }).count()).toBe(0);
    expect(await headerHeight(page)).toBeLessThanOrEqual(64);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/header-closed-390.png` });

    await menu.click();
    expect(await menu.getAttribute("aria-expanded")).toBe("true");
    const controlled = await menu.getAttribute("aria-controls");
    expect(await page.locator(`#${controlled}`).getByRole("navigation", { name: "Main" }).count()).toBe(1);
    await expectAccessible(page, "the open menu at 390 px");
    await expectNoHorizontalScroll(page, "the open menu at 390 px");
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/header-open-390.png` });
    await nav.getByRole("link", { name: "Credits" }).click();
    await page.getByRole("heading", { name: "Credits", level: 1 }).waitFor();
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.count()).toBe(0);

    // Escape closes it and leaves the focus on the button.
    await menu.click();
    await nav.waitFor();
    await page.keyboard.press("Escape");
    expect(await menu.getAttribute("aria-expanded")).toBe("false");
    expect(await nav.count()).toBe(0);
    expect(await menu.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("keeps the operator's two groups of links behind the button at 390 px, and shows them at 1280 px", async () => {
    const phone = await phonePage(operator());
    expect(await phone.page.getByRole("navigation").count()).toBe(0);
    expect(await headerHeight(phone.page)).toBeLessThanOrEqual(64);
    await phone.page.getByRole("button", { name: "Menu" }).click();
    await phone.page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Carriers" }).click();
    await phone.page.getByRole("heading", { name: "Carriers" }).waitFor();
    await phone.context.close();

    const { page, context, problems } = await newPage(DESKTOP);
    await signInAs(page, operator().username, operator().password);
    expect(await page.getByRole("button", { name: "Menu" }).count()).toBe(0);
    await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Carriers" }).waitFor();
    await page.getByRole("navigation", { name: "Account" }).getByRole("link", { name: "Credits" }).waitFor();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/header-1280.png` });
    expect(problems).toEqual([]);
    await context.close();
  });
});
