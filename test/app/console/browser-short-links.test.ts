// The console in a real browser at 390 px (a phone), for issue 40's item 6: the operator turns on
// an account's default for tracked short links in "Limits and routes"; the account's send then
// carries short links, which are followed; the account holder sees the clicks on the message's
// page, in the message list, and a bulk job's click-through on its page; and (item 5) a message
// an operator failed with a DLT code shows its reason and the carrier's code — with axe and no
// sideways scroll.
import { beforeAll, expect, it } from "vitest";
import { until } from "../../channels/smpp-server/client.js";
import {
  describeInBrowser,
  expectAccessible,
  expectNoHorizontalScroll,
  noneLoading,
  useConsole,
} from "../../helpers/browser.js";
import { buildAccount, call, type TestAccount, type TestGateway } from "../../helpers/gateway.js";
import { FAST_SIMULATOR, keyOf, waitForStatus } from "../../helpers/sms.js";

const TOGGLE = "Tracked short links in every SMS unless a send says otherwise (SHORT_LINK_BASE)";

/** The short-link codes of a message, or of every message of a broadcast, once they are written. */
async function codesOf(t: TestGateway, where: { message?: string; broadcast?: string }, count: number) {
  let codes: string[] = [];
  await until(async () => {
    let query = t.db.store.db
      .selectFrom("short_links")
      .innerJoin("messages", "messages.id", "short_links.message_id")
      .select("short_links.code");
    if (where.message) query = query.where("messages.id", "=", where.message);
    if (where.broadcast) query = query.where("messages.broadcast_id", "=", where.broadcast);
    codes = (await query.execute()).map((row) => row.code);
    return codes.length >= count;
  });
  return codes;
}

describeInBrowser("console in the browser: tracked short links", () => {
  const { gateway, operator, phonePage } = useConsole({
    env: { ...FAST_SIMULATOR, SHORT_LINK_BASE: "https://sb.in/l" },
  });
  let shop: TestAccount;

  beforeAll(async () => {
    shop = await buildAccount(gateway(), { credits: { sms: 100 } });
  });

  const follow = async (code: string) => {
    const answer = await fetch(`${gateway().url}/l/${code}`, { redirect: "manual" });
    expect(answer.status).toBe(302);
  };

  it("turns the account's default on, and shows the clicks of a send and a bulk job at 390 px", async () => {
    const t = gateway();
    const { page, context, problems } = await phonePage(operator(), `/operator/accounts/${shop.username}`);
    const limits = page.getByRole("form", { name: "Limits and routes" });
    const toggle = limits.getByLabel(TOGGLE);
    await toggle.waitFor();
    await noneLoading(page);
    expect(await toggle.isChecked()).toBe(false);
    await expectNoHorizontalScroll(page, "account page with the short-link default");
    await expectAccessible(page, "account page with the short-link default");
    await toggle.check();
    await limits.getByRole("button", { name: "Save limits and routes" }).click();
    await limits.getByText("Saved; it applies to the next request.").waitFor();
    const detail = await call(t, "GET", `/admin/api/accounts/${shop.username}`, {
      headers: { authorization: `Bearer ${operator().apiKey}` },
    });
    expect(detail.body.data.shorten_urls).toBe(true);
    await context.close();

    // The account's sends, saying nothing of short links, take its default.
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(shop),
      json: { sender_id: "SWBRD", recipient: "9876543210", message: "Sale! See https://example.com/sale today" },
    });
    expect(sent.status, sent.text).toBe(200);
    const messageId = sent.body.data.message_id as string;
    const [code] = await codesOf(t, { message: messageId }, 1);
    await follow(code!);
    await follow(code!);
    const bulk = await call(t, "POST", "/api/v2/sms/bulk", {
      headers: keyOf(shop),
      json: { sender_id: "SWBRD", recipients: ["9876543211", "9876543212"], message: "Offer at https://example.com/o" },
    });
    expect(bulk.status, bulk.text).toBe(200);
    const jobCodes = await codesOf(t, { broadcast: bulk.body.data.batch_id }, 2);
    await follow(jobCodes[0]!);

    const holder = await phonePage(shop, `/messages/${messageId}`);
    await expect.poll(() => holder.page.getByTestId("message-clicks").textContent()).toContain("2 clicks");
    await noneLoading(holder.page);
    await expectNoHorizontalScroll(holder.page, "message page with clicks");
    await expectAccessible(holder.page, "message page with clicks");

    await holder.page.goto("/messages");
    await holder.page.getByRole("row", { name: /Sale! See https:\/\/sb\.in\/l\/.* 2 clicks/ }).waitFor();
    await noneLoading(holder.page);
    await expectNoHorizontalScroll(holder.page, "message list with clicks");

    await holder.page.goto(`/bulk/${bulk.body.data.job_id}`);
    const clicks = holder.page.getByTestId("job-clicks");
    await expect.poll(() => clicks.textContent()).toContain("1 of 2 messages clicked (50% click-through)");
    await noneLoading(holder.page);
    await expectNoHorizontalScroll(holder.page, "bulk job page with click-through");
    await expectAccessible(holder.page, "bulk job page with click-through");
    expect(problems).toEqual([]);
    expect(holder.problems).toEqual([]);
    await holder.context.close();
  }, 120_000);

  it("shows a failed message's DLT reason and the carrier's code on its page at 390 px", async () => {
    const t = gateway();
    const sent = await call(t, "POST", "/api/v2/sms/send", {
      headers: keyOf(shop),
      json: { sender_id: "SWBRD", recipient: "9876543219", message: "Your order has shipped" },
    });
    expect(sent.status, sent.text).toBe(200);
    const id = sent.body.data.message_id as string;
    await waitForStatus(t, shop, id);
    // As the receipt `stat:UNDELIV err:633` leaves it (test/delivery/carriers/carrier-error-codes.test.ts).
    await t.db.store.db
      .updateTable("messages")
      .set({
        status: "failed",
        error_code: "633",
        error_message: "Template not matched",
        error_reason: "dlt_template_mismatch",
        carrier_code: "633",
      })
      .where("id", "=", id)
      .execute();
    const { page, context, problems } = await phonePage(shop, `/messages/${id}`);
    await expect.poll(() => page.getByTestId("message-reason").textContent()).toBe("dlt_template_mismatch");
    expect(await page.getByRole("note").textContent()).toContain("carrier code 633");
    await noneLoading(page);
    await expectNoHorizontalScroll(page, "failed message with its reason");
    await expectAccessible(page, "failed message with its reason");
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);
});
