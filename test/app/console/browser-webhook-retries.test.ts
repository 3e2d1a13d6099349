// The Webhooks settings page's delivery log in a real browser at phone width (390 px): a delivery
// still retried says when its next attempt is, one given up says there are no more (as the
// message page's deliveries do), and each attempt says when it was made. No sideways scroll.
import { expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, useTestGateway } from "../../helpers/gateway.js";

const WHEN = /\d\d \w{3} \d{4}, \d\d:\d\d:\d\d/;

describeInBrowser("console in the browser: the webhook log's retries", () => {
  const gateway = useTestGateway("sqlite");
  const browser = useBrowser();

  it("says when a failing delivery is tried next, and that a failed one is not", async () => {
    const t = gateway();
    const shop = await buildAccount(t);
    const at = t.clock.now().getTime() - 60_000;
    await t.db.store.transaction(async (trx) => {
      const delivery = (status: "pending" | "failed", report: string, next: number) => ({
        account_id: shop.id,
        event: "delivery_report" as const,
        order_key: `q01HKSWEBLOG00000000000${report === "failed" ? "AA" : "AB"}`,
        webhook_id: `msg_log_${report}`,
        url: "https://hooks.example.org/switchboard/delivery-reports/receiver",
        payload: JSON.stringify({ event: "delivery_report", status: report }),
        status,
        attempts: 1,
        next_attempt_at: next,
        lease_until: null,
        last_status: 503,
        last_error: null,
        redelivery_of: null,
        created_at: at,
        done_at: status === "pending" ? null : at + 30_000,
      });
      const rows = await trx
        .insertInto("webhook_deliveries")
        .values([delivery("failed", "submitted", at + 30_000), delivery("pending", "failed", at + 3_600_000)])
        .returning("id")
        .execute();
      await trx
        .insertInto("webhook_attempts")
        .values(
          rows.map((row) => ({
            delivery_id: row.id,
            attempt: 1,
            status_code: 503,
            latency_ms: 40,
            error: null,
            at: at + 1000,
            url: "https://hooks.example.org/switchboard/delivery-reports/receiver",
          })),
        )
        .execute();
    });
    const { page, context, problems } = await phonePageAs(browser(), t.url, shop, "/settings/webhooks");
    const deliveries = page.getByTestId("delivery");
    await expect.poll(() => deliveries.count(), { timeout: 20_000 }).toBe(2);
    // Newest first: the pending one, then the one given up.
    const retry = deliveries.nth(0).getByTestId("delivery-retry");
    await expect
      .poll(async () => (await retry.textContent()) ?? "", { timeout: 20_000 })
      .toMatch(new RegExp(`^Next attempt ${WHEN.source}$`));
    expect(await deliveries.nth(1).getByTestId("delivery-retry").textContent()).toBe("No more attempts.");
    expect(await deliveries.nth(0).getByTestId("attempt").textContent()).toMatch(
      new RegExp(`^Attempt 1, ${WHEN.source}, to https://hooks\\.example\\.org/\\S+: 503 in 40 ms$`),
    );
    await expectNoHorizontalScroll(page, "the webhook log's retries at 390 px");
    await expectAccessible(page, "the webhook log's retries");
    await page.screenshot({ path: "/tmp/sb-webhook-retries-390.png", fullPage: true });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
