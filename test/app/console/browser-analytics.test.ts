// The operator's Delivery analytics page in a real browser: after real sends to the simulator
// (some delivered, one failed UNDELIV, one rejected), the tables under the pictures show what
// GET /admin/api/analytics/delivery answers, row for row; axe; usable at 390 px (no sideways scroll).
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  noneLoading,
  signInAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";
import { sendSms } from "../../helpers/sms.js";

describeInBrowser("console in the browser: delivery analytics", () => {
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    for (const recipient of ["9876543210", "9876543211", "7012340001", "9812340002", "8812345678"]) {
      const answer = await sendSms(t, shop, { sender_id: "SWBRD", recipient, message: "Your code is 1234" });
      expect(answer.status, answer.text).toBe(200);
    }
    await waitUntilAllFinal(t.db.store, 20_000);
  });

  /** The table's body rows as their cells' text. */
  const cells = (page: import("playwright-core").Page, testId: string) =>
    page
      .getByTestId(testId)
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "")));

  it("shows the numbers the API answers under each picture, and fits a phone", async () => {
    const t = gateway();
    const api = async (groupBy: string) =>
      (
        await call(t, "GET", `/admin/api/analytics/delivery?group_by=${groupBy}`, {
          headers: { authorization: `Bearer ${operator.apiKey}` },
        })
      ).body.data.rows as Array<{ key: string | null; sent: number; delivered: number; failed: number }>;
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await signInAs(page, operator.username, operator.password, "/operator/analytics");
      await page.getByRole("heading", { name: "Delivery analytics" }).waitFor();
      await page.getByTestId("analytics-error_code").waitFor();
      await noneLoading(page);
      for (const groupBy of ["connector", "account", "error_code", "route"]) {
        const shown = await cells(page, `analytics-${groupBy}`);
        const rows = await api(groupBy);
        expect(
          shown.map((row) => row.slice(0, 4)),
          groupBy,
        ).toEqual(rows.map((row) => [row.key ?? "none", String(row.sent), String(row.delivered), String(row.failed)]));
      }
      // 5 sent: 3 delivered, UNDELIV and rejected failed.
      expect((await cells(page, "analytics-account"))[0]?.slice(0, 6)).toEqual([
        shop.username,
        "5",
        "3",
        "2",
        "0",
        "60.0 %",
      ]);
      expect((await cells(page, "analytics-error_code")).map((row) => row[0]).sort()).toEqual(
        ["UNDELIV", "none", "rejected"].sort(),
      );
      expect(await cells(page, "analytics-day")).toHaveLength(1);
      await expectNoHorizontalScroll(page, `analytics at ${viewport.width} px`);
      if (viewport.width === 1280) await expectAccessible(page, "analytics page");
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
