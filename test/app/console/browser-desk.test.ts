// The operator's support desk in a real browser (issue 38, items 1, 4 and 8): every account's
// messages searched with the operator's filters, "More" following the cursor, a message's page
// with its account and full timeline; "View as this account" (the banner, a change refused as
// read_only_view in words, Close, the view recorded); exports downloaded as files (CSV header row
// and a row; JSON Lines) from the operator's and the account's pages; a balance corrected up and
// down, and a correction the wallet cannot cover refused in words. axe on every page, 390 px wide.
import { readFileSync } from "node:fs";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  newPage,
  signInAs,
  useBrowser,
  visit,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { balanceOf, FAST_SIMULATOR, sendSms, waitForStatus } from "../../helpers/sms.js";

/** Clicks the link named `name` and answers the downloaded file's name and text. */
async function download(page: Page, name: string): Promise<{ file: string; text: string }> {
  const [file] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name, exact: true }).click(),
  ]);
  const path = await file.path();
  return { file: file.suggestedFilename(), text: readFileSync(path, "utf8") };
}

describeInBrowser("console in the browser: the operator's desk", () => {
  const gateway = useTestGateway("sqlite", { env: FAST_SIMULATOR });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;
  let other: TestAccount;
  let busy: TestAccount;
  let failedId: string;
  let deliveredId: string;
  let otherId: string;

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t, { credits: { sms: 100 } });
    other = await buildAccount(t, { credits: { sms: 100 } });
    busy = await buildAccount(t, { credits: { sms: 100 } });
    const send = async (account: TestAccount, recipient: string, message: string) => {
      const sent = await sendSms(t, account, { sender_id: "SWBRD", recipient, message });
      expect(sent.status, sent.text).toBe(200);
      return sent.body.data.message_id as string;
    };
    // 51 messages: one more than the operator's page shows at first (numbers the simulator delivers).
    // Note 0 first (the oldest: the last row), the 50 others at once.
    await send(busy, "9876530000", "Note 0");
    await Promise.all(
      Array.from({ length: 50 }, (_, n) => send(busy, `98765${String(30010 + n * 10)}`, `Note ${n + 1}`)),
    );
    // The simulator fails a number ending in 0001 (UNDELIV) and delivers one ending in 0011.
    deliveredId = await send(shop, "9876500011", "Your order has shipped");
    failedId = await send(shop, "9876500001", "A message that fails");
    otherId = await send(other, "9876500013", "Hello from the other account");
    for (const id of [deliveredId, failedId]) await waitForStatus(t, shop, id);
    await waitForStatus(t, other, otherId);
  }, 60_000);

  it("searches every account's messages and opens one with its account and full timeline", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await signInAs(page, operator.username, operator.password);
    // The account's page links to its messages, pre-filtered.
    await page.goto(`/operator/accounts/${shop.username}`);
    await page.getByRole("link", { name: `Messages of ${shop.username}` }).click();
    await page.getByRole("heading", { name: `Messages of ${shop.username}` }).waitFor();
    const table = page.getByTestId("operator-messages");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(2);
    expect(await table.locator("tbody").textContent()).not.toContain(other.username);
    expect(await page.getByLabel("Account (username)").inputValue()).toBe(shop.username);

    // Every account (the navigation's link: the form follows the address), then by error code.
    await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "All messages" }).click();
    await page.getByRole("heading", { name: "All messages" }).waitFor();
    expect(await page.getByLabel("Account (username)").inputValue()).toBe("");
    await expect.poll(() => table.locator("tbody").textContent()).toContain(other.username);
    expect(await table.locator("tbody").textContent()).toContain(shop.username);
    await expectAccessible(page, "operator messages page");
    await page.getByLabel("Error code").fill("UNDELIV");
    await page.getByLabel("Status").selectOption("failed");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").textContent()).toContain(shop.username);

    // One message by its id, whichever account it is of.
    await page.goto(`/operator/messages?id=${otherId}`);
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").textContent()).toContain(other.username);
    expect(await page.getByLabel("Id", { exact: true }).inputValue()).toBe(otherId);
    await page.goBack();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").textContent()).toContain(shop.username);
    await table.locator("tbody tr").getByRole("link").click();
    await page.getByRole("heading", { name: "Message to 9876500001" }).waitFor();
    expect(await page.getByTestId("message-account").textContent()).toBe(shop.username);
    expect(await page.getByTestId("message-account").getByRole("link").getAttribute("href")).toBe(
      `/operator/accounts/${shop.username}`,
    );
    expect(await page.getByTestId("message-status").textContent()).toBe("failed");
    expect(await page.getByText(failedId).count()).toBeGreaterThan(0);
    const timeline = page.getByTestId("timeline");
    await expect.poll(() => timeline.textContent()).toMatch(/accepted.*failed/s);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByRole("note").textContent()).toContain("UNDELIV");
    // Why the charge stayed, and where the operator decides it.
    expect(await page.getByTestId("message-cost").textContent()).toBe(
      "1 credit from the SMS wallet (not refunded: its carrier took it before it failed; Carrier refunds sets which carriers' failures are refunded)",
    );
    await expectAccessible(page, "operator message page");
    await page.getByRole("link", { name: "Back to the messages" }).click();
    await page.getByRole("heading", { name: "All messages" }).waitFor();

    // "More" follows the cursor: 50 rows, then the 51st.
    await page.goto(`/operator/messages?account=${busy.username}`);
    await expect.poll(() => table.locator("tbody tr").count()).toBe(50);
    await page.getByRole("button", { name: "More" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(51);
    expect(await page.getByRole("button", { name: "More" }).count()).toBe(0);
    // Newest first: the last row is the first message sent.
    expect(await table.locator("tbody tr").last().textContent()).toContain("Note 0");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("views an account read-only: the banner, a change refused in words, Close, the view recorded", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    await signInAs(page, operator.username, operator.password, `/operator/accounts/${other.username}`);
    await page.getByRole("button", { name: "View as this account" }).click();
    const banner = page.getByTestId("view-banner");
    await banner.waitFor();
    expect(await banner.textContent()).toContain(`Viewing ${other.username} as operator — read only`);
    await page.getByRole("heading", { name: "Overview" }).waitFor();
    expect(await page.getByRole("navigation", { name: "Operator" }).count()).toBe(0);
    await expectAccessible(page, "the account's overview in a read-only view");

    // The account's own pages read as the account; a change is refused, in words.
    await page.getByRole("link", { name: "Messages", exact: true }).click();
    await page.getByRole("cell", { name: "9876500013" }).waitFor();
    await page.getByRole("link", { name: "Send", exact: true }).click();
    await page.getByLabel("To", { exact: true }).fill("9876543210");
    await page.getByLabel("Message").fill("from the operator's view");
    await page.getByRole("button", { name: "Send SMS" }).click();
    const refusal = page.getByRole("alert");
    await expect.poll(() => refusal.locator(".error-code").textContent()).toBe("read_only_view");
    expect(await refusal.textContent()).toContain(`read-only view of ${other.username}`);
    expect(await balanceOf(gateway(), other)).toBe(99);

    await banner.getByRole("button", { name: "Close" }).click();
    await page.getByRole("heading", { name: `Account ${other.username}` }).waitFor();
    expect(await banner.count()).toBe(0);
    await page.getByRole("navigation", { name: "Operator" }).waitFor();
    expect((await context.cookies()).filter((c) => c.name === "sb_view")).toEqual([]);

    await page.getByText(`Recent views of ${other.username}`).click();
    const views = page.getByTestId("account-views");
    await expect.poll(() => views.locator("tbody tr").count()).toBe(1);
    expect(await views.locator("tbody tr").textContent()).toContain(operator.username);
    expect(await views.locator("tbody tr").textContent()).not.toContain("still open");
    await page.getByRole("navigation", { name: "Operator" }).getByRole("link", { name: "Account views" }).click();
    await page.getByRole("heading", { name: "Account views" }).waitFor();
    await expect.poll(() => views.locator("tbody").textContent()).toContain(other.username);
    await expectAccessible(page, "account views page");
    expect(problems).toEqual([]);
    // An operator account offers no view: the server refuses one (its staff sign in with their roles).
    await page.goto(`${gateway().url}/operator/accounts/${operator.username}`);
    await page.getByRole("heading", { name: "Support" }).waitFor();
    expect(await page.getByRole("button", { name: "View as this account" }).count()).toBe(0);
    await page.getByText("An operator account is not viewed").waitFor();
    await context.close();
  }, 60_000);

  it("downloads exports with the page's filters: the operator's and the account's messages, and ledgers", async () => {
    const op = await newPage(browser(), gateway().url);
    await signInAs(
      op.page,
      operator.username,
      operator.password,
      `/operator/messages?account=${shop.username}&status=failed`,
    );
    await op.page.getByTestId("operator-messages").locator("tbody tr").first().waitFor();
    const csv = await download(op.page, "CSV");
    expect(csv.file).toBe("messages.csv");
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines[0]).toMatch(/^account,message_id,/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`${shop.username},${failedId},`);
    const jsonl = await download(op.page, "JSON Lines");
    expect(jsonl.file).toBe("messages.jsonl");
    const rows = jsonl.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(rows).toEqual([expect.objectContaining({ account: shop.username, message_id: failedId, status: "failed" })]);

    await op.page.goto(`/operator/accounts/${shop.username}`);
    const ledger = await download(op.page, "CSV");
    expect(ledger.file).toBe(`${shop.username}-ledger.csv`);
    const ledgerLines = ledger.text.trim().split(/\r?\n/);
    expect(ledgerLines[0]).toMatch(/^id,wallet,amount,balance_after,kind,ref/);
    expect(ledgerLines.slice(1).some((line) => /,sms,100,100,/.test(line))).toBe(true);
    await op.context.close();

    const customer = await newPage(browser(), gateway().url);
    await signInAs(customer.page, shop.username, shop.password, "/messages?status=delivered");
    await customer.page.getByRole("cell", { name: "9876500011" }).waitFor();
    const own = await download(customer.page, "CSV");
    const ownLines = own.text.trim().split(/\r?\n/);
    expect(ownLines[0]).toMatch(/^message_id,/);
    expect(ownLines).toHaveLength(2);
    expect(ownLines[1]).toContain(deliveredId);
    await customer.page.goto("/credits");
    const credits = await download(customer.page, "JSON Lines");
    const entries = credits.text
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(entries[0]).toMatchObject({ wallet: "sms", amount: 100, balance_after: 100 });
    expect(entries.length).toBeGreaterThanOrEqual(3);
    expect(op.problems).toEqual([]);
    expect(customer.problems).toEqual([]);
    await customer.context.close();
  }, 60_000);

  it("corrects a balance down and up with a reason, and says why one the wallet cannot cover is refused", async () => {
    const { page, context, problems } = await newPage(browser(), gateway().url);
    const before = await balanceOf(gateway(), busy);
    await signInAs(page, operator.username, operator.password, `/operator/accounts/${busy.username}`);
    await page.getByLabel("Credits (+ or −)").fill("-5");
    await page.getByLabel("Reason").fill("Charged twice for job 7");
    await page.getByRole("button", { name: "Correct the balance" }).click();
    await page.getByRole("button", { name: /^Confirm: (take|add) / }).click();
    const done = page.getByRole("status").filter({ hasText: "now holds" });
    await expect.poll(() => done.textContent()).toContain(`Took away 5 credits (Charged twice for job 7)`);
    expect(await done.textContent()).toContain(`now holds ${before - 5}`);
    await expect.poll(() => page.getByTestId("operator-wallet-sms").textContent()).toContain(String(before - 5));
    const ledger = page.getByRole("table", { name: "The last 500 entries, newest first" });
    await expect.poll(() => ledger.locator("tbody tr").first().textContent()).toMatch(/adjustment.*-5.*Charged twice/);
    expect(await balanceOf(gateway(), busy)).toBe(before - 5);

    await page.getByLabel("Credits (+ or −)").fill("-100000");
    await page.getByLabel("Reason").fill("Too much");
    await page.getByRole("button", { name: "Correct the balance" }).click();
    await page.getByRole("button", { name: /^Confirm: (take|add) / }).click();
    const refusal = page.getByRole("alert");
    await expect.poll(() => refusal.locator(".error-code").textContent()).toBe("insufficient_credits");
    expect(await refusal.textContent()).toContain(`holds ${before - 5} credits: it cannot lose 100000`);
    expect(await balanceOf(gateway(), busy)).toBe(before - 5);

    await page.getByLabel("Credits (+ or −)").fill("2.5");
    await page.getByRole("button", { name: "Correct the balance" }).click();
    await page.getByRole("button", { name: /^Confirm: (take|add) / }).click();
    await expect.poll(() => done.textContent()).toContain("Added 2.5 credits (Too much)");
    expect(await balanceOf(gateway(), busy)).toBe(before - 2.5);
    await expectAccessible(page, "operator account page with the desk");
    const detail = await call(gateway(), "GET", `/admin/api/accounts/${busy.username}/ledger?limit=1`, {
      headers: { authorization: `Bearer ${operator.apiKey}` },
    });
    expect(detail.body.data[0]).toMatchObject({ kind: "adjustment", amount: 2.5, note: "Too much" });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("works at 390 px wide: no page scrolls sideways, every column of the desk's lists on screen", async () => {
    const { page, context } = await newPage(browser(), gateway().url, { width: 390, height: 844 });
    await signInAs(page, operator.username, operator.password);
    for (const path of [
      "/operator/messages",
      `/operator/messages/${failedId}`,
      "/operator/views",
      `/operator/accounts/${shop.username}`,
    ]) {
      await visit(page, path);
      await expectNoHorizontalScroll(page, path);
    }
    await page.goto(`/operator/accounts/${shop.username}`);
    await page.getByRole("button", { name: "View as this account" }).click();
    await page.getByTestId("view-banner").waitFor();
    for (const path of ["/", "/messages", "/credits"]) {
      await visit(page, path);
      await page.getByTestId("view-banner").waitFor();
      await expectNoHorizontalScroll(page, `${path} in a view`);
    }
    await page.getByTestId("view-banner").getByRole("button", { name: "Close" }).click();
    await page.getByRole("heading", { name: `Account ${shop.username}` }).waitFor();
    // Every column of a row on screen (a row becomes a block of labelled lines), Status and Text
    // too; the view just closed is listed.
    for (const [path, table] of [
      ["/operator/messages", "operator-messages"],
      ["/operator/views", "account-views"],
    ] as const) {
      await page.goto(path);
      const row = page.getByTestId(table).locator("tbody tr").first();
      await row.waitFor();
      const cells = await row.locator("td").all();
      expect(cells.length).toBeGreaterThanOrEqual(5);
      for (const cell of cells) {
        const box = await cell.boundingBox();
        expect(box && box.x >= 0 && box.x + box.width <= 390, `${path}: ${await cell.textContent()}`).toBe(true);
      }
      await expectAccessible(page, `${path} at 390 px`);
    }
    await context.close();
  }, 60_000);
});
