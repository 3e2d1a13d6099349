// The operator's Delivery analytics page in a real browser: after real sends to the simulator
// (some delivered, one failed UNDELIV, one rejected), the tables under the pictures show what
// GET /admin/api/analytics/delivery answers, row for row; the day charts span the day of traffic
// and its count, the bars' labels keep their shape; axe; usable at 390 px (no sideways scroll).
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
      // 4 sent: 3 delivered, UNDELIV failed; the one refused at submit rejected, not sent (audit F9).
      expect((await cells(page, "analytics-account"))[0]?.slice(0, 7)).toEqual([
        shop.username,
        "4",
        "3",
        "1",
        "0",
        "1",
        "75.0 %",
      ]);
      expect((await cells(page, "analytics-error_code")).map((row) => row[0]).sort()).toEqual(
        ["UNDELIV", "none", "rejected"].sort(),
      );
      expect(await cells(page, "analytics-day")).toHaveLength(1);
      // The day charts span the day of traffic, not years around it, and reach above its count (audit row 8).
      const [day] = await api("day");
      const charts = await page.getByTestId("time-chart").evaluateAll((boxes) =>
        boxes.map((box) => ({
          xFrom: box.getAttribute("data-x-from") ?? "",
          xTo: box.getAttribute("data-x-to") ?? "",
          yMax: box.getAttribute("data-y-max") ?? "",
        })),
      );
      expect(charts).toHaveLength(2);
      for (const chart of charts) {
        const [from, to, at] = [Date.parse(chart.xFrom ?? ""), Date.parse(chart.xTo ?? ""), Date.parse(day!.key ?? "")];
        expect(from, JSON.stringify(chart)).toBeLessThan(at);
        expect(to, JSON.stringify(chart)).toBeGreaterThan(at);
        expect(to - from, JSON.stringify(chart)).toBeLessThanOrEqual(2 * 86_400_000);
      }
      expect(Number(charts[0]!.yMax)).toBeGreaterThan(day!.sent);
      // Each bar's label is drawn at its font's own shape: never stretched wider or squeezed flat.
      const names = await page.locator("table[data-testid^='analytics-'] tbody th").allTextContents();
      const labels = await page.locator("figure.chart *").evaluateAll(
        (elements, shown) =>
          elements
            .filter((el) => !el.closest("table") && el.children.length === 0 && shown.includes(el.textContent ?? ""))
            .map((el) => {
              // The text's own box (a grid cell's element is as wide as its column).
              const range = el.ownerDocument.createRange();
              range.selectNodeContents(el);
              const box = range.getBoundingClientRect();
              return {
                text: el.textContent ?? "",
                width: box.width,
                height: box.height,
                font: Number.parseFloat(el.ownerDocument.defaultView?.getComputedStyle(el).fontSize ?? "0"),
              };
            }),
        names,
      );
      expect(labels.length).toBeGreaterThanOrEqual(4);
      for (const label of labels) {
        expect(label.font, label.text).toBeGreaterThanOrEqual(12);
        expect(label.width / label.text.length, label.text).toBeLessThanOrEqual(label.font);
        expect(label.height, label.text).toBeGreaterThanOrEqual(label.font);
      }
      await expectNoHorizontalScroll(page, `analytics at ${viewport.width} px`);
      if (viewport.width === 1280) await expectAccessible(page, "analytics page");
      expect(problems).toEqual([]);
      await context.close();
    }
  });
});
