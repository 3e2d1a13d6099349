// The operator's Carriers page with no carrier added, at 390 px: it says truthfully that the
// built-in simulator is the only connector (it carries every route's SMS), not that none is
// configured (audit F9's wording).
import { expect, it } from "vitest";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";

describeInBrowser("console in the browser: the Carriers page with only the simulator", () => {
  const web = useConsole();

  it("says only the built-in simulator is configured", async () => {
    const { page, context, problems } = await web.phonePage(web.operator(), "/operator/carriers");
    const empty = page.getByTestId("carriers-empty");
    await empty.waitFor({ timeout: 20_000 });
    expect((await empty.textContent())?.replace(/\s+/g, " ").trim()).toBe(
      "Only the built-in simulator is configured: SMS go to it, and no real carrier carries them.",
    );
    expect(await page.getByText("No carrier is configured").count()).toBe(0);
    await expectNoHorizontalScroll(page, "the Carriers page with only the simulator");
    await expectAccessible(page, "the Carriers page with only the simulator");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
