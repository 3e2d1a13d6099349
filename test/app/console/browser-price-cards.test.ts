// The operator's Price cards page in a real browser: a CSV file imported through the page (sent as
// text/csv, the rows the API then answers), the card's rows a page at a time from the server and
// narrowed there by prefix, the whole card downloaded as CSV; a bad file refused with its line and
// nothing written; a card an account is on refused deletion with the API's words, deleted once
// unused; the account page's hint links the page.
// Support staff read the cards without the import or delete. axe; no sideways scroll at 390 px.
import { readFile } from "node:fs/promises";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  signInAs,
  useConsole,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";

const DESKTOP = { width: 1280, height: 900 };
/** A directory to write the 390 px screenshots to, to look at them (none by default). */
const SHOTS = process.env.SWITCHBOARD_SHOTS_DIR;
/** 250 rows: 9100 to 9349, each at 0.1 plus a thousandth per step. */
const PREFIXES = Array.from({ length: 250 }, (_, i) => String(9100 + i));
const CARD = ["channel,route,prefix,price", ...PREFIXES.map((p, i) => `sms,*,${p},${(0.1 + i / 1000).toFixed(3)}`)];

/** The query of a request for a page of the card retail (undefined: another request). */
function cardQuery(url: string): URLSearchParams | undefined {
  const parsed = new URL(url);
  return parsed.pathname === "/admin/api/price-cards/retail" ? parsed.searchParams : undefined;
}

const csv = (name: string, lines: readonly string[]) => ({
  name,
  mimeType: "text/csv",
  buffer: Buffer.from(`${lines.join("\n")}\n`),
});

