// A sending domain another account holds, on the console's Approvals page at phone width (390 px;
// decision 0179): the row names the account holding it, its "Approve…" opens a confirmation that
// names it again, and only that confirmation's button sends the approval, with "confirm_shared":
// true (the API refuses it without). Cancelled, nothing is sent; a domain nobody else holds is
// approved by its one button, without confirm_shared. axe and no sideways scroll.
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";
import { buildAccount, call } from "../../helpers/gateway.js";

/** A screenshot to look at by hand, when SCREENSHOT_DIR names where to put it. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

describeInBrowser("console in the browser: a shared sending domain's approval", () => {
  const consoleOf = useConsole();

  it("names the other holder and approves only after the operator confirms", async () => {
    const t = consoleOf.gateway();
    const holder = await buildAccount(t);
    const asker = await buildAccount(t);
    const asOperator = { authorization: `Bearer ${consoleOf.operator().apiKey}` };
    const held = await call(t, "POST", `/admin/api/accounts/${holder.username}/email/domains`, {
      headers: asOperator,
      json: { domain: "brand.example.com", approve: true },
    });
    expect(held.status, held.text).toBe(201);
    for (const domain of ["brand.example.com", "solo.example.com"]) {
      const asked = await call(t, "POST", "/api/v2/email/domains", {
        headers: { authorization: `Bearer ${asker.apiKey}` },
        json: { domain },
      });
      expect(asked.status, asked.text).toBe(201);
    }

    const op = await consoleOf.phonePage(consoleOf.operator(), "/operator/approvals");
    /** The bodies of the approval calls the page sent, in order. */
    const sent: unknown[] = [];
    op.page.on("request", (request) => {
      if (request.method() === "PUT" && request.url().includes("/email/domains/")) sent.push(request.postDataJSON());
    });
    const queue = op.page.getByTestId("approvals");
    const row = queue.locator("tbody tr", { hasText: "brand.example.com" });
    await expect
      .poll(() => row.getByTestId("shared-with").textContent())
      .toBe(`Also held by ${holder.username} (approved).`);
    // No one-click approval for it: "Approve…" opens the confirmation.
    expect(await row.getByRole("button", { name: "Approve brand.example.com", exact: true }).count()).toBe(0);
    await row.getByRole("button", { name: "Approve brand.example.com…" }).click();
    const confirmation = row.getByTestId("confirm-share");
    expect(await confirmation.textContent()).toContain(
      `brand.example.com is held by another account too: ${holder.username} (approved).`,
    );
    expect(sent).toEqual([]);
    await expectNoHorizontalScroll(op.page, "approvals with a shared domain's confirmation");
    await expectAccessible(op.page, "approvals with a shared domain's confirmation");
    await screenshot(op.page, "approvals-confirm-shared-390");
    // Cancelled, nothing is sent and the row waits as it was.
    await row.getByRole("button", { name: "Cancel" }).click();
    expect(await confirmation.count()).toBe(0);
    expect(sent).toEqual([]);

    await row.getByRole("button", { name: "Approve brand.example.com…" }).click();
    await row.getByRole("button", { name: "Approve shared brand.example.com" }).click();
    await expect
      .poll(() => op.page.getByRole("status").filter({ hasText: "approved" }).textContent())
      .toContain(
        `Email domain brand.example.com of ${asker.username} approved, shared with ${holder.username} (approved).`,
      );
    expect(sent).toEqual([{ status: "approved", confirm_shared: true }]);
    await screenshot(op.page, "approvals-shared-approved-390");

    // A domain nobody else holds: its one button, no confirmation, no confirm_shared.
    const solo = queue.locator("tbody tr", { hasText: "solo.example.com" });
    expect(await solo.getByTestId("shared-with").count()).toBe(0);
    await solo.getByRole("button", { name: "Approve solo.example.com", exact: true }).click();
    await expect.poll(() => op.page.getByTestId("approvals").locator("tbody tr").count()).toBe(0);
    expect(sent).toEqual([{ status: "approved", confirm_shared: true }, { status: "approved" }]);
    expect(op.problems).toEqual([]);
    await op.context.close();

    const domains = await call(t, "GET", `/admin/api/accounts/${asker.username}/email/domains`, {
      headers: asOperator,
    });
    expect(domains.body.data.map((d: { domain: string; status: string }) => [d.domain, d.status])).toEqual([
      ["brand.example.com", "approved"],
      ["solo.example.com", "approved"],
    ]);
  }, 60_000);
});
