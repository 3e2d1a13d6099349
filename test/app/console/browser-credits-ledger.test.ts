// The Credits page and the operator's account ledger in a real browser at phone width (support
// audit): the daily table says what it counts (messages of every channel, SMS credits), the
// ledger's last entries say they are the last 10 and point at the export (no "Page 1 of 1 (10 in
// all)" over a longer ledger); the operator's account ledger has a Ref column, a refund's message
// id linked to the operator's message page.
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, type TestAccount } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { sendSms } from "../../helpers/sms.js";

describeInBrowser("console in the browser: credits and the operator's ledger", () => {
  const { gateway, operator, page: newPage } = useConsole();
  let shop: TestAccount;
  const sent: string[] = [];

  beforeAll(async () => {
    const t = gateway();
    shop = await buildAccount(t, { credits: { sms: 100, whatsapp: 10, email: 10 } });
    for (let i = 0; i < 12; i++) {
      const answer = await sendSms(t, shop, { sender_id: "SWBRD", recipient: `98765431${10 + i}`, message: "hi" });
      expect(answer.status, answer.text).toBe(200);
      sent.push(answer.body.data.message_id as string);
    }
    // Five messages of other channels, charged to their own wallets: counted, not SMS credits.
    const now = t.clock.now().getTime();
    await t.db.store.transaction((trx) =>
      t.db.store.insertMany(
        trx,
        "messages",
        ["whatsapp", "whatsapp", "email", "email", "voice"].map((channel, i) =>
          messageRow({
            id: `q01HKSCREDITS00000000000${String.fromCharCode(65 + i)}A`,
            account_id: shop.id,
            channel,
            wallet: channel,
            status: "delivered",
            created_at: now,
            done_at: now,
          }),
        ),
      ),
    );
    // A refund of the first message, as the ledger writes one: its ref is the message's id.
    const balance = await t.db.store.db
      .selectFrom("ledger_entries")
      .select("balance_after")
      .where("account_id", "=", shop.id)
      .where("wallet", "=", "sms")
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    await t.db.store.db
      .insertInto("ledger_entries")
      .values({
        account_id: shop.id,
        wallet: "sms",
        amount: 1000,
        balance_after: Number(balance.balance_after) + 1000,
        kind: "refund",
        ref: sent[0]!,
        note: null,
        created_at: now + 1000,
      })
      .execute();
  });

  it("the Credits page says what its daily table counts and which ledger entries it shows", async () => {
    const { page, context, problems } = await newPage();
    await signIn(page, shop.username, shop.password, "/credits");
    await page.getByRole("heading", { name: "Credits", exact: true }).waitFor();
    await noneLoading(page);
    const history = page.getByTestId("credit-history");
    expect(await history.locator("caption").textContent()).toMatch(
      /^Messages of every channel and SMS credits used, per day \(.+\), newest first, last 90 days$/,
    );
    expect(await history.locator("thead th").allTextContents()).toEqual([
      "Day",
      "Messages, every channel",
      "SMS credits used",
    ]);
    // Today: 17 messages of every channel, 11 SMS credits (12 sent, 1 refunded).
    expect(await history.locator("tbody tr").first().locator("td").allTextContents()).toEqual([
      expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
      "17",
      "11",
    ]);

    const recent = page.locator("section", { has: page.getByRole("heading", { name: "Recent entries" }) });
    expect(await recent.getByTestId("recent-count").textContent()).toBe(
      "The last 10 entries of the ledger, newest first; the export holds every one.",
    );
    const table = recent.getByRole("table", { name: "The last 10 ledger entries, newest first" });
    expect(await table.locator("tbody tr").count()).toBe(10);
    expect(await recent.textContent()).not.toMatch(/Page \d+ of \d+|in all/);
    expect(await recent.getByRole("link", { name: /CSV/ }).count()).toBeGreaterThan(0);
    await expectAccessible(page, "the Credits page");
    await expectNoHorizontalScroll(page, "the Credits page at 390 px");
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it("the operator's account ledger has a Ref column; a refund's message id opens the message", async () => {
    const { page, context, problems } = await newPage();
    await signIn(page, operator().username, operator().password, `/operator/accounts/${shop.username}`);
    const ledger = page.getByRole("table", { name: "The last 500 entries, newest first" });
    await ledger.locator("tbody tr").first().waitFor();
    expect(await ledger.locator("thead th").allTextContents()).toEqual([
      "When",
      "Wallet",
      "Kind",
      "Amount",
      "Balance after",
      "Ref",
      "Note",
    ]);
    const refund = ledger.locator("tbody tr").first();
    expect(await refund.locator("td").nth(2).textContent()).toBe("refund");
    // A debit's ref is its broadcast: shown, not a link.
    const debit = ledger.locator("tbody tr").nth(1);
    expect(await debit.locator("td").nth(5).textContent()).toMatch(/^\d+_\d{8}_\d+$/);
    expect(await debit.locator("td").nth(5).getByRole("link").count()).toBe(0);
    await expectAccessible(page, "the operator's account page");
    await expectNoHorizontalScroll(page, "the operator's account page at 390 px");
    await refund.getByRole("link", { name: sent[0]! }).click();
    await page.getByRole("heading", { name: /^Message to / }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/operator/messages/${sent[0]}`);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});

async function signIn(page: Page, username: string, password: string, path: string, login?: string) {
  await page.goto(path);
  await page.getByLabel("Username").fill(username);
  if (login) await page.getByLabel("Your login").fill(login);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
}
