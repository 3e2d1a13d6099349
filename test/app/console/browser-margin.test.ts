// The operator's Margin page in a real browser: after real sends to the simulator, which has a cost
// card (0.25 credits an SMS), the table shows what GET /admin/api/analytics/margin answers by
// account and, once picked, by connector, with its totals; the adaptive route's connectors show as
// GET /admin/api/routes/scores scores them; axe; usable at 390 px (no sideways scroll), where the
// totals row is a card with each figure named (audit F5). The Carriers page's routes say their
// strategy, and an adaptive route's connectors their shares, not weights (audit F6); a connector
// disabled takes no traffic, and both pages say so as GET /admin/api/routes/scores does (share 0 and
// why), the others' shares being of the traffic they carry; enabled again from the page, its shares
// are read again at once.
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  noneLoading,
  openSignedIn,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { waitUntilAllFinal } from "../../helpers/messages.js";
import { sendSms } from "../../helpers/sms.js";

/** A directory to write the 390 px screenshots to, to look at them (none by default). */
const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;

describeInBrowser("console in the browser: margin and routes", () => {
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "50", SIMULATOR_FAILURE_RATE: "0" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;
  const admin = async (method: string, path: string, body?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
      ...(body === undefined ? {} : { json: body }),
    });

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    const card = await admin("PUT", "/carriers/simulator/cost-card", {
      rows: [{ channel: "sms", route: "*", prefix: "*", price: 0.25 }],
    });
    expect(card.status, card.text).toBe(200);
    const route = await admin("PUT", "/routes", {
      route: "T",
      prefix: "91",
      strategy: "adaptive",
      connectors: [{ name: "simulator" }],
    });
    expect(route.status, route.text).toBe(201);
    for (const recipient of ["9876543210", "9876543211", "7012340001"]) {
      const answer = await sendSms(t, shop, { sender_id: "SWBRD", recipient, message: "Your code is 1234" });
      expect(answer.status, answer.text).toBe(200);
    }
    await waitUntilAllFinal(t.db.store, 20_000);
  });

  const cells = (page: import("playwright-core").Page, selector: string) =>
    page
      .locator(selector)
      .evaluateAll((rows) => rows.map((row) => [...row.children].map((cell) => cell.textContent ?? "")));
  type Margin = {
    rows: Array<{ key: string | null; messages: number; revenue: number; cost: number; margin: number }>;
    totals: { messages: number; revenue: number; cost: number; margin: number };
  };
  const margin = async (groupBy: string) =>
    (await admin("GET", `/analytics/margin?group_by=${groupBy}`)).body.data as Margin;
  const asShown = (rows: Margin["rows"]) =>
    rows.map((row) => [row.key ?? "none", ...[row.messages, row.revenue, row.cost, row.margin].map(String)]);

  it("shows the margin and the adaptive routes' scores the API answers, and fits a phone", async () => {
    const t = gateway();
    const byAccount = await margin("account");
    // 3 SMS at 1 credit each, 0.25 each to the simulator.
    expect(byAccount.rows).toEqual([expect.objectContaining({ key: shop.username, messages: 3, revenue: 3 })]);
    expect(byAccount.rows[0]).toMatchObject({ cost: 0.75, margin: 2.25 });
    const byConnector = await margin("connector");
    const scores = (await admin("GET", "/routes/scores")).body.data as Array<{
      route: string;
      connector: string;
      delivery_rate: number;
      receipts: number;
      receipts_delivered: number;
    }>;
    expect(scores.map((s) => [s.route, s.connector])).toEqual([["T/91", "simulator"]]);
    // The weighted rate under a header that says so, and the plain count of the same receipts beside it.
    const shownPercent = (rate: number) => `${(rate * 100).toFixed(1)} %`;
    const score = scores[0]!;
    // 7012340001 is one the simulator fails (…0001).
    expect(score).toMatchObject({ receipts: 3, receipts_delivered: 2 });
    const scoreRow = ["T/91", "simulator", shownPercent(score.delivery_rate), `2 of 3 (${shownPercent(2 / 3)})`];
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await openSignedIn(page, operator.username, operator.password, "/operator/margin");
      await page.getByRole("heading", { name: "Margin", exact: true }).waitFor();
      await page.getByTestId("margin-table").waitFor();
      await page.getByTestId("route-scores").waitFor();
      await noneLoading(page);
      expect((await cells(page, '[data-testid="margin-table"] tbody tr')).map((row) => row.slice(0, 5))).toEqual(
        asShown(byAccount.rows),
      );
      expect((await cells(page, '[data-testid="margin-totals"] tr'))[0]?.slice(0, 6)).toEqual([
        "Total",
        "3",
        "3",
        "0.75",
        "2.25",
        "75.0 %",
      ]);
      if (viewport.width === 390) {
        // Each figure of the totals card is named, as the body rows' are.
        const names = await page
          .locator('[data-testid="margin-totals"] td')
          .evaluateAll((tds) =>
            tds.map((td) => td.ownerDocument.defaultView?.getComputedStyle(td, "::before").content),
          );
        expect(names).toEqual(['"Messages"', '"Revenue"', '"Cost"', '"Margin"', '"Margin %"', "none"]);
        if (SHOTS) await page.screenshot({ path: `${SHOTS}/margin-390.png`, fullPage: true });
      }
      expect(
        (await cells(page, '[data-testid="route-scores"] tbody tr')).map((row) => [row[0], row[1], row[4], row[5]]),
      ).toEqual([scoreRow]);
      expect((await cells(page, '[data-testid="route-scores"] thead tr'))[0]?.slice(4, 6)).toEqual([
        "Delivered, weighted to recent",
        "Delivered of receipts",
      ]);
      await expectNoHorizontalScroll(page, `margin at ${viewport.width} px`);
      if (viewport.width === 1280) await expectAccessible(page, "margin page");

      await page.getByLabel("By").selectOption("connector");
      await page.getByRole("button", { name: "Show" }).click();
      await page.getByTestId("margin-table").getByRole("columnheader", { name: "Connector" }).waitFor();
      await noneLoading(page);
      expect((await cells(page, '[data-testid="margin-table"] tbody tr')).map((row) => row.slice(0, 5))).toEqual(
        asShown(byConnector.rows),
      );
      await expectNoHorizontalScroll(page, `margin by connector at ${viewport.width} px`);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it("lists each route with its strategy, an adaptive route's connectors with their shares, and fits a phone", async () => {
    const t = gateway();
    const weighted = await admin("PUT", "/routes", { route: "P", connectors: [{ name: "simulator", weight: 3 }] });
    expect(weighted.status, weighted.text).toBe(201);
    const shares = (await admin("GET", "/routes/scores")).body.data as Array<{ share: number }>;
    const shown = `simulator (share ${(shares[0]!.share * 100).toFixed(1)} %)`;
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const { page, context, problems } = await newPage(browser(), t.url, viewport);
      await openSignedIn(page, operator.username, operator.password, "/operator/carriers");
      await page.getByTestId("routes").waitFor();
      await page.getByTestId("routes").getByText("(share ").waitFor();
      await noneLoading(page);
      expect(await cells(page, '[data-testid="routes"] tbody tr')).toEqual([
        ["P", "every number", "weighted", "simulator (weight 3)"],
        ["T", "91", "adaptive (by measured delivery)", shown],
      ]);
      await page.getByRole("link", { name: "Margin, adaptive routes" }).waitFor();
      await expectNoHorizontalScroll(page, `carriers at ${viewport.width} px`);
      if (viewport.width === 1280) await expectAccessible(page, "carriers page with routes");
      else if (SHOTS) await page.screenshot({ path: `${SHOTS}/carriers-390.png`, fullPage: true });
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it("marks a route's disabled connector as taking no traffic on both pages, and gives the others its share", async () => {
    const t = gateway();
    const spare = await admin("POST", "/carriers", {
      name: "spare",
      type: "http-sms",
      method: "GET",
      url: "http://127.0.0.1:9/send?to={to}",
      auth: { type: "none" },
      response: { type: "json", id_path: "id" },
      timeout_ms: 1000,
      max_connections: 1,
      rate_per_second: 1,
    });
    expect(spare.status, spare.text).toBe(201);
    const route = await admin("PUT", "/routes", {
      route: "T",
      prefix: "91",
      strategy: "adaptive",
      connectors: [{ name: "simulator" }, { name: "spare" }],
    });
    expect(route.status, route.text).toBe(200);
    expect((await admin("PATCH", "/carriers/spare", { enabled: false })).status).toBe(200);
    // Both on trial: scored half each; the router leaves the disabled one out, and the API says so.
    type Share = { connector: string; share: number; idle: string | null };
    const shares = async () =>
      ((await admin("GET", "/routes/scores")).body.data as Share[]).map((s) => [s.connector, s.share, s.idle]);
    expect(await shares()).toEqual([
      ["simulator", 1, null],
      ["spare", 0, "disabled"],
    ]);
    const { page, context, problems } = await newPage(browser(), t.url, { width: 390, height: 844 });
    await openSignedIn(page, operator.username, operator.password, "/operator/carriers");
    await page.getByTestId("routes").getByText("(share ").waitFor();
    await noneLoading(page);
    const routeT = async () =>
      (await cells(page, '[data-testid="routes"] tbody tr')).find((row) => row[0] === "T")?.[3];
    expect(await routeT()).toBe("simulator (share 100.0 %), spare (disabled: no traffic)");
    await expectNoHorizontalScroll(page, "carriers with a disabled connector at 390 px");
    // Enabled again here: the route's shares are read again at once, the API's numbers.
    await page.getByRole("button", { name: "Enable spare" }).click();
    await expect.poll(routeT).toBe("simulator (share 50.0 %), spare (share 50.0 %)");
    expect(await shares()).toEqual([
      ["simulator", 0.5, null],
      ["spare", 0.5, null],
    ]);
    await page.getByRole("button", { name: "Disable spare" }).click();
    await expect.poll(routeT).toBe("simulator (share 100.0 %), spare (disabled: no traffic)");
    // The Margin page's scores say the same.
    await page.getByRole("link", { name: "Margin, adaptive routes" }).click();
    await page.getByTestId("route-scores").waitFor();
    // Its revenue by account is the operator's: a sub-account's messages at its reseller's charge.
    await page.getByText("A reseller's sub-account's messages count what the reseller was charged").waitFor();
    await noneLoading(page);
    await expect
      .poll(async () => (await cells(page, '[data-testid="route-scores"] tbody tr')).map((row) => [row[1], row[3]]))
      .toEqual([
        ["simulator", "100.0 %"],
        ["spare", "– (disabled)"],
      ]);
    await expectNoHorizontalScroll(page, "margin with a disabled connector at 390 px");
    expect(problems).toEqual([]);
    await context.close();
  });
});
