// The support desk's message search and message page in a real browser at phone width (390 px):
// a time of day beside each date narrows the account's and the operator's searches to a minute
// in the console's zone (audit row 9); the operator's page of a sub-account's message shows its
// DLT facts and what every level of the tree was charged (rows 10 and 18), with the telemarketer
// chain the SMS was accepted with and what the DLT scrubbing did. No sideways scroll.
import { createHash } from "node:crypto";
import { beforeAll, expect, it } from "vitest";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  phonePageAs,
  useBrowser,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, useTestGateway } from "../../helpers/gateway.js";
import { messageRow } from "../../helpers/message-row.js";
import { resellerTree } from "../../helpers/resellers.js";
import { sendSms } from "../../helpers/sms.js";

describeInBrowser("console in the browser: the message desk", () => {
  const gateway = useTestGateway("sqlite", { env: { SIMULATOR_LATENCY_MS: "600000" } });
  const browser = useBrowser();
  let operator: TestAccount;
  let shop: TestAccount;
  // 10:14 and 10:20 on 20 Nov 2026 in India (the accounts' zone).
  const early = Date.parse("2026-11-20T04:44:30Z");
  const late = Date.parse("2026-11-20T04:50:00Z");

  beforeAll(async () => {
    const t = gateway();
    operator = await buildAccount(t, { role: "operator", sender: null });
    shop = await buildAccount(t);
    const row = (id: string, at: number, recipient: string) =>
      messageRow({
        id,
        account_id: shop.id,
        recipient,
        body: "Your order is on its way",
        status: "delivered",
        created_at: at,
        done_at: at + 5000,
      });
    await t.db.store.transaction((trx) =>
      t.db.store.insertMany(trx, "messages", [
        row("q01DESK000000000000000000EA", early, "9812340012"),
        row("q01DESK000000000000000000LA", late, "9812340013"),
      ]),
    );
  });

  /** Picks a date and a time in the search form; the list follows the address. */
  async function narrow(page: import("playwright-core").Page, prefix: string) {
    await page.locator(`#${prefix}from`).fill("2026-11-20");
    await page.locator(`#${prefix}from-time`).fill("10:14");
    await page.locator(`#${prefix}to`).fill("2026-11-20");
    await page.locator(`#${prefix}to-time`).fill("10:15");
  }

  it("narrows the account's and the operator's search to a time of day, in the console's zone", async () => {
    const own = await phonePageAs(browser(), gateway().url, shop, "/messages");
    await own.page.getByRole("heading", { name: "Messages" }).waitFor();
    await noneLoading(own.page);
    await expect.poll(() => own.page.getByText("9812340013").count()).toBe(1);
    await narrow(own.page, "");
    await expect.poll(() => new URL(own.page.url()).searchParams.get("to")).toBe("2026-11-20T10:15");
    expect(new URL(own.page.url()).searchParams.get("from")).toBe("2026-11-20T10:14");
    // Both at once: while the narrowed list loads, neither number is on the page.
    await expect
      .poll(async () => [
        await own.page.getByText("9812340012").count(),
        await own.page.getByText("9812340013").count(),
      ])
      .toEqual([1, 0]);
    expect(await own.page.getByLabel(/From \(time\), (IST|GMT\+5:30)/).count()).toBe(1);
    await expectNoHorizontalScroll(own.page, "messages searched by time");
    await expectAccessible(own.page, "messages searched by time");
    expect(own.problems).toEqual([]);
    await own.context.close();

    const desk = await phonePageAs(browser(), gateway().url, operator, `/operator/messages?account=${shop.username}`);
    await desk.page.getByRole("heading", { name: `Messages of ${shop.username}` }).waitFor();
    await noneLoading(desk.page);
    await expect.poll(() => desk.page.getByTestId("operator-messages").locator("tbody tr").count()).toBe(2);
    await narrow(desk.page, "filter-");
    await desk.page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => desk.page.getByTestId("operator-messages").locator("tbody tr").count()).toBe(1);
    expect(await desk.page.getByTestId("operator-messages").textContent()).toContain("9812340012");
    // The form reads the address back: the time stays beside its date.
    expect(await desk.page.locator("#filter-from-time").inputValue()).toBe("10:14");
    await expectNoHorizontalScroll(desk.page, "operator messages searched by time");
    expect(desk.problems).toEqual([]);
    await desk.context.close();
  }, 120_000);

  it("shows the operator a sub-account's message with its DLT facts and every level's charge", async () => {
    const t = gateway();
    const { top, mid, leaf } = await resellerTree(t, t.clock);
    const sent = await sendSms(t, leaf, { sender_id: "SWBRD", recipient: "9876543210", message: "Hi", route: "T" });
    expect(sent.status, sent.text).toBe(200);
    const { page, context, problems } = await phonePageAs(
      browser(),
      t.url,
      operator,
      `/operator/messages/${sent.body.data.message_id}`,
    );
    await page.getByRole("heading", { name: "DLT and charges" }).waitFor();
    expect(await page.getByTestId("dlt-header").textContent()).toBe("SWBRD");
    expect(await page.getByTestId("dlt-matched").textContent()).toMatch(/^none/);
    expect(await page.getByTestId("dlt-tm-chain").textContent()).toBe("none declared for its entity");
    expect(await page.getByTestId("dlt-scrubbing").textContent()).toMatch(/^off: the account did not scrub/);
    const charges = await page.getByTestId("message-charges").locator("li").allInnerTexts();
    expect(charges).toEqual([
      `${leaf.username}: 0.619 credits (its own)`,
      `${mid.username}: 0.55 credits (its parent)`,
      `${top.username}: 0.5 credits (above)`,
    ]);
    await expectNoHorizontalScroll(page, "operator message page");
    await expectAccessible(page, "operator message page");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);

  it("shows the operator the telemarketer chain an SMS was accepted with and what the DLT scrubbing did", async () => {
    const t = gateway();
    const entity = "1101160000000000011";
    const chain = `${entity},1702000000000000011`;
    const scrubbed = await buildAccount(t, { dltScrubbing: true });
    const admin = (method: string, path: string, json: unknown) =>
      call(t, method, `/admin/api/accounts/${scrubbed.username}${path}`, {
        headers: { authorization: `Bearer ${operator.apiKey}` },
        json,
      });
    for (const [method, path, body] of [
      ["POST", "/dlt/headers", { header: "SWBRD" }],
      ["POST", "/dlt/entities", { entity_id: entity }],
      ["POST", "/templates", { name: "otp", content: "Your OTP is {#var#}.", entity_id: entity, approve: true }],
      ["PUT", "/dlt/chains", { entity_id: entity, chain: ["1702000000000000011"] }],
    ] as const) {
      const made = await admin(method, path, body);
      expect(made.status, made.text).toBeLessThan(300);
    }
    const sent = await sendSms(t, scrubbed, {
      sender_id: "SWBRD",
      recipient: "9876543210",
      message: "Your OTP is 77.",
    });
    expect(sent.status, sent.text).toBe(200);
    const { page, context, problems } = await phonePageAs(
      browser(),
      t.url,
      operator,
      `/operator/messages/${sent.body.data.message_id}`,
    );
    await page.getByRole("heading", { name: "DLT and charges" }).waitFor();
    const shown = page.getByTestId("dlt-tm-chain");
    expect(await shown.locator("code").allTextContents()).toEqual([
      chain,
      createHash("sha256").update(chain).digest("hex"),
    ]);
    expect(await page.getByTestId("dlt-scrubbing").textContent()).toMatch(/^matched: header and entity white-listed/);
    // The 64-digit hash and the chain wrap inside the phone's width.
    await expectNoHorizontalScroll(page, "operator message page with a telemarketer chain");
    const box = await shown.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    await expectAccessible(page, "operator message page with a telemarketer chain");
    expect(problems).toEqual([]);
    await context.close();
  }, 120_000);
});
