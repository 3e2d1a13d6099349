// The Verify page in a real browser, at phone width (390 px): the account's verify settings as
// the operator set them, and the conversion of its codes per channel and country (one approved
// SMS code of two), narrowed by a window that holds none. axe on the page.
import fs from "node:fs";
import { beforeAll, expect, it } from "vitest";
import {
  capturedCode,
  freshNumber,
  start,
  verifyAccount,
  verifyCall,
  verifyEnv,
} from "../../channels/verify/helpers.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { type TestAccount, useTestGateway } from "../../helpers/gateway.js";

describeInBrowser("console in the browser: the Verify page", () => {
  const { env, captureFile } = verifyEnv();
  const gateway = useTestGateway("sqlite", { env });
  const browser = useBrowser();
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    shop = await verifyAccount(t, { channels: ["sms", "voice"] });
    const approved = (await start(t, shop, { recipient: freshNumber() })).body.data.verification_id;
    await start(t, shop, { recipient: freshNumber() });
    const messageId = (await verifyCall(t, shop, "GET", `/${approved}`)).body.data.message_id;
    const code = await capturedCode(captureFile, messageId);
    expect((await verifyCall(t, shop, "POST", `/${approved}/check`, { code })).body.data.status).toBe("approved");
    expect(fs.existsSync(captureFile)).toBe(true);
  });

  it("shows the settings and the conversion per channel and country at 390 px", async () => {
    const { page, context, problems } = await phonePageAs(browser(), gateway().url, shop, "/verify");
    await page.getByRole("heading", { name: "Verify", level: 1 }).waitFor();
    await noneLoading(page);
    const settings = (await page.getByRole("region", { name: "Settings" }).textContent()) ?? "";
    expect(settings).toContain("SWBRD");
    expect(settings).toContain("SMS → Voice");
    const rows = page.getByRole("list", { name: "Conversion by channel and country" }).getByRole("listitem");
    await expect.poll(() => rows.count()).toBe(1);
    const row = (await rows.first().textContent()) ?? "";
    expect(row).toContain("SMS · IN");
    expect(row).toContain("50.0 %");
    await expectNoHorizontalScroll(page, "verify page");
    await expectAccessible(page, "verify page");

    await page.getByLabel("From (date)").fill("2099-01-01");
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("No verifications in this window.").waitFor();
    expect(await rows.count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
