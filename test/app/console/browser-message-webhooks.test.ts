// The customer's message page in a real browser at phone width (390 px): each webhook attempt
// names the URL it posted to, since a delivery follows the account's current URL (as the webhook
// delivery log does, c6f82df): an attempt to the old URL, then one to the new. No sideways scroll.
// A delivery still retried says when its next attempt is; one given up says there are no more.
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";

describeInBrowser("console in the browser: a message's webhook attempts", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();

  it("names the URL each attempt of a delivery posted to", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const at = t.clock.now().getTime() - 60_000;
    const id = "q01HKSWEB0000000000000000AA";
    const oldUrl = "https://old-hooks.example.com/switchboard/delivery-reports/receiver";
    const newUrl = "https://hooks.example.org/dlr";
    await t.db.store.transaction(async (trx) => {
      await t.db.store.insertMany(trx, "messages", [
        messageRow({
          id,
          account_id: shop.id,
          recipient: "9812340012",
          status: "delivered",
          created_at: at,
          done_at: at + 5000,
        }),
      ]);
      const delivery = await trx
        .insertInto("webhook_deliveries")
        .values({
          account_id: shop.id,
          event: "delivery_report",
          order_key: id,
          webhook_id: "msg_hooks_1",
          url: newUrl,
          payload: JSON.stringify({ id, status: "delivered" }),
          status: "delivered",
          attempts: 2,
          next_attempt_at: at + 20_000,
          lease_until: null,
          last_status: 200,
          last_error: null,
          redelivery_of: null,
          created_at: at + 5000,
          done_at: at + 20_000,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await trx
        .insertInto("webhook_attempts")
        .values([
          {
            delivery_id: delivery.id,
            attempt: 1,
            status_code: 503,
            latency_ms: 40,
            error: null,
            at: at + 6000,
            url: oldUrl,
          },
          {
            delivery_id: delivery.id,
            attempt: 2,
            status_code: 200,
            latency_ms: 12,
            error: null,
            at: at + 20_000,
            url: newUrl,
          },
        ])
        .execute();
    });
    const { page, context, problems } = await phonePageAs(browser(), t.url, shop, `/messages/${id}`);
    await page.getByText(/The delivered report/).click();
    const attempts = page.getByTestId("attempt");
    await expect.poll(() => attempts.count(), { timeout: 20_000 }).toBe(2);
    expect(await attempts.nth(0).textContent()).toMatch(
      /^Attempt 1, .+, to https:\/\/old-hooks\.example\.com\/\S+: 503 in 40 ms$/,
    );
    expect(await attempts.nth(0).locator("code").textContent()).toBe(oldUrl);
    expect(await attempts.nth(1).locator("code").textContent()).toBe(newUrl);
    expect(await attempts.nth(1).textContent()).toMatch(/: 200 in 12 ms$/);
    await expectNoHorizontalScroll(page, "a message's webhook attempts at 390 px");
    await expectAccessible(page, "a message's webhook attempts");
    await page.screenshot({ path: "/tmp/sb-message-webhooks-390.png", fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("says when a pending delivery is tried next, and that a failed one is not", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const at = t.clock.now().getTime() - 60_000;
    const id = "q01HKSWEB0000000000000000AB";
    await t.db.store.transaction(async (trx) => {
      await t.db.store.insertMany(trx, "messages", [
        messageRow({ id, account_id: shop.id, recipient: "9812340013", status: "failed", created_at: at, done_at: at }),
      ]);
      const delivery = (status: "pending" | "failed", report: string, next: number) => ({
        account_id: shop.id,
        event: "delivery_report" as const,
        order_key: id,
        webhook_id: `msg_hooks_${report}`,
        url: "https://hooks.example.org/dlr",
        payload: JSON.stringify({ id, status: report }),
        status,
        attempts: 3,
        next_attempt_at: next,
        lease_until: null,
        last_status: 500,
        last_error: null,
        redelivery_of: null,
        created_at: at,
        done_at: status === "pending" ? null : at + 30_000,
      });
      await trx
        .insertInto("webhook_deliveries")
        .values([delivery("failed", "submitted", at + 30_000), delivery("pending", "failed", at + 3_600_000)])
        .execute();
    });
    const { page, context, problems } = await phonePageAs(browser(), t.url, shop, `/messages/${id}`);
    const pending = page.locator("summary", { hasText: "The failed report" });
    await expect
      .poll(async () => (await pending.textContent()) ?? "", { timeout: 20_000 })
      .toMatch(/^The failed report: pending after 3 attempts; next attempt \d\d \w{3} \d{4}, \d\d:\d\d:\d\d$/);
    expect(await page.locator("summary", { hasText: "The submitted report" }).textContent()).toBe(
      "The submitted report: failed after 3 attempts; no more attempts",
    );
    await expectNoHorizontalScroll(page, "a message's pending webhook at 390 px");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
