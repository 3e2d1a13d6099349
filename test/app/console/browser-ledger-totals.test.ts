// An auditor adds up a ledger in a real browser, at phone width: the account's Credits page and
// the operator's account page show each wallet's opening balance, what each kind of entry moved
// (top-ups, spent, refunded, transferred, corrections) and its closing balance between two dates,
// and say whether the entries add up to the balance kept (and which wallet does not).
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount } from "../../helpers/gateway.js";
import { keyOf, sendSms } from "../../helpers/sms.js";

/** The figures of a wallet's row, in the table's order after its name. */
const HEADERS = [
  "Wallet",
  "Opening",
  "Top-ups",
  "Spent",
  "Refunded",
  "Transferred in",
  "Transferred out",
  "Corrections",
  "Closing",
  "Entries",
];

describeInBrowser("console in the browser: the ledger's totals", () => {
  const { gateway, operator, phonePage } = useConsole();
  let shop: TestAccount;

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t, { credits: { sms: 100 } });
    const friend = await buildAccount(t, { credits: { sms: 1 } });
    for (const recipient of ["9876543210", "9876543211"]) {
      const sent = await sendSms(t, shop, { sender_id: "SWBRD", recipient, message: "hi" });
      expect(sent.status, sent.text).toBe(200);
    }
    const moved = await call(t, "POST", "/api/v2/credits/transfer", {
      headers: keyOf(shop),
      json: { recipient_username: friend.username, amount: 10.5 },
    });
    expect(moved.status, moved.text).toBe(200);
  });

  it("adds up the account's wallets on its Credits page, and for a window of dates", async () => {
    const { page, context, problems } = await phonePage(shop, "/credits");
    await page.getByRole("heading", { name: "Credits", exact: true }).waitFor();
    await noneLoading(page);
    const table = page.getByTestId("ledger-totals");
    expect(await table.locator("thead th").allTextContents()).toEqual(HEADERS);
    const sms = page.getByTestId("ledger-totals-sms");
    await expect
      .poll(() => sms.locator("th, td").allTextContents())
      .toEqual(["SMS", "0", "100", "-2", "0", "0", "-10.5", "0", "87.5", "4"]);
    // Wallets never funded are left out.
    expect(await table.locator("tbody tr").count()).toBe(1);
    expect(await page.getByTestId("ledger-adds-up").textContent()).toBe(
      "Every wallet's entries add up to its balance now.",
    );
    await expectNoHorizontalScroll(page, "the Credits page with its ledger totals");
    await expectAccessible(page, "the Credits page with its ledger totals");

    // From tomorrow on: everything so far is the opening balance, nothing moved.
    const tomorrow = new Date(Date.now() + 36 * 3600 * 1000).toISOString().slice(0, 10);
    await page.getByLabel("From (date)", { exact: true }).fill(tomorrow);
    await page.getByRole("button", { name: "Add up" }).click();
    await expect
      .poll(() => sms.locator("th, td").allTextContents())
      .toEqual(["SMS", "87.5", "0", "0", "0", "0", "0", "0", "87.5", "0"]);
    expect(await table.locator("caption").textContent()).toBe(`Ledger totals per wallet, from ${tomorrow} to now`);
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the operator the same, and names a wallet whose balance is not its entries' sum", async () => {
    const t = gateway();
    // A balance changed behind the ledger's back (as a bad restore or a hand edit would).
    await t.db.store.db
      .updateTable("wallets")
      .set({ balance: 86_500 })
      .where("account_id", "=", shop.id)
      .where("wallet", "=", "sms")
      .execute();
    const { page, context, problems } = await phonePage(operator(), `/operator/accounts/${shop.username}`);
    await page.getByRole("heading", { name: `Account ${shop.username}` }).waitFor();
    await noneLoading(page);
    const sms = page.getByTestId("ledger-totals-sms");
    await expect
      .poll(() => sms.locator("th, td").allTextContents())
      .toEqual(["SMS", "0", "100", "-2", "0", "0", "-10.5", "0", "87.5", "4"]);
    expect(await page.getByTestId("ledger-adds-up").textContent()).toBe(
      "SMS: the entries add up to 87.5, the balance is 86.5.",
    );
    expect(await page.getByTestId("ledger-adds-up").getAttribute("role")).toBe("alert");
    await expectNoHorizontalScroll(page, "the operator's account page with its ledger totals");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