describeInBrowser("console in the browser: price cards", () => {
  const { gateway, operator, phonePage, page: openPage } = useConsole();
  const admin = (method: string, path: string, json?: unknown) =>
    call(gateway(), method, `/admin/api${path}`, {
      headers: { authorization: `Bearer ${operator().apiKey}` },
      ...(json === undefined ? {} : { json }),
    });
  let shop: TestAccount;

  beforeAll(async () => {
    shop = await buildAccount(gateway());
  });

  const bodyRows = (page: Page) => page.getByTestId("price-card-rows").locator("tbody tr");

  it("imports a CSV file, shows its rows by page and by prefix, and refuses a bad line with its number", async () => {
    const { page, context, problems } = await openPage(DESKTOP);
    await signInAs(page, operator().username, operator().password, "/operator/price-cards");
    await page.getByRole("heading", { name: "Price cards" }).waitFor();
    await expect
      .poll(() => page.getByTestId("price-cards").locator("tbody tr").first().textContent())
      .toMatch(/^default/);
    await page.getByLabel("Card name").fill("Retail");
    await page.getByLabel("CSV file", { exact: true }).setInputFiles(csv("retail.csv", CARD));
    await page.getByRole("button", { name: "Import the card" }).click();
    await expect.poll(() => page.getByTestId("card-imported").textContent()).toBe("Imported retail: 250 rows now.");
    const stored = await admin("GET", "/price-cards/retail?per_page=1000");
    expect(stored.body.data.rows).toHaveLength(250);
    expect(stored.body.data.rows[1]).toEqual({
      channel: "sms",
      route: "*",
      prefix: "9101",
      price: 0.101,
      effective_from: null,
    });
    const listed = page.getByTestId("price-card-retail").locator("td");
    await expect.poll(() => listed.allTextContents()).toEqual(["250", "0", expect.any(String), "Delete retail"]);
    await expectAccessible(page, "price cards page");

    // The page asks the server for one page at a time, never the whole card.
    const firstPage = page.waitForResponse((response) => cardQuery(response.url())?.get("page") === "1");
    await page.getByRole("link", { name: "The rows of retail" }).click();
    await page.getByRole("heading", { name: "Price card retail" }).waitFor();
    const first = await (await firstPage).json();
    expect([first.data.rows.length, first.data.row_count, first.meta]).toEqual([
      100,
      250,
      { page: 1, per_page: 100, total: 250, last_page: 3 },
    ]);
    await expect.poll(() => page.getByTestId("card-row-count").textContent()).toBe("250 rows");
    expect(await bodyRows(page).count()).toBe(100);
    expect(await bodyRows(page).first().locator("td").allTextContents()).toEqual(["sms", "*", "9100", "0.1", "always"]);
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByText("Page 2 of 3 (250 in all)").waitFor();
    expect(await bodyRows(page).first().locator("td").nth(2).textContent()).toBe("9200");
    const third = page.waitForRequest((request) => cardQuery(request.url())?.get("page") === "3");
    await page.getByRole("button", { name: "Next" }).click();
    await third;
    await page.getByText("Page 3 of 3 (250 in all)").waitFor();
    expect(await bodyRows(page).locator("td:nth-child(3)").allTextContents()).toEqual(PREFIXES.slice(200));
    expect(await page.getByRole("button", { name: "Next" }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Previous" }).click();
    await page.getByText("Page 2 of 3 (250 in all)").waitFor();

    // The prefix filter is the server's (a leading + dropped), from the first page.
    const filtered = page.waitForRequest((request) => cardQuery(request.url())?.get("prefix") === "931");
    await page.getByLabel("Prefix starts with").fill("+931");
    expect(Object.fromEntries(cardQuery((await filtered).url()) ?? [])).toEqual({
      page: "1",
      per_page: "100",
      prefix: "931",
    });
    await expect.poll(() => page.getByTestId("card-row-count").textContent()).toBe("10 of 250 rows match");
    await page.getByText("Page 1 of 1 (10 in all)").waitFor();
    expect(await bodyRows(page).locator("td:nth-child(3)").allTextContents()).toEqual(
      PREFIXES.filter((p) => p.startsWith("931")),
    );
    await expectAccessible(page, "price card page");

    // Export CSV: every row, in the columns the import reads.
    const download = page.waitForEvent("download");
    await page.getByRole("link", { name: "Export CSV" }).click();
    const exported = await readFile(await (await download).path(), "utf8");
    expect(exported).toBe(
      [
        "channel,route,prefix,price,effective_from",
        ...PREFIXES.map((p, i) => `sms,*,${p},${Number((0.1 + i / 1000).toFixed(3))},`),
        "",
      ].join("\n"),
    );

    // A bad third line: refused with its number, in the API's words; the card keeps its rows.
    const bad = ["channel,route,prefix,price", "sms,*,91,0.2", "sms,*,92,cheap"];
    await page.getByLabel("CSV file", { exact: true }).setInputFiles(csv("bad.csv", bad));
    await page.getByRole("button", { name: "Replace the rows of retail" }).click();
    const refusal = page.getByRole("alert");
    await expect
      .poll(() => refusal.textContent())
      .toBe(
        'Not imported: Line 3: price must be a number of credits, at least 0 (got "cheap"); nothing imported. invalid_request',
      );
    expect((await admin("GET", "/price-cards/retail?per_page=1000")).body.data.rows).toHaveLength(250);

    // A good one replaces the rows whole, and the page shows the new ones.
    await page.getByLabel("CSV file", { exact: true }).setInputFiles(csv("good.csv", bad.slice(0, 2)));
    await page.getByRole("button", { name: "Replace the rows of retail" }).click();
    await expect
      .poll(() => page.getByTestId("card-imported").textContent())
      .toBe("Replaced the 250 rows of retail: 1 row now.");
    await page.getByLabel("Prefix starts with").fill("");
    await expect.poll(() => page.getByTestId("card-row-count").textContent()).toBe("1 row");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("refuses to delete a card an account is on with the API's words, then deletes it once unused", async () => {
    expect(
      (await admin("PUT", "/price-cards/used", { rows: [{ channel: "sms", route: "*", prefix: "91", price: 0.2 }] }))
        .status,
    ).toBe(200);
    expect((await admin("PATCH", `/accounts/${shop.username}`, { price_card: "used" })).status).toBe(200);
    const { page, context, problems } = await openPage(DESKTOP);
    await signInAs(page, operator().username, operator().password, `/operator/accounts/${shop.username}`);
    // The account page's hint names the card's rows and links the Price cards page.
    await page.getByRole("link", { name: "1 row" }).waitFor();
    await page.getByRole("main").getByRole("link", { name: "Price cards" }).click();
    await page.getByRole("heading", { name: "Price cards" }).waitFor();

    await page.getByRole("button", { name: "Delete used" }).click();
    await page.getByRole("button", { name: "Confirm: delete used" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toBe('Not deleted: The price card "used" prices 1 account: move it to another card first. conflict');
    expect((await admin("GET", "/price-cards/used")).status).toBe(200);

    expect((await admin("PATCH", `/accounts/${shop.username}`, { price_card: null })).status).toBe(200);
    await page.getByRole("button", { name: "Delete used" }).click();
    await page.getByRole("button", { name: "Confirm: delete used" }).click();
    await page.getByText("Deleted the price card used.").waitFor();
    await expect.poll(() => page.getByTestId("price-card-used").count()).toBe(0);
    expect((await admin("GET", "/price-cards/used")).status).toBe(404);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("fits a 390 px phone and passes axe; support staff read the cards without import or delete", async () => {
    const phone = await phonePage(operator(), "/operator/price-cards");
    await phone.page.getByRole("heading", { name: "Price cards" }).waitFor();
    await phone.page.getByRole("button", { name: "Import the card" }).waitFor();
    await expectNoHorizontalScroll(phone.page, "price cards at 390 px");
    await expectAccessible(phone.page, "price cards at 390 px");
    if (SHOTS) await phone.page.screenshot({ path: `${SHOTS}/price-cards-390.png`, fullPage: true });
    await visit(phone.page, "/operator/price-cards/retail");
    await phone.page.getByTestId("price-card-rows").waitFor();
    await expectNoHorizontalScroll(phone.page, "a price card at 390 px");
    await expectAccessible(phone.page, "a price card at 390 px");
    if (SHOTS) await phone.page.screenshot({ path: `${SHOTS}/price-card-390.png`, fullPage: true });
    expect(phone.problems).toEqual([]);
    await phone.context.close();

    const added = await admin("POST", "/staff", {
      login: "sam",
      user_role: "operator_support",
      password: "sam-password-1",
    });
    expect(added.status, added.text).toBe(201);
    const { page, context, problems } = await openPage();
    await page.goto("/operator/price-cards");
    await page.getByLabel("Username").fill(operator().username);
    await page.getByLabel("Your login").fill("sam");
    await page.getByLabel("Password").fill("sam-password-1");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Price cards" }).waitFor();
    await page.getByTestId("price-card-retail").waitFor();
    await page.getByRole("button", { name: "Menu" }).click();
    await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Price cards" }).waitFor();
    expect(await page.getByRole("button", { name: /Delete|Import/ }).count()).toBe(0);
    await page.getByText("Your role reads the price cards").waitFor();
    await visit(page, "/operator/price-cards/retail");
    await page.getByTestId("price-card-rows").waitFor();
    expect(await page.getByRole("button", { name: /Replace/ }).count()).toBe(0);
    await expectNoHorizontalScroll(page, "a price card for support staff");
    expect(problems).toEqual([]);
    await context.close();
  });
});
