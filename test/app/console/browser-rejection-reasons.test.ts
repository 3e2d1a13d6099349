// Rejections with a reason in the console, at phone width (390 px): the operator types a reason
// when rejecting from the approval queue and reads it back in the notice; the account reads it
// under the item's status on its Templates and Registrations pages. The webhook delivery log
// names the URL each attempt posted to. axe and no sideways scroll on each page.
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { receiver, useReceivers } from "../../domain/webhooks/receiver.js";
import { describeInBrowser, expectAccessible, expectNoHorizontalScroll, useConsole } from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

/** A screenshot to look at by hand, when SCREENSHOT_DIR names where to put it. */
async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.SCREENSHOT_DIR;
  if (dir) await page.screenshot({ path: `${dir}/${name}.png`, fullPage: true });
}

describeInBrowser("console in the browser: rejection reasons and attempt URLs", () => {
  const consoleOf = useConsole({ env: { SWITCHBOARD_ALLOW_PRIVATE_WEBHOOKS: "1" } });
  useReceivers();
  let shop: TestAccount;
  const asShop = (method: string, path: string, json?: unknown) =>
    call(consoleOf.gateway(), method, path, {
      headers: { authorization: `Bearer ${shop.apiKey}` },
      ...(json === undefined ? {} : { json }),
    });

  beforeAll(async () => {
    shop = await buildAccount(consoleOf.gateway());
  });

  it("lets the operator give a reason when rejecting, and the account reads it on its pages", async () => {
    const template = await asShop("POST", "/api/v2/templates", { name: "otp", content: "Your code is {#var#}" });
    expect(template.status, template.text).toBe(201);
    const sender = await asShop("POST", "/api/v2/sender-id-requests", { sender_id: "SHOPPY" });
    const caller = await asShop("POST", "/api/v2/voice/caller-ids", { number: "080 4711 0001" });
    expect(caller.status, caller.text).toBe(201);

    const op = await consoleOf.phonePage(consoleOf.operator(), "/operator/approvals");
    const queue = op.page.getByTestId("approvals");
    await queue.getByRole("button", { name: "Reject otp…" }).click();
    const reason = op.page.getByLabel("Reason for rejecting otp (the account reads it; optional)");
    await reason.fill("Register the header SHOPPY first.");
    await expectNoHorizontalScroll(op.page, "approvals with a reason being typed");
    await screenshot(op.page, "approvals-reject-form-390");
    await expectAccessible(op.page, "approvals with the rejection form");
    await queue.getByRole("button", { name: "Reject otp", exact: true }).click();
    await expect
      .poll(() => op.page.getByTestId("rejection-reason").textContent())
      .toBe("Register the header SHOPPY first.");
    expect(await op.page.getByRole("status").filter({ hasText: "rejected" }).textContent()).toContain(
      "Template otp of",
    );
    await screenshot(op.page, "approvals-rejected-390");
    // A form opened and cancelled decides nothing; one left empty rejects without a reason.
    await queue.getByRole("button", { name: "Reject SHOPPY…" }).click();
    await queue.getByRole("button", { name: "Cancel" }).click();
    await queue.getByRole("button", { name: "Reject SHOPPY…" }).click();
    await op.page.getByLabel(/^Reason for rejecting SHOPPY/).fill("Not your brand.");
    await queue.getByRole("button", { name: "Reject SHOPPY", exact: true }).click();
    await expect.poll(() => op.page.getByTestId("rejection-reason").textContent()).toBe("Not your brand.");
    await queue.getByRole("button", { name: "Reject +918047110001…" }).click();
    await queue.getByRole("button", { name: "Reject +918047110001", exact: true }).click();
    await expect.poll(() => op.page.getByTestId("approvals").locator("tbody tr").count()).toBe(0);
    expect(await op.page.getByTestId("rejection-reason").count()).toBe(0);
    expect(op.problems).toEqual([]);
    await op.context.close();

    const own = await asShop("GET", `/api/v2/templates/${template.body.data.id}`);
    expect(own.body.data).toMatchObject({ status: "rejected", rejection_reason: "Register the header SHOPPY first." });
    const senders = await asShop("GET", "/api/v2/sender-id-requests");
    expect(senders.body.data.find((s: { id: number }) => s.id === sender.body.data.id)).toMatchObject({
      rejection_reason: "Not your brand.",
    });

    const customer = await consoleOf.phonePage(shop, "/templates");
    await customer.page.getByRole("heading", { name: "Templates" }).waitFor();
    await expect
      .poll(() => customer.page.getByTestId("rejection-reason").first().textContent())
      .toBe("Reason: Register the header SHOPPY first.");
    await expectNoHorizontalScroll(customer.page, "templates with a rejection reason");
    await expectAccessible(customer.page, "templates with a rejection reason");
    await screenshot(customer.page, "templates-390");
    await customer.page.goto("/registrations");
    await customer.page.getByRole("heading", { name: "Registrations" }).waitFor();
    const senderIds = customer.page.locator("section", {
      has: customer.page.getByRole("heading", { name: "Sender IDs" }),
    });
    await expect.poll(() => senderIds.getByTestId("rejection-reason").textContent()).toBe("Reason: Not your brand.");
    // Rejected without a reason: the status alone.
    const callers = customer.page.locator("section", {
      has: customer.page.getByRole("heading", { name: "Voice caller numbers" }),
    });
    await expect.poll(() => callers.getByText("rejected").count()).toBe(1);
    expect(await callers.getByTestId("rejection-reason").count()).toBe(0);
    await expectNoHorizontalScroll(customer.page, "registrations with a rejection reason");
    await expectAccessible(customer.page, "registrations with a rejection reason");
    await screenshot(customer.page, "registrations-390");
    expect(customer.problems).toEqual([]);
    await customer.context.close();
  }, 90_000);

  it("names the URL each webhook attempt posted to", async () => {
    const hooks = await receiver();
    const set = await asShop("PUT", "/api/v2/webhooks", { delivery_report: `${hooks.url}/reports` });
    expect(set.status, set.text).toBe(200);
    const { page, context, problems } = await consoleOf.phonePage(shop, "/settings/webhooks");
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByRole("button", { name: "Send a test event" }).click();
    await page.getByText(/Test event queued as delivery #\d+/).waitFor();
    const attempt = page.getByTestId("delivery").first().getByTestId("attempt").first();
    await expect
      .poll(() => attempt.textContent(), { timeout: 20_000 })
      .toMatch(
        new RegExp(`^Attempt 1, [^,]+, [\\d:]+, to ${hooks.url.replace(/[.?]/g, "\\$&")}/reports: 200 in \\d+ ms$`),
      );
    await expectNoHorizontalScroll(page, "webhooks with an attempt's URL");
    await expectAccessible(page, "webhooks with an attempt's URL");
    await screenshot(page, "webhooks-390");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
